from enum import StrEnum


class RunsShadowsOutputsRetrieveSide(StrEnum):
    CANDIDATE = "candidate"
    PRODUCTION = "production"

    def __str__(self) -> str:
        return str(self.value)
