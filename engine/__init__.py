"""The pipeline engine: a Flink-style streaming runtime in Python, placed onto Spark.

Importable and testable without Django: the studio hands the engine an event sink and
a command source, never the other way round.
"""
