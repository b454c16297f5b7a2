from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.alert_kind_enum import AlertKindEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="AlertRule")


@_attrs_define
class AlertRule:
    """
    Attributes:
        id (int):
        pipeline (int): The pipeline whose runs it watches.
        name (str):
        kind (AlertKindEnum): * `checkpoint_failures` - checkpoints failed in a row (threshold: how many)
            * `checkpoint_duration` - a checkpoint took longer than threshold ms
            * `backpressure` - a vertex backpressured over threshold (0..1) for duration_s seconds
            * `run_failed` - a run failed
            * `run_restarted` - a run restarted (failover)
            * `violation_rate` - an expectation's violations over threshold (0..1) of the records it checked (vertex: a node
            or edge id, or any)
        created_by (None | str):
        created_at (datetime.datetime):
        threshold (float | None | Unset): How many failures; ms; or a ratio 0..1 (backpressure, violation rate).
        duration_s (int | None | Unset): Backpressure: for how long (default 0: one sample).
        vertex (str | Unset):
        webhook_url (str | Unset): An http(s) URL to POST each firing to as JSON (optional).
        enabled (bool | Unset):
    """

    id: int
    pipeline: int
    name: str
    kind: AlertKindEnum
    created_by: None | str
    created_at: datetime.datetime
    threshold: float | None | Unset = UNSET
    duration_s: int | None | Unset = UNSET
    vertex: str | Unset = UNSET
    webhook_url: str | Unset = UNSET
    enabled: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        pipeline = self.pipeline

        name = self.name

        kind = self.kind.value

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

        threshold: float | None | Unset
        if isinstance(self.threshold, Unset):
            threshold = UNSET
        else:
            threshold = self.threshold

        duration_s: int | None | Unset
        if isinstance(self.duration_s, Unset):
            duration_s = UNSET
        else:
            duration_s = self.duration_s

        vertex = self.vertex

        webhook_url = self.webhook_url

        enabled = self.enabled

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pipeline": pipeline,
                "name": name,
                "kind": kind,
                "created_by": created_by,
                "created_at": created_at,
            }
        )
        if threshold is not UNSET:
            field_dict["threshold"] = threshold
        if duration_s is not UNSET:
            field_dict["duration_s"] = duration_s
        if vertex is not UNSET:
            field_dict["vertex"] = vertex
        if webhook_url is not UNSET:
            field_dict["webhook_url"] = webhook_url
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        pipeline = d.pop("pipeline")

        name = d.pop("name")

        kind = AlertKindEnum(d.pop("kind"))

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_threshold(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        threshold = _parse_threshold(d.pop("threshold", UNSET))

        def _parse_duration_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        duration_s = _parse_duration_s(d.pop("duration_s", UNSET))

        vertex = d.pop("vertex", UNSET)

        webhook_url = d.pop("webhook_url", UNSET)

        enabled = d.pop("enabled", UNSET)

        alert_rule = cls(
            id=id,
            pipeline=pipeline,
            name=name,
            kind=kind,
            created_by=created_by,
            created_at=created_at,
            threshold=threshold,
            duration_s=duration_s,
            vertex=vertex,
            webhook_url=webhook_url,
            enabled=enabled,
        )

        alert_rule.additional_properties = d
        return alert_rule

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
