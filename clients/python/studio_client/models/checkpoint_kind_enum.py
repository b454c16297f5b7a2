from enum import StrEnum


class CheckpointKindEnum(StrEnum):
    CHECKPOINT = "checkpoint"
    SAVEPOINT = "savepoint"
    SYNC_SAVEPOINT = "sync-savepoint"

    def __str__(self) -> str:
        return str(self.value)
