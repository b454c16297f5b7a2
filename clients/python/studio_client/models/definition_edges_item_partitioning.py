from enum import StrEnum


class DefinitionEdgesItemPartitioning(StrEnum):
    BROADCAST = "broadcast"
    FORWARD = "forward"
    HASH = "hash"
    REBALANCE = "rebalance"
    RESCALE = "rescale"

    def __str__(self) -> str:
        return str(self.value)
