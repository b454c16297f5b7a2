from enum import StrEnum


class FilePreviewKindEnum(StrEnum):
    PARQUET = "parquet"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
