from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.resolution_enum import ResolutionEnum

if TYPE_CHECKING:
    from ..models.timeline_bucket import TimelineBucket


T = TypeVar("T", bound="CheckpointTimeline")


@_attrs_define
class CheckpointTimeline:
    """
    Attributes:
        resolution (ResolutionEnum): * `minute` - minute
            * `hour` - hour
        buckets (list[TimelineBucket]): Newest first.
        next_before (int | None): Pass as before= for the next page.
    """

    resolution: ResolutionEnum
    buckets: list[TimelineBucket]
    next_before: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        resolution = self.resolution.value

        buckets = []
        for buckets_item_data in self.buckets:
            buckets_item = buckets_item_data.to_dict()
            buckets.append(buckets_item)

        next_before: int | None
        next_before = self.next_before

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "resolution": resolution,
                "buckets": buckets,
                "next_before": next_before,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.timeline_bucket import TimelineBucket  # noqa: PLC0415

        d = dict(src_dict)
        resolution = ResolutionEnum(d.pop("resolution"))

        buckets = []
        _buckets = d.pop("buckets")
        for buckets_item_data in _buckets:
            buckets_item = TimelineBucket.from_dict(buckets_item_data)

            buckets.append(buckets_item)

        def _parse_next_before(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_before = _parse_next_before(d.pop("next_before"))

        checkpoint_timeline = cls(
            resolution=resolution,
            buckets=buckets,
            next_before=next_before,
        )

        checkpoint_timeline.additional_properties = d
        return checkpoint_timeline

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
