from enum import StrEnum


class RestorePointKindEnum(StrEnum):
    CHECKPOINT = "checkpoint"
    SAVEPOINT = "savepoint"

    def __str__(self) -> str:
        return str(self.value)
