from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.state_row import StateRow


T = TypeVar("T", bound="StatePage")


@_attrs_define
class StatePage:
    """
    Attributes:
        node (str):
        total (int): Rows matching the search and expression.
        offset (int):
        rows (list[StateRow]):
    """

    node: str
    total: int
    offset: int
    rows: list[StateRow]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        total = self.total

        offset = self.offset

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "total": total,
                "offset": offset,
                "rows": rows,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.state_row import StateRow  # noqa: PLC0415

        d = dict(src_dict)
        node = d.pop("node")

        total = d.pop("total")

        offset = d.pop("offset")

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = StateRow.from_dict(rows_item_data)

            rows.append(rows_item)

        state_page = cls(
            node=node,
            total=total,
            offset=offset,
            rows=rows,
        )

        state_page.additional_properties = d
        return state_page

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
