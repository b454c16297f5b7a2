from enum import StrEnum


class HealthDegradedStatusEnum(StrEnum):
    DEGRADED = "degraded"

    def __str__(self) -> str:
        return str(self.value)
