from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.metrics_sample_vertices import MetricsSampleVertices


T = TypeVar("T", bound="MetricsSample")


@_attrs_define
class MetricsSample:
    """
    Attributes:
        ts (int):
        seq (int):
        vertices (MetricsSampleVertices):
    """

    ts: int
    seq: int
    vertices: MetricsSampleVertices
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ts = self.ts

        seq = self.seq

        vertices = self.vertices.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ts": ts,
                "seq": seq,
                "vertices": vertices,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.metrics_sample_vertices import MetricsSampleVertices  # noqa: PLC0415

        d = dict(src_dict)
        ts = d.pop("ts")

        seq = d.pop("seq")

        vertices = MetricsSampleVertices.from_dict(d.pop("vertices"))

        metrics_sample = cls(
            ts=ts,
            seq=seq,
            vertices=vertices,
        )

        metrics_sample.additional_properties = d
        return metrics_sample

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
