from enum import StrEnum


class DefinitionCheckpointingMode(StrEnum):
    AT_LEAST_ONCE = "at_least_once"
    EXACTLY_ONCE = "exactly_once"

    def __str__(self) -> str:
        return str(self.value)
