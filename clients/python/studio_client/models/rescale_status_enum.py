from enum import StrEnum


class RescaleStatusEnum(StrEnum):
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    ROLLED_BACK = "ROLLED_BACK"
    STARTING = "STARTING"
    STOPPING = "STOPPING"

    def __str__(self) -> str:
        return str(self.value)
