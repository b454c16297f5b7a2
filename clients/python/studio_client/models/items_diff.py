from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.changed_item import ChangedItem


T = TypeVar("T", bound="ItemsDiff")


@_attrs_define
class ItemsDiff:
    """
    Attributes:
        added (list[str]):
        removed (list[str]):
        changed (list[ChangedItem]):
    """

    added: list[str]
    removed: list[str]
    changed: list[ChangedItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        added = self.added

        removed = self.removed

        changed = []
        for changed_item_data in self.changed:
            changed_item = changed_item_data.to_dict()
            changed.append(changed_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "added": added,
                "removed": removed,
                "changed": changed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.changed_item import ChangedItem  # noqa: PLC0415

        d = dict(src_dict)
        added = cast(list[str], d.pop("added"))

        removed = cast(list[str], d.pop("removed"))

        changed = []
        _changed = d.pop("changed")
        for changed_item_data in _changed:
            changed_item = ChangedItem.from_dict(changed_item_data)

            changed.append(changed_item)

        items_diff = cls(
            added=added,
            removed=removed,
            changed=changed,
        )

        items_diff.additional_properties = d
        return items_diff

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
