from enum import StrEnum


class SavepointTriggerEnum(StrEnum):
    MANUAL = "manual"
    SCHEDULED = "scheduled"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
