"""Observability as an app of its own: ``/metrics`` in the Prometheus text format (the studio's figures
and every running job's, per pipeline, run, vertex, operator and subtask) and OpenTelemetry traces
of checkpoints and run lifecycles, exported over OTLP when configured."""
