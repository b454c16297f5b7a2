from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.side_enum import SideEnum

T = TypeVar("T", bound="OutputPage")


@_attrs_define
class OutputPage:
    """
    Attributes:
        node (str):
        side (SideEnum): * `production` - production
            * `candidate` - candidate
        total (int):
        offset (int):
        records (list[Any]):
    """

    node: str
    side: SideEnum
    total: int
    offset: int
    records: list[Any]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        side = self.side.value

        total = self.total

        offset = self.offset

        records = self.records

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "side": side,
                "total": total,
                "offset": offset,
                "records": records,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node = d.pop("node")

        side = SideEnum(d.pop("side"))

        total = d.pop("total")

        offset = d.pop("offset")

        records = cast(list[Any], d.pop("records"))

        output_page = cls(
            node=node,
            side=side,
            total=total,
            offset=offset,
            records=records,
        )

        output_page.additional_properties = d
        return output_page

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
