from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.definition_nodes_item_expectations_item_action import DefinitionNodesItemExpectationsItemAction
from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionNodesItemExpectationsItem")


@_attrs_define
class DefinitionNodesItemExpectationsItem:
    """
    Attributes:
        name (str):
        rule (str):
        action (DefinitionNodesItemExpectationsItemAction | Unset):
        port (str | Unset):
        description (str | Unset):
    """

    name: str
    rule: str
    action: DefinitionNodesItemExpectationsItemAction | Unset = UNSET
    port: str | Unset = UNSET
    description: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        rule = self.rule

        action: str | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.value

        port = self.port

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "rule": rule,
            }
        )
        if action is not UNSET:
            field_dict["action"] = action
        if port is not UNSET:
            field_dict["port"] = port
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        rule = d.pop("rule")

        _action = d.pop("action", UNSET)
        action: DefinitionNodesItemExpectationsItemAction | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = DefinitionNodesItemExpectationsItemAction(_action)

        port = d.pop("port", UNSET)

        description = d.pop("description", UNSET)

        definition_nodes_item_expectations_item = cls(
            name=name,
            rule=rule,
            action=action,
            port=port,
            description=description,
        )

        return definition_nodes_item_expectations_item
