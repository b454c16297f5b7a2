"""Shadow runs: a candidate version run beside production from production's snapshot, in a sandbox, and the diff of their outputs."""
