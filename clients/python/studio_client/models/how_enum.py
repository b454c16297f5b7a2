from enum import StrEnum


class HowEnum(StrEnum):
    CANCEL = "cancel"
    END_OF_INPUT = "end_of_input"
    FAILURE = "failure"
    RESCALE = "rescale"
    RESTART = "restart"
    STOP = "stop"
    UPGRADE = "upgrade"

    def __str__(self) -> str:
        return str(self.value)
