from enum import StrEnum


class VerdictEnum(StrEnum):
    ERROR = "error"
    FAILED = "failed"
    INCONCLUSIVE = "inconclusive"
    PASSED = "passed"
    QUEUED = "queued"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
