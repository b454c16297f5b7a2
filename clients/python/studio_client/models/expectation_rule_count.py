from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_enum import ActionEnum

T = TypeVar("T", bound="ExpectationRuleCount")


@_attrs_define
class ExpectationRuleCount:
    """
    Attributes:
        action (ActionEnum): * `warn` - warn
            * `drop` - drop
            * `quarantine` - quarantine
            * `fail` - fail
        violated (int): Records that violated the rule (or that it could not judge).
    """

    action: ActionEnum
    violated: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        violated = self.violated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "violated": violated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = ActionEnum(d.pop("action"))

        violated = d.pop("violated")

        expectation_rule_count = cls(
            action=action,
            violated=violated,
        )

        expectation_rule_count.additional_properties = d
        return expectation_rule_count

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
