from enum import StrEnum


class TeamShareRoleEnum(StrEnum):
    EDITOR = "editor"
    OPERATOR = "operator"
    VIEWER = "viewer"

    def __str__(self) -> str:
        return str(self.value)
