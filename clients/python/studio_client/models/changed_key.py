from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.change_enum import ChangeEnum

T = TypeVar("T", bound="ChangedKey")


@_attrs_define
class ChangedKey:
    """
    Attributes:
        change (ChangeEnum): * `added` - added
            * `removed` - removed
            * `changed` - changed
        key (Any):
        key_json (str):
        key_group (int):
        before (Any):
        after (Any):
    """

    change: ChangeEnum
    key: Any
    key_json: str
    key_group: int
    before: Any
    after: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        change = self.change.value

        key = self.key

        key_json = self.key_json

        key_group = self.key_group

        before = self.before

        after = self.after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "change": change,
                "key": key,
                "key_json": key_json,
                "key_group": key_group,
                "before": before,
                "after": after,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        change = ChangeEnum(d.pop("change"))

        key = d.pop("key")

        key_json = d.pop("key_json")

        key_group = d.pop("key_group")

        before = d.pop("before")

        after = d.pop("after")

        changed_key = cls(
            change=change,
            key=key,
            key_json=key_json,
            key_group=key_group,
            before=before,
            after=after,
        )

        changed_key.additional_properties = d
        return changed_key

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
