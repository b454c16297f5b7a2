from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.plan_region_vertices import PlanRegionVertices


T = TypeVar("T", bound="PlanRegion")


@_attrs_define
class PlanRegion:
    """
    Attributes:
        id (str):
        vertices (PlanRegionVertices):
        job_vertices (list[str]):
        depends_on (Any):
        size (int):
    """

    id: str
    vertices: PlanRegionVertices
    job_vertices: list[str]
    depends_on: Any
    size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        vertices = self.vertices.to_dict()

        job_vertices = self.job_vertices

        depends_on = self.depends_on

        size = self.size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "vertices": vertices,
                "job_vertices": job_vertices,
                "depends_on": depends_on,
                "size": size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_region_vertices import PlanRegionVertices  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        vertices = PlanRegionVertices.from_dict(d.pop("vertices"))

        job_vertices = cast(list[str], d.pop("job_vertices"))

        depends_on = d.pop("depends_on")

        size = d.pop("size")

        plan_region = cls(
            id=id,
            vertices=vertices,
            job_vertices=job_vertices,
            depends_on=depends_on,
            size=size,
        )

        plan_region.additional_properties = d
        return plan_region

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
