from enum import StrEnum


class SideEnum(StrEnum):
    CANDIDATE = "candidate"
    PRODUCTION = "production"

    def __str__(self) -> str:
        return str(self.value)
