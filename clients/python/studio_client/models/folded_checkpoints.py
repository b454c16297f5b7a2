from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FoldedCheckpoints")


@_attrs_define
class FoldedCheckpoints:
    """
    Attributes:
        completed (int): Completed checkpoints folded into rollups.
        failed (int): Failed checkpoints folded (beyond the kept ones).
        first_id (int):
        last_id (int):
        first_trigger_timestamp (int):
        last_trigger_timestamp (int):
        relative_accuracy (float): The largest relative error of a percentile over them.
    """

    completed: int
    failed: int
    first_id: int
    last_id: int
    first_trigger_timestamp: int
    last_trigger_timestamp: int
    relative_accuracy: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        completed = self.completed

        failed = self.failed

        first_id = self.first_id

        last_id = self.last_id

        first_trigger_timestamp = self.first_trigger_timestamp

        last_trigger_timestamp = self.last_trigger_timestamp

        relative_accuracy = self.relative_accuracy

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "completed": completed,
                "failed": failed,
                "first_id": first_id,
                "last_id": last_id,
                "first_trigger_timestamp": first_trigger_timestamp,
                "last_trigger_timestamp": last_trigger_timestamp,
                "relative_accuracy": relative_accuracy,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        completed = d.pop("completed")

        failed = d.pop("failed")

        first_id = d.pop("first_id")

        last_id = d.pop("last_id")

        first_trigger_timestamp = d.pop("first_trigger_timestamp")

        last_trigger_timestamp = d.pop("last_trigger_timestamp")

        relative_accuracy = d.pop("relative_accuracy")

        folded_checkpoints = cls(
            completed=completed,
            failed=failed,
            first_id=first_id,
            last_id=last_id,
            first_trigger_timestamp=first_trigger_timestamp,
            last_trigger_timestamp=last_trigger_timestamp,
            relative_accuracy=relative_accuracy,
        )

        folded_checkpoints.additional_properties = d
        return folded_checkpoints

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
