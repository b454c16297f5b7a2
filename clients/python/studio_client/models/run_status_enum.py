from enum import StrEnum


class RunStatusEnum(StrEnum):
    CANCELED = "CANCELED"
    CANCELING = "CANCELING"
    CREATED = "CREATED"
    FAILED = "FAILED"
    FAILING = "FAILING"
    FINISHED = "FINISHED"
    FINISHING = "FINISHING"
    RESTARTING = "RESTARTING"
    RUNNING = "RUNNING"
    SCHEDULING = "SCHEDULING"

    def __str__(self) -> str:
        return str(self.value)
