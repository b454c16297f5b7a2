from enum import StrEnum


class DefinitionEdgesItemExchange(StrEnum):
    BLOCKING = "blocking"
    PIPELINED = "pipelined"

    def __str__(self) -> str:
        return str(self.value)
