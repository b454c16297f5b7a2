from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.definition_tests_item_assertions_item_expect import DefinitionTestsItemAssertionsItemExpect
from ..models.definition_tests_item_assertions_item_order import DefinitionTestsItemAssertionsItemOrder
from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionTestsItemAssertionsItem")


@_attrs_define
class DefinitionTestsItemAssertionsItem:
    """
    Attributes:
        node (str):
        expect (DefinitionTestsItemAssertionsItemExpect):
        port (None | str | Unset):
        rows (list[Any] | Unset):
        order (DefinitionTestsItemAssertionsItemOrder | Unset):
        min_ (int | Unset):
        max_ (int | Unset):
        expression (str | Unset):
        description (str | Unset):
    """

    node: str
    expect: DefinitionTestsItemAssertionsItemExpect
    port: None | str | Unset = UNSET
    rows: list[Any] | Unset = UNSET
    order: DefinitionTestsItemAssertionsItemOrder | Unset = UNSET
    min_: int | Unset = UNSET
    max_: int | Unset = UNSET
    expression: str | Unset = UNSET
    description: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        expect = self.expect.value

        port: None | str | Unset
        if isinstance(self.port, Unset):
            port = UNSET
        else:
            port = self.port

        rows: list[Any] | Unset = UNSET
        if not isinstance(self.rows, Unset):
            rows = self.rows

        order: str | Unset = UNSET
        if not isinstance(self.order, Unset):
            order = self.order.value

        min_ = self.min_

        max_ = self.max_

        expression = self.expression

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "node": node,
                "expect": expect,
            }
        )
        if port is not UNSET:
            field_dict["port"] = port
        if rows is not UNSET:
            field_dict["rows"] = rows
        if order is not UNSET:
            field_dict["order"] = order
        if min_ is not UNSET:
            field_dict["min"] = min_
        if max_ is not UNSET:
            field_dict["max"] = max_
        if expression is not UNSET:
            field_dict["expression"] = expression
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node = d.pop("node")

        expect = DefinitionTestsItemAssertionsItemExpect(d.pop("expect"))

        def _parse_port(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        port = _parse_port(d.pop("port", UNSET))

        rows = cast(list[Any], d.pop("rows", UNSET))

        _order = d.pop("order", UNSET)
        order: DefinitionTestsItemAssertionsItemOrder | Unset
        if isinstance(_order, Unset):
            order = UNSET
        else:
            order = DefinitionTestsItemAssertionsItemOrder(_order)

        min_ = d.pop("min", UNSET)

        max_ = d.pop("max", UNSET)

        expression = d.pop("expression", UNSET)

        description = d.pop("description", UNSET)

        definition_tests_item_assertions_item = cls(
            node=node,
            expect=expect,
            port=port,
            rows=rows,
            order=order,
            min_=min_,
            max_=max_,
            expression=expression,
            description=description,
        )

        return definition_tests_item_assertions_item
