from enum import StrEnum


class SnapshotEnum(StrEnum):
    LATEST = "latest"
    TAKE = "take"

    def __str__(self) -> str:
        return str(self.value)
