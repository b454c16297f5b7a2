from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.key_group_size import KeyGroupSize


T = TypeVar("T", bound="StateSizes")


@_attrs_define
class StateSizes:
    """
    Attributes:
        node (str):
        rows (int):
        bytes_ (int):
        key_groups (list[KeyGroupSize]):
    """

    node: str
    rows: int
    bytes_: int
    key_groups: list[KeyGroupSize]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        rows = self.rows

        bytes_ = self.bytes_

        key_groups = []
        for key_groups_item_data in self.key_groups:
            key_groups_item = key_groups_item_data.to_dict()
            key_groups.append(key_groups_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "rows": rows,
                "bytes": bytes_,
                "key_groups": key_groups,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.key_group_size import KeyGroupSize  # noqa: PLC0415

        d = dict(src_dict)
        node = d.pop("node")

        rows = d.pop("rows")

        bytes_ = d.pop("bytes")

        key_groups = []
        _key_groups = d.pop("key_groups")
        for key_groups_item_data in _key_groups:
            key_groups_item = KeyGroupSize.from_dict(key_groups_item_data)

            key_groups.append(key_groups_item)

        state_sizes = cls(
            node=node,
            rows=rows,
            bytes_=bytes_,
            key_groups=key_groups,
        )

        state_sizes.additional_properties = d
        return state_sizes

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
