from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.plan_counts import PlanCounts
    from ..models.plan_job_edges_item import PlanJobEdgesItem
    from ..models.plan_job_vertex import PlanJobVertex
    from ..models.plan_node_regions import PlanNodeRegions
    from ..models.plan_region import PlanRegion


T = TypeVar("T", bound="Plan")


@_attrs_define
class Plan:
    """The planner's summary (``engine.plan.plan_summary``).

    Attributes:
        job_vertices (list[PlanJobVertex]):
        job_edges (list[PlanJobEdgesItem]):
        regions (list[PlanRegion]):
        node_regions (PlanNodeRegions):
        schedule (list[str]):
        counts (PlanCounts):
    """

    job_vertices: list[PlanJobVertex]
    job_edges: list[PlanJobEdgesItem]
    regions: list[PlanRegion]
    node_regions: PlanNodeRegions
    schedule: list[str]
    counts: PlanCounts
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_vertices = []
        for job_vertices_item_data in self.job_vertices:
            job_vertices_item = job_vertices_item_data.to_dict()
            job_vertices.append(job_vertices_item)

        job_edges = []
        for job_edges_item_data in self.job_edges:
            job_edges_item = job_edges_item_data.to_dict()
            job_edges.append(job_edges_item)

        regions = []
        for regions_item_data in self.regions:
            regions_item = regions_item_data.to_dict()
            regions.append(regions_item)

        node_regions = self.node_regions.to_dict()

        schedule = self.schedule

        counts = self.counts.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_vertices": job_vertices,
                "job_edges": job_edges,
                "regions": regions,
                "node_regions": node_regions,
                "schedule": schedule,
                "counts": counts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_counts import PlanCounts  # noqa: PLC0415
        from ..models.plan_job_edges_item import PlanJobEdgesItem  # noqa: PLC0415
        from ..models.plan_job_vertex import PlanJobVertex  # noqa: PLC0415
        from ..models.plan_node_regions import PlanNodeRegions  # noqa: PLC0415
        from ..models.plan_region import PlanRegion  # noqa: PLC0415

        d = dict(src_dict)
        job_vertices = []
        _job_vertices = d.pop("job_vertices")
        for job_vertices_item_data in _job_vertices:
            job_vertices_item = PlanJobVertex.from_dict(job_vertices_item_data)

            job_vertices.append(job_vertices_item)

        job_edges = []
        _job_edges = d.pop("job_edges")
        for job_edges_item_data in _job_edges:
            job_edges_item = PlanJobEdgesItem.from_dict(job_edges_item_data)

            job_edges.append(job_edges_item)

        regions = []
        _regions = d.pop("regions")
        for regions_item_data in _regions:
            regions_item = PlanRegion.from_dict(regions_item_data)

            regions.append(regions_item)

        node_regions = PlanNodeRegions.from_dict(d.pop("node_regions"))

        schedule = cast(list[str], d.pop("schedule"))

        counts = PlanCounts.from_dict(d.pop("counts"))

        plan = cls(
            job_vertices=job_vertices,
            job_edges=job_edges,
            regions=regions,
            node_regions=node_regions,
            schedule=schedule,
            counts=counts,
        )

        plan.additional_properties = d
        return plan

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
