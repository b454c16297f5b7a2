from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DiskUsage")


@_attrs_define
class DiskUsage:
    """
    Attributes:
        run (int):
        total_bytes (int): Checkpoints, savepoints and the log.
        checkpoint_bytes (int): Retained checkpoints in the run's checkpoint directory.
        checkpoint_count (int): Checkpoint directories there.
        savepoint_bytes (int): The run's savepoints whose files are there (local ones).
        savepoint_count (int):
        log_bytes (int): The run's driver log.
        measured_at (datetime.datetime):
        checkpoints_swept_at (datetime.datetime | None): When retention deleted the checkpoints of the ended run
            (savepoints stay).
    """

    run: int
    total_bytes: int
    checkpoint_bytes: int
    checkpoint_count: int
    savepoint_bytes: int
    savepoint_count: int
    log_bytes: int
    measured_at: datetime.datetime
    checkpoints_swept_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        run = self.run

        total_bytes = self.total_bytes

        checkpoint_bytes = self.checkpoint_bytes

        checkpoint_count = self.checkpoint_count

        savepoint_bytes = self.savepoint_bytes

        savepoint_count = self.savepoint_count

        log_bytes = self.log_bytes

        measured_at = self.measured_at.isoformat()

        checkpoints_swept_at: None | str
        if isinstance(self.checkpoints_swept_at, datetime.datetime):
            checkpoints_swept_at = self.checkpoints_swept_at.isoformat()
        else:
            checkpoints_swept_at = self.checkpoints_swept_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "run": run,
                "total_bytes": total_bytes,
                "checkpoint_bytes": checkpoint_bytes,
                "checkpoint_count": checkpoint_count,
                "savepoint_bytes": savepoint_bytes,
                "savepoint_count": savepoint_count,
                "log_bytes": log_bytes,
                "measured_at": measured_at,
                "checkpoints_swept_at": checkpoints_swept_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        run = d.pop("run")

        total_bytes = d.pop("total_bytes")

        checkpoint_bytes = d.pop("checkpoint_bytes")

        checkpoint_count = d.pop("checkpoint_count")

        savepoint_bytes = d.pop("savepoint_bytes")

        savepoint_count = d.pop("savepoint_count")

        log_bytes = d.pop("log_bytes")

        measured_at = datetime.datetime.fromisoformat(d.pop("measured_at"))

        def _parse_checkpoints_swept_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                checkpoints_swept_at_type_0 = datetime.datetime.fromisoformat(data)

                return checkpoints_swept_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        checkpoints_swept_at = _parse_checkpoints_swept_at(d.pop("checkpoints_swept_at"))

        disk_usage = cls(
            run=run,
            total_bytes=total_bytes,
            checkpoint_bytes=checkpoint_bytes,
            checkpoint_count=checkpoint_count,
            savepoint_bytes=savepoint_bytes,
            savepoint_count=savepoint_count,
            log_bytes=log_bytes,
            measured_at=measured_at,
            checkpoints_swept_at=checkpoints_swept_at,
        )

        disk_usage.additional_properties = d
        return disk_usage

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
