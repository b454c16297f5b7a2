from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ParameterChange")


@_attrs_define
class ParameterChange:
    """
    Attributes:
        name (str):
        source (Any): Its value in the environment before (null: none).
        target (Any): Its value in the target environment.
        missing (bool): The target environment does not define it.
        changes (bool):
    """

    name: str
    source: Any
    target: Any
    missing: bool
    changes: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        source = self.source

        target = self.target

        missing = self.missing

        changes = self.changes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "source": source,
                "target": target,
                "missing": missing,
                "changes": changes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        source = d.pop("source")

        target = d.pop("target")

        missing = d.pop("missing")

        changes = d.pop("changes")

        parameter_change = cls(
            name=name,
            source=source,
            target=target,
            missing=missing,
            changes=changes,
        )

        parameter_change.additional_properties = d
        return parameter_change

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
