from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.definition import Definition


T = TypeVar("T", bound="PlanRequestRequest")


@_attrs_define
class PlanRequestRequest:
    """
    Attributes:
        definition (Definition): A pipeline definition (format 1); see GET /api/operators for node types and the JSON
            Schema of each one's params.
    """

    definition: Definition
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "definition": definition,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition import Definition  # noqa: PLC0415

        d = dict(src_dict)
        definition = Definition.from_dict(d.pop("definition"))

        plan_request_request = cls(
            definition=definition,
        )

        plan_request_request.additional_properties = d
        return plan_request_request

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
