from enum import StrEnum


class ShadowStatusEnum(StrEnum):
    COMPLETED = "COMPLETED"
    DISCARDED = "DISCARDED"
    FAILED = "FAILED"
    PENDING = "PENDING"
    PROMOTED = "PROMOTED"
    RUNNING = "RUNNING"
    SNAPSHOTTING = "SNAPSHOTTING"

    def __str__(self) -> str:
        return str(self.value)
