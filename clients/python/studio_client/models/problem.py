from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """
    Attributes:
        node (None | str):
        edge (None | str):
        field (None | str):
        message (str):
    """

    node: None | str
    edge: None | str
    field: None | str
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node: None | str
        node = self.node

        edge: None | str
        edge = self.edge

        field: None | str
        field = self.field

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "edge": edge,
                "field": field,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_node(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        node = _parse_node(d.pop("node"))

        def _parse_edge(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        edge = _parse_edge(d.pop("edge"))

        def _parse_field(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        field = _parse_field(d.pop("field"))

        message = d.pop("message")

        problem = cls(
            node=node,
            edge=edge,
            field=field,
            message=message,
        )

        problem.additional_properties = d
        return problem

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
