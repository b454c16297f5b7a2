from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionLatencyTracking")


@_attrs_define
class DefinitionLatencyTracking:
    """Latency markers from the sources to the sinks (engine.runtime.latency_stats): one per source subtask every
    interval_ms; 0 is off.

        Attributes:
            interval_ms (int | Unset):
    """

    interval_ms: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        interval_ms = self.interval_ms

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if interval_ms is not UNSET:
            field_dict["interval_ms"] = interval_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        interval_ms = d.pop("interval_ms", UNSET)

        definition_latency_tracking = cls(
            interval_ms=interval_ms,
        )

        return definition_latency_tracking
