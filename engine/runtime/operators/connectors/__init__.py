"""Connectors: the operators that read from or write to a system outside the job.

Sources (``datagen``, files and their splits, Parquet, Redis streams, PostgreSQL change
data, the hybrid source), sinks (collect, files, Parquet, Redis streams, PostgreSQL) and
the async lookups (Redis, HTTP). Each follows the generic contracts one floor up:
:mod:`engine.runtime.operators.source` for sources, :mod:`engine.runtime.operators.two_phase_commit`
for exactly-once sinks, :mod:`engine.runtime.operators.async_io` for lookups.
"""
