from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CheckpointCounts")


@_attrs_define
class CheckpointCounts:
    """
    Attributes:
        restored (int):
        total (int):
        in_progress (int):
        completed (int):
        failed (int):
    """

    restored: int
    total: int
    in_progress: int
    completed: int
    failed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        restored = self.restored

        total = self.total

        in_progress = self.in_progress

        completed = self.completed

        failed = self.failed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "restored": restored,
                "total": total,
                "in_progress": in_progress,
                "completed": completed,
                "failed": failed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        restored = d.pop("restored")

        total = d.pop("total")

        in_progress = d.pop("in_progress")

        completed = d.pop("completed")

        failed = d.pop("failed")

        checkpoint_counts = cls(
            restored=restored,
            total=total,
            in_progress=in_progress,
            completed=completed,
            failed=failed,
        )

        checkpoint_counts.additional_properties = d
        return checkpoint_counts

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
