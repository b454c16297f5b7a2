from enum import StrEnum


class DefinitionTestsItemAssertionsItemOrder(StrEnum):
    ANY = "any"
    AUTO = "auto"
    EXACT = "exact"

    def __str__(self) -> str:
        return str(self.value)
