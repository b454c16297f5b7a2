from enum import StrEnum


class KafkaSampleRetrieveEmit(StrEnum):
    RECORD = "record"
    VALUE = "value"

    def __str__(self) -> str:
        return str(self.value)
