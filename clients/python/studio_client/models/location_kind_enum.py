from enum import StrEnum


class LocationKindEnum(StrEnum):
    KAFKA = "kafka"
    PATH = "path"
    POSTGRES = "postgres"
    REDIS = "redis"
    URL = "url"

    def __str__(self) -> str:
        return str(self.value)
