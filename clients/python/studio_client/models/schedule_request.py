from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScheduleRequest")


@_attrs_define
class ScheduleRequest:
    """
    Attributes:
        pipeline (int | None | Unset): Every RUNNING run of this pipeline (give this or run).
        run (int | None | Unset): This run only (give this or pipeline).
        interval_s (int | None | Unset): Seconds between savepoints (give this or cron).
        cron (str | Unset): A cron expression, UTC, e.g. '*/15 * * * *' (give this or interval_s).
        retain (int | Unset): How many of its completed savepoints to keep (default 3).
        enabled (bool | Unset):
    """

    pipeline: int | None | Unset = UNSET
    run: int | None | Unset = UNSET
    interval_s: int | None | Unset = UNSET
    cron: str | Unset = UNSET
    retain: int | Unset = UNSET
    enabled: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pipeline: int | None | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        else:
            pipeline = self.pipeline

        run: int | None | Unset
        if isinstance(self.run, Unset):
            run = UNSET
        else:
            run = self.run

        interval_s: int | None | Unset
        if isinstance(self.interval_s, Unset):
            interval_s = UNSET
        else:
            interval_s = self.interval_s

        cron = self.cron

        retain = self.retain

        enabled = self.enabled

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if run is not UNSET:
            field_dict["run"] = run
        if interval_s is not UNSET:
            field_dict["interval_s"] = interval_s
        if cron is not UNSET:
            field_dict["cron"] = cron
        if retain is not UNSET:
            field_dict["retain"] = retain
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_pipeline(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

        def _parse_run(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        run = _parse_run(d.pop("run", UNSET))

        def _parse_interval_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        interval_s = _parse_interval_s(d.pop("interval_s", UNSET))

        cron = d.pop("cron", UNSET)

        retain = d.pop("retain", UNSET)

        enabled = d.pop("enabled", UNSET)

        schedule_request = cls(
            pipeline=pipeline,
            run=run,
            interval_s=interval_s,
            cron=cron,
            retain=retain,
            enabled=enabled,
        )

        schedule_request.additional_properties = d
        return schedule_request

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
