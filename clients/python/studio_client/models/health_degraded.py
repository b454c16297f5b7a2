from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.health_degraded_status_enum import HealthDegradedStatusEnum

if TYPE_CHECKING:
    from ..models.health_degraded_dependencies import HealthDegradedDependencies


T = TypeVar("T", bound="HealthDegraded")


@_attrs_define
class HealthDegraded:
    """
    Attributes:
        status (HealthDegradedStatusEnum): * `degraded` - degraded
        dependencies (HealthDegradedDependencies):
    """

    status: HealthDegradedStatusEnum
    dependencies: HealthDegradedDependencies
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        dependencies = self.dependencies.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "dependencies": dependencies,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.health_degraded_dependencies import HealthDegradedDependencies  # noqa: PLC0415

        d = dict(src_dict)
        status = HealthDegradedStatusEnum(d.pop("status"))

        dependencies = HealthDegradedDependencies.from_dict(d.pop("dependencies"))

        health_degraded = cls(
            status=status,
            dependencies=dependencies,
        )

        health_degraded.additional_properties = d
        return health_degraded

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
