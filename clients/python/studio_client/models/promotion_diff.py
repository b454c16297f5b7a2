from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.parameter_change import ParameterChange


T = TypeVar("T", bound="PromotionDiff")


@_attrs_define
class PromotionDiff:
    """
    Attributes:
        definition (Any): What changes in the definition's logic (nodes, edges, settings).
        from_version (int | None): The version the target has now.
        to_version (int):
        parameters (list[ParameterChange]):
    """

    definition: Any
    from_version: int | None
    to_version: int
    parameters: list[ParameterChange]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition

        from_version: int | None
        from_version = self.from_version

        to_version = self.to_version

        parameters = []
        for parameters_item_data in self.parameters:
            parameters_item = parameters_item_data.to_dict()
            parameters.append(parameters_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "definition": definition,
                "from_version": from_version,
                "to_version": to_version,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.parameter_change import ParameterChange  # noqa: PLC0415

        d = dict(src_dict)
        definition = d.pop("definition")

        def _parse_from_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        from_version = _parse_from_version(d.pop("from_version"))

        to_version = d.pop("to_version")

        parameters = []
        _parameters = d.pop("parameters")
        for parameters_item_data in _parameters:
            parameters_item = ParameterChange.from_dict(parameters_item_data)

            parameters.append(parameters_item)

        promotion_diff = cls(
            definition=definition,
            from_version=from_version,
            to_version=to_version,
            parameters=parameters,
        )

        promotion_diff.additional_properties = d
        return promotion_diff

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
