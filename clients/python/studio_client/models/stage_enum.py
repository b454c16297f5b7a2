from enum import StrEnum


class StageEnum(StrEnum):
    CONNECT = "connect"
    DONE = "done"
    GRANTS = "grants"

    def __str__(self) -> str:
        return str(self.value)
