from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SinkSamples")


@_attrs_define
class SinkSamples:
    """
    Attributes:
        only_production (list[Any]):
        only_candidate (list[Any]):
        changed (list[Any]): {key, production, candidate}
    """

    only_production: list[Any]
    only_candidate: list[Any]
    changed: list[Any]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        only_production = self.only_production

        only_candidate = self.only_candidate

        changed = self.changed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "only_production": only_production,
                "only_candidate": only_candidate,
                "changed": changed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        only_production = cast(list[Any], d.pop("only_production"))

        only_candidate = cast(list[Any], d.pop("only_candidate"))

        changed = cast(list[Any], d.pop("changed"))

        sink_samples = cls(
            only_production=only_production,
            only_candidate=only_candidate,
            changed=changed,
        )

        sink_samples.additional_properties = d
        return sink_samples

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
