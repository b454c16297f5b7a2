"""Live taps: a sample of the records on an edge of a running job, in the browser."""
