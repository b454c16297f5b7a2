from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.metrics_expectations import MetricsExpectations
    from ..models.metrics_nodes import MetricsNodes
    from ..models.metrics_sample import MetricsSample
    from ..models.metrics_vertices import MetricsVertices


T = TypeVar("T", bound="Metrics")


@_attrs_define
class Metrics:
    """
    Attributes:
        vertices (MetricsVertices):
        nodes (MetricsNodes): Per node (operator) of the pipeline, from each operator's own counters; empty before the
            first report.
        samples (list[MetricsSample]):
        expectations (MetricsExpectations | Unset): Per checked node ("node:<id>") or edge ("edge:<id>"): the counts of
            its expectations.
    """

    vertices: MetricsVertices
    nodes: MetricsNodes
    samples: list[MetricsSample]
    expectations: MetricsExpectations | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        vertices = self.vertices.to_dict()

        nodes = self.nodes.to_dict()

        samples = []
        for samples_item_data in self.samples:
            samples_item = samples_item_data.to_dict()
            samples.append(samples_item)

        expectations: dict[str, Any] | Unset = UNSET
        if not isinstance(self.expectations, Unset):
            expectations = self.expectations.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "vertices": vertices,
                "nodes": nodes,
                "samples": samples,
            }
        )
        if expectations is not UNSET:
            field_dict["expectations"] = expectations

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.metrics_expectations import MetricsExpectations  # noqa: PLC0415
        from ..models.metrics_nodes import MetricsNodes  # noqa: PLC0415
        from ..models.metrics_sample import MetricsSample  # noqa: PLC0415
        from ..models.metrics_vertices import MetricsVertices  # noqa: PLC0415

        d = dict(src_dict)
        vertices = MetricsVertices.from_dict(d.pop("vertices"))

        nodes = MetricsNodes.from_dict(d.pop("nodes"))

        samples = []
        _samples = d.pop("samples")
        for samples_item_data in _samples:
            samples_item = MetricsSample.from_dict(samples_item_data)

            samples.append(samples_item)

        _expectations = d.pop("expectations", UNSET)
        expectations: MetricsExpectations | Unset
        if isinstance(_expectations, Unset):
            expectations = UNSET
        else:
            expectations = MetricsExpectations.from_dict(_expectations)

        metrics = cls(
            vertices=vertices,
            nodes=nodes,
            samples=samples,
            expectations=expectations,
        )

        metrics.additional_properties = d
        return metrics

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
