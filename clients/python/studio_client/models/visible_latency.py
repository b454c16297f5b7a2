from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="VisibleLatency")


@_attrs_define
class VisibleLatency:
    """How long a sink subtask's records waited for their commit, weighed by records, over its latest commits.

    Attributes:
        p50_ms (float):
        p99_ms (float):
        max_ms (float):
        records (int): Records committed since the subtask started.
        commits (int): Commits of those records since the subtask started.
    """

    p50_ms: float
    p99_ms: float
    max_ms: float
    records: int
    commits: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        p50_ms = self.p50_ms

        p99_ms = self.p99_ms

        max_ms = self.max_ms

        records = self.records

        commits = self.commits

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "p50_ms": p50_ms,
                "p99_ms": p99_ms,
                "max_ms": max_ms,
                "records": records,
                "commits": commits,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        p50_ms = d.pop("p50_ms")

        p99_ms = d.pop("p99_ms")

        max_ms = d.pop("max_ms")

        records = d.pop("records")

        commits = d.pop("commits")

        visible_latency = cls(
            p50_ms=p50_ms,
            p99_ms=p99_ms,
            max_ms=max_ms,
            records=records,
            commits=commits,
        )

        visible_latency.additional_properties = d
        return visible_latency

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
