from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.checkpoint_summary import CheckpointSummary


T = TypeVar("T", bound="TimelineBucket")


@_attrs_define
class TimelineBucket:
    """
    Attributes:
        start (int): The bucket's first moment (epoch ms of trigger time).
        completed (int):
        failed (int):
        unaligned (int):
        first_id (int | None):
        last_id (int | None):
        summary (CheckpointSummary):
        summary_exact (bool):
    """

    start: int
    completed: int
    failed: int
    unaligned: int
    first_id: int | None
    last_id: int | None
    summary: CheckpointSummary
    summary_exact: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        start = self.start

        completed = self.completed

        failed = self.failed

        unaligned = self.unaligned

        first_id: int | None
        first_id = self.first_id

        last_id: int | None
        last_id = self.last_id

        summary = self.summary.to_dict()

        summary_exact = self.summary_exact

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "start": start,
                "completed": completed,
                "failed": failed,
                "unaligned": unaligned,
                "first_id": first_id,
                "last_id": last_id,
                "summary": summary,
                "summary_exact": summary_exact,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_summary import CheckpointSummary  # noqa: PLC0415

        d = dict(src_dict)
        start = d.pop("start")

        completed = d.pop("completed")

        failed = d.pop("failed")

        unaligned = d.pop("unaligned")

        def _parse_first_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        first_id = _parse_first_id(d.pop("first_id"))

        def _parse_last_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_id = _parse_last_id(d.pop("last_id"))

        summary = CheckpointSummary.from_dict(d.pop("summary"))

        summary_exact = d.pop("summary_exact")

        timeline_bucket = cls(
            start=start,
            completed=completed,
            failed=failed,
            unaligned=unaligned,
            first_id=first_id,
            last_id=last_id,
            summary=summary,
            summary_exact=summary_exact,
        )

        timeline_bucket.additional_properties = d
        return timeline_bucket

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
