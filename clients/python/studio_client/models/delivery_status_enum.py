from enum import StrEnum


class DeliveryStatusEnum(StrEnum):
    DELIVERED = "DELIVERED"
    FAILED = "FAILED"
    PENDING = "PENDING"

    def __str__(self) -> str:
        return str(self.value)
