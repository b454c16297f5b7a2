from enum import StrEnum


class RunsCheckpointsStateOperatorsExportRetrieveAs(StrEnum):
    JSONL = "jsonl"
    PARQUET = "parquet"

    def __str__(self) -> str:
        return str(self.value)
