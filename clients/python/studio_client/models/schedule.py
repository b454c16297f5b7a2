from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Schedule")


@_attrs_define
class Schedule:
    """
    Attributes:
        id (int):
        next_due_at (datetime.datetime | None):
        last_triggered_at (datetime.datetime | None):
        last_error (str):
        created_by (None | str):
        created_at (datetime.datetime):
        pipeline (int | None | Unset): Every RUNNING run of this pipeline (give this or run).
        run (int | None | Unset): This run only (give this or pipeline).
        interval_s (int | None | Unset): Seconds between savepoints (give this or cron).
        cron (str | Unset): A cron expression, UTC, e.g. '*/15 * * * *' (give this or interval_s).
        retain (int | Unset): How many of its completed savepoints to keep (default 3).
        enabled (bool | Unset):
    """

    id: int
    next_due_at: datetime.datetime | None
    last_triggered_at: datetime.datetime | None
    last_error: str
    created_by: None | str
    created_at: datetime.datetime
    pipeline: int | None | Unset = UNSET
    run: int | None | Unset = UNSET
    interval_s: int | None | Unset = UNSET
    cron: str | Unset = UNSET
    retain: int | Unset = UNSET
    enabled: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        next_due_at: None | str
        if isinstance(self.next_due_at, datetime.datetime):
            next_due_at = self.next_due_at.isoformat()
        else:
            next_due_at = self.next_due_at

        last_triggered_at: None | str
        if isinstance(self.last_triggered_at, datetime.datetime):
            last_triggered_at = self.last_triggered_at.isoformat()
        else:
            last_triggered_at = self.last_triggered_at

        last_error = self.last_error

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

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
        field_dict.update(
            {
                "id": id,
                "next_due_at": next_due_at,
                "last_triggered_at": last_triggered_at,
                "last_error": last_error,
                "created_by": created_by,
                "created_at": created_at,
            }
        )
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
        id = d.pop("id")

        def _parse_next_due_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_due_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_due_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_due_at = _parse_next_due_at(d.pop("next_due_at"))

        def _parse_last_triggered_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_triggered_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_triggered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_triggered_at = _parse_last_triggered_at(d.pop("last_triggered_at"))

        last_error = d.pop("last_error")

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

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

        schedule = cls(
            id=id,
            next_due_at=next_due_at,
            last_triggered_at=last_triggered_at,
            last_error=last_error,
            created_by=created_by,
            created_at=created_at,
            pipeline=pipeline,
            run=run,
            interval_s=interval_s,
            cron=cron,
            retain=retain,
            enabled=enabled,
        )

        schedule.additional_properties = d
        return schedule

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
