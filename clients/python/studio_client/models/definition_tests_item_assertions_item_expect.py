from enum import StrEnum


class DefinitionTestsItemAssertionsItemExpect(StrEnum):
    CONTAINS = "contains"
    COUNT = "count"
    EMPTY = "empty"
    EVERY = "every"
    NONE = "none"
    ROWS = "rows"
    UNIQUE = "unique"

    def __str__(self) -> str:
        return str(self.value)
