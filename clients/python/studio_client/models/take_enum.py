from enum import StrEnum


class TakeEnum(StrEnum):
    GIT = "git"
    STUDIO = "studio"

    def __str__(self) -> str:
        return str(self.value)
