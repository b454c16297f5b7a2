from enum import StrEnum


class AlertKindEnum(StrEnum):
    BACKPRESSURE = "backpressure"
    CHECKPOINT_DURATION = "checkpoint_duration"
    CHECKPOINT_FAILURES = "checkpoint_failures"
    RUN_FAILED = "run_failed"
    RUN_RESTARTED = "run_restarted"
    VIOLATION_RATE = "violation_rate"

    def __str__(self) -> str:
        return str(self.value)
