from enum import StrEnum


class RunStartModeEnum(StrEnum):
    BATCH = "batch"
    STREAMING = "streaming"

    def __str__(self) -> str:
        return str(self.value)
