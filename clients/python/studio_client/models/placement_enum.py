from enum import StrEnum


class PlacementEnum(StrEnum):
    OWN_DRIVER = "own_driver"
    SESSION = "session"

    def __str__(self) -> str:
        return str(self.value)
