from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionDebloat")


@_attrs_define
class DefinitionDebloat:
    """
    Attributes:
        enabled (bool | Unset):
        target_ms (int | Unset):
        period_ms (int | Unset):
        samples (int | Unset):
        min_buffer_records (int | Unset):
        max_buffer_records (int | Unset):
        threshold_percent (float | Unset):
    """

    enabled: bool | Unset = UNSET
    target_ms: int | Unset = UNSET
    period_ms: int | Unset = UNSET
    samples: int | Unset = UNSET
    min_buffer_records: int | Unset = UNSET
    max_buffer_records: int | Unset = UNSET
    threshold_percent: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        target_ms = self.target_ms

        period_ms = self.period_ms

        samples = self.samples

        min_buffer_records = self.min_buffer_records

        max_buffer_records = self.max_buffer_records

        threshold_percent = self.threshold_percent

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if target_ms is not UNSET:
            field_dict["target_ms"] = target_ms
        if period_ms is not UNSET:
            field_dict["period_ms"] = period_ms
        if samples is not UNSET:
            field_dict["samples"] = samples
        if min_buffer_records is not UNSET:
            field_dict["min_buffer_records"] = min_buffer_records
        if max_buffer_records is not UNSET:
            field_dict["max_buffer_records"] = max_buffer_records
        if threshold_percent is not UNSET:
            field_dict["threshold_percent"] = threshold_percent

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled", UNSET)

        target_ms = d.pop("target_ms", UNSET)

        period_ms = d.pop("period_ms", UNSET)

        samples = d.pop("samples", UNSET)

        min_buffer_records = d.pop("min_buffer_records", UNSET)

        max_buffer_records = d.pop("max_buffer_records", UNSET)

        threshold_percent = d.pop("threshold_percent", UNSET)

        definition_debloat = cls(
            enabled=enabled,
            target_ms=target_ms,
            period_ms=period_ms,
            samples=samples,
            min_buffer_records=min_buffer_records,
            max_buffer_records=max_buffer_records,
            threshold_percent=threshold_percent,
        )

        return definition_debloat
