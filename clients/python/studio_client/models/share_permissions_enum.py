from enum import StrEnum


class SharePermissionsEnum(StrEnum):
    EDIT = "edit"
    RUN = "run"
    VIEW = "view"

    def __str__(self) -> str:
        return str(self.value)
