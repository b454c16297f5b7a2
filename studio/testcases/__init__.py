"""Test cases as an app of their own: a version's saved test cases run on request (in a budgeted
worker), and the exactly-once proof of a version (a Celery task driving a Spark job that is killed
and restored), each result kept per version: the suite runs and proofs are its test history."""
