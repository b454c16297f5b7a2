from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.subtask_latency_sources import SubtaskLatencySources


T = TypeVar("T", bound="SubtaskLatency")


@_attrs_define
class SubtaskLatency:
    """Source-to-here latency at one subtask's operator, pooled over its sources and per source subtask.

    Attributes:
        p50_ms (float):
        p99_ms (float):
        markers (int): Markers recorded since the subtask started.
        max_ms (float):
        sources (SubtaskLatencySources): Per source subtask ("node#i").
    """

    p50_ms: float
    p99_ms: float
    markers: int
    max_ms: float
    sources: SubtaskLatencySources
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        p50_ms = self.p50_ms

        p99_ms = self.p99_ms

        markers = self.markers

        max_ms = self.max_ms

        sources = self.sources.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "p50_ms": p50_ms,
                "p99_ms": p99_ms,
                "markers": markers,
                "max_ms": max_ms,
                "sources": sources,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.subtask_latency_sources import SubtaskLatencySources  # noqa: PLC0415

        d = dict(src_dict)
        p50_ms = d.pop("p50_ms")

        p99_ms = d.pop("p99_ms")

        markers = d.pop("markers")

        max_ms = d.pop("max_ms")

        sources = SubtaskLatencySources.from_dict(d.pop("sources"))

        subtask_latency = cls(
            p50_ms=p50_ms,
            p99_ms=p99_ms,
            markers=markers,
            max_ms=max_ms,
            sources=sources,
        )

        subtask_latency.additional_properties = d
        return subtask_latency

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
