from enum import StrEnum


class ResolutionEnum(StrEnum):
    HOUR = "hour"
    MINUTE = "minute"

    def __str__(self) -> str:
        return str(self.value)
