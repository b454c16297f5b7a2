from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.checkpoint_row import CheckpointRow
    from ..models.restored_checkpoint import RestoredCheckpoint


T = TypeVar("T", bound="LatestCheckpoints")


@_attrs_define
class LatestCheckpoints:
    """
    Attributes:
        completed (CheckpointRow | None):
        savepoint (CheckpointRow | None):
        failed (CheckpointRow | None):
        restored (None | RestoredCheckpoint):
    """

    completed: CheckpointRow | None
    savepoint: CheckpointRow | None
    failed: CheckpointRow | None
    restored: None | RestoredCheckpoint
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.checkpoint_row import CheckpointRow  # noqa: PLC0415
        from ..models.restored_checkpoint import RestoredCheckpoint  # noqa: PLC0415

        completed: dict[str, Any] | None
        if isinstance(self.completed, CheckpointRow):
            completed = self.completed.to_dict()
        else:
            completed = self.completed

        savepoint: dict[str, Any] | None
        if isinstance(self.savepoint, CheckpointRow):
            savepoint = self.savepoint.to_dict()
        else:
            savepoint = self.savepoint

        failed: dict[str, Any] | None
        if isinstance(self.failed, CheckpointRow):
            failed = self.failed.to_dict()
        else:
            failed = self.failed

        restored: dict[str, Any] | None
        if isinstance(self.restored, RestoredCheckpoint):
            restored = self.restored.to_dict()
        else:
            restored = self.restored

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "completed": completed,
                "savepoint": savepoint,
                "failed": failed,
                "restored": restored,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_row import CheckpointRow  # noqa: PLC0415
        from ..models.restored_checkpoint import RestoredCheckpoint  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_completed(data: object) -> CheckpointRow | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                completed_type_1 = CheckpointRow.from_dict(data)

                return completed_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CheckpointRow | None, data)

        completed = _parse_completed(d.pop("completed"))

        def _parse_savepoint(data: object) -> CheckpointRow | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                savepoint_type_1 = CheckpointRow.from_dict(data)

                return savepoint_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CheckpointRow | None, data)

        savepoint = _parse_savepoint(d.pop("savepoint"))

        def _parse_failed(data: object) -> CheckpointRow | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                failed_type_1 = CheckpointRow.from_dict(data)

                return failed_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CheckpointRow | None, data)

        failed = _parse_failed(d.pop("failed"))

        def _parse_restored(data: object) -> None | RestoredCheckpoint:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                restored_type_1 = RestoredCheckpoint.from_dict(data)

                return restored_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RestoredCheckpoint, data)

        restored = _parse_restored(d.pop("restored"))

        latest_checkpoints = cls(
            completed=completed,
            savepoint=savepoint,
            failed=failed,
            restored=restored,
        )

        latest_checkpoints.additional_properties = d
        return latest_checkpoints

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
