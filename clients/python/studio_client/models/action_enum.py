from enum import StrEnum


class ActionEnum(StrEnum):
    DROP = "drop"
    FAIL = "fail"
    QUARANTINE = "quarantine"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
