from enum import StrEnum


class DefinitionEdgesItemSide(StrEnum):
    LEFT = "left"
    RIGHT = "right"

    def __str__(self) -> str:
        return str(self.value)
