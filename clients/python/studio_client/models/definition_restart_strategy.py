from enum import StrEnum


class DefinitionRestartStrategy(StrEnum):
    EXPONENTIAL_DELAY = "exponential_delay"
    FIXED_DELAY = "fixed_delay"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
