from enum import StrEnum


class PipelinePermissionsEnum(StrEnum):
    EDIT = "edit"
    OWN = "own"
    RUN = "run"
    VIEW = "view"

    def __str__(self) -> str:
        return str(self.value)
