from enum import StrEnum


class EventTimeEnum(StrEnum):
    ASSIGNS = "assigns"
    NEEDS = "needs"

    def __str__(self) -> str:
        return str(self.value)
