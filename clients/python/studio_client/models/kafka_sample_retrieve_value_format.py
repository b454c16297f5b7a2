from enum import StrEnum


class KafkaSampleRetrieveValueFormat(StrEnum):
    CSV = "csv"
    JSON = "json"
    RAW = "raw"
    STRING = "string"

    def __str__(self) -> str:
        return str(self.value)
