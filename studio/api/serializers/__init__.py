"""Serializers: the shapes the browser and scripts read and write, one module per resource (as DRF keeps
one module per policy family): ``fields`` (the strict fields and base classes all of them use),
``errors``, ``definitions``, ``pipelines``, ``runs``, ``savepoints``, ``checkpoints``, ``metrics``,
``exception_history`` and ``auth``."""
