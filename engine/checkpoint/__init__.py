"""Checkpointing on the JobMaster side: coordinator, storage, statistics.

``coordinator.CheckpointCoordinator`` triggers checkpoints and savepoints on the slots and
completes them; ``storage`` writes and reads checkpoint directories on any fsspec
filesystem (``load_metadata`` for restores); ``statistics`` shapes what the studio shows,
with Flink's REST field names.
"""
