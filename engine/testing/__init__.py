"""Testing a user's pipeline: saved test cases, and the exactly-once proof.

A floor of its own between ``engine.api`` (which offers it to clients) and
``engine.cluster`` (whose deployments run its jobs):

- ``harness``: a test case's job -- the pipeline with its sources replaced by the test's
  inputs, its sinks and every node's output collected, its outside calls mocked;
- ``records``: records as comparable JSON, and the first differences between two outputs;
- ``assertions``: what a test case expects of a node's output, checked;
- ``runner``: :func:`run_test_case`, bounded and streaming, which must pass and agree;
- ``kill_schedule``: random kills drawn from a seed, for a job's subtasks and points;
- ``proof``: :func:`prove_exactly_once`, a test case run while its subtasks are killed and
  restored (once at another parallelism), compared with a failure-free run.
"""
