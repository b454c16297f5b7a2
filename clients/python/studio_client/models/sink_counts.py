from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SinkCounts")


@_attrs_define
class SinkCounts:
    """
    Attributes:
        production (int): Rows (keys, when keyed) production's side wrote.
        candidate (int):
        only_production (int):
        only_candidate (int):
        changed (int): Keys both wrote with different rows (keyed sinks).
        same (int):
    """

    production: int
    candidate: int
    only_production: int
    only_candidate: int
    changed: int
    same: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        production = self.production

        candidate = self.candidate

        only_production = self.only_production

        only_candidate = self.only_candidate

        changed = self.changed

        same = self.same

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "production": production,
                "candidate": candidate,
                "only_production": only_production,
                "only_candidate": only_candidate,
                "changed": changed,
                "same": same,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        production = d.pop("production")

        candidate = d.pop("candidate")

        only_production = d.pop("only_production")

        only_candidate = d.pop("only_candidate")

        changed = d.pop("changed")

        same = d.pop("same")

        sink_counts = cls(
            production=production,
            candidate=candidate,
            only_production=only_production,
            only_candidate=only_candidate,
            changed=changed,
            same=same,
        )

        sink_counts.additional_properties = d
        return sink_counts

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
