from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ChangeCounts")


@_attrs_define
class ChangeCounts:
    """
    Attributes:
        added (int):
        removed (int):
        changed (int):
        unchanged (int):
    """

    added: int
    removed: int
    changed: int
    unchanged: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        added = self.added

        removed = self.removed

        changed = self.changed

        unchanged = self.unchanged

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "added": added,
                "removed": removed,
                "changed": changed,
                "unchanged": unchanged,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        added = d.pop("added")

        removed = d.pop("removed")

        changed = d.pop("changed")

        unchanged = d.pop("unchanged")

        change_counts = cls(
            added=added,
            removed=removed,
            changed=changed,
            unchanged=unchanged,
        )

        change_counts.additional_properties = d
        return change_counts

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
