from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LatencyFigures")


@_attrs_define
class LatencyFigures:
    """What latency markers measured over a window of the latest markers (128 per source subtask).

    Attributes:
        p50_ms (float):
        p99_ms (float):
        markers (int): Markers recorded since the subtask started.
    """

    p50_ms: float
    p99_ms: float
    markers: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        p50_ms = self.p50_ms

        p99_ms = self.p99_ms

        markers = self.markers

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "p50_ms": p50_ms,
                "p99_ms": p99_ms,
                "markers": markers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        p50_ms = d.pop("p50_ms")

        p99_ms = d.pop("p99_ms")

        markers = d.pop("markers")

        latency_figures = cls(
            p50_ms=p50_ms,
            p99_ms=p99_ms,
            markers=markers,
        )

        latency_figures.additional_properties = d
        return latency_figures

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
