from enum import StrEnum


class FileEntryKindEnum(StrEnum):
    DIRECTORY = "directory"
    FILE = "file"
    LINK = "link"
    OTHER = "other"

    def __str__(self) -> str:
        return str(self.value)
