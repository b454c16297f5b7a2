from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PromotedVersion")


@_attrs_define
class PromotedVersion:
    """
    Attributes:
        pipeline (int):
        pipeline_name (str):
        version (int):
        promotion (int | None):
        updated_at (datetime.datetime):
    """

    pipeline: int
    pipeline_name: str
    version: int
    promotion: int | None
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pipeline = self.pipeline

        pipeline_name = self.pipeline_name

        version = self.version

        promotion: int | None
        promotion = self.promotion

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pipeline": pipeline,
                "pipeline_name": pipeline_name,
                "version": version,
                "promotion": promotion,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        pipeline = d.pop("pipeline")

        pipeline_name = d.pop("pipeline_name")

        version = d.pop("version")

        def _parse_promotion(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        promotion = _parse_promotion(d.pop("promotion"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        promoted_version = cls(
            pipeline=pipeline,
            pipeline_name=pipeline_name,
            version=version,
            promotion=promotion,
            updated_at=updated_at,
        )

        promoted_version.additional_properties = d
        return promoted_version

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
