from enum import StrEnum


class StateEnum(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
