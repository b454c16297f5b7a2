"""Shadow runs: a candidate version forked from production's snapshot, run beside production's version on the
same input in a sandbox (its sinks redirected, its sources forked), and the two outputs compared."""
