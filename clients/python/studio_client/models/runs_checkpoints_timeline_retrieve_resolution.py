from enum import StrEnum


class RunsCheckpointsTimelineRetrieveResolution(StrEnum):
    HOUR = "hour"
    MINUTE = "minute"

    def __str__(self) -> str:
        return str(self.value)
