from enum import StrEnum


class ConnectionKindEnum(StrEnum):
    KAFKA = "kafka"
    POSTGRES = "postgres"
    REDIS = "redis"

    def __str__(self) -> str:
        return str(self.value)
