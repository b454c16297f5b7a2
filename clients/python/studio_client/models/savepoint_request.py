from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.savepoint_status_enum import SavepointStatusEnum
from ..models.savepoint_trigger_enum import SavepointTriggerEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="SavepointRequest")


@_attrs_define
class SavepointRequest:
    """
    Attributes:
        request_id (str):
        run (int):
        location (None | str):
        checkpoint_id (int | None):
        checkpoint_pk (int | None):
        acknowledged_subtasks (int | None): Subtasks that acknowledged the savepoint so far (null before the engine
            triggered it).
        total_subtasks (int | None): Subtasks that take part in the savepoint.
        discarded (bool): Its files were deleted (by a user): it can no longer be restored. Default: False.
        target_directory (None | str):
        kind (str | Unset):
        status (SavepointStatusEnum | Unset): * `IN_PROGRESS` - In Progress
            * `COMPLETED` - Completed
            * `FAILED` - Failed
        failure_cause (None | str | Unset):
        drain (bool | None | Unset):
        trigger (SavepointTriggerEnum | Unset): * `manual` - Manual
            * `scheduled` - Scheduled
            * `stop` - Stop
        schedule (int | None | Unset):
        triggered_at (datetime.datetime | Unset):
        completed_at (datetime.datetime | None | Unset):
    """

    request_id: str
    run: int
    location: None | str
    checkpoint_id: int | None
    checkpoint_pk: int | None
    acknowledged_subtasks: int | None
    total_subtasks: int | None
    target_directory: None | str
    discarded: bool = False
    kind: str | Unset = UNSET
    status: SavepointStatusEnum | Unset = UNSET
    failure_cause: None | str | Unset = UNSET
    drain: bool | None | Unset = UNSET
    trigger: SavepointTriggerEnum | Unset = UNSET
    schedule: int | None | Unset = UNSET
    triggered_at: datetime.datetime | Unset = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        run = self.run

        location: None | str
        location = self.location

        checkpoint_id: int | None
        checkpoint_id = self.checkpoint_id

        checkpoint_pk: int | None
        checkpoint_pk = self.checkpoint_pk

        acknowledged_subtasks: int | None
        acknowledged_subtasks = self.acknowledged_subtasks

        total_subtasks: int | None
        total_subtasks = self.total_subtasks

        discarded = self.discarded

        target_directory: None | str
        target_directory = self.target_directory

        kind = self.kind

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        failure_cause: None | str | Unset
        if isinstance(self.failure_cause, Unset):
            failure_cause = UNSET
        else:
            failure_cause = self.failure_cause

        drain: bool | None | Unset
        if isinstance(self.drain, Unset):
            drain = UNSET
        else:
            drain = self.drain

        trigger: str | Unset = UNSET
        if not isinstance(self.trigger, Unset):
            trigger = self.trigger.value

        schedule: int | None | Unset
        if isinstance(self.schedule, Unset):
            schedule = UNSET
        else:
            schedule = self.schedule

        triggered_at: str | Unset = UNSET
        if not isinstance(self.triggered_at, Unset):
            triggered_at = self.triggered_at.isoformat()

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "request_id": request_id,
                "run": run,
                "location": location,
                "checkpoint_id": checkpoint_id,
                "checkpoint_pk": checkpoint_pk,
                "acknowledged_subtasks": acknowledged_subtasks,
                "total_subtasks": total_subtasks,
                "discarded": discarded,
                "target_directory": target_directory,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if status is not UNSET:
            field_dict["status"] = status
        if failure_cause is not UNSET:
            field_dict["failure_cause"] = failure_cause
        if drain is not UNSET:
            field_dict["drain"] = drain
        if trigger is not UNSET:
            field_dict["trigger"] = trigger
        if schedule is not UNSET:
            field_dict["schedule"] = schedule
        if triggered_at is not UNSET:
            field_dict["triggered_at"] = triggered_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        request_id = d.pop("request_id")

        run = d.pop("run")

        def _parse_location(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        location = _parse_location(d.pop("location"))

        def _parse_checkpoint_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        checkpoint_id = _parse_checkpoint_id(d.pop("checkpoint_id"))

        def _parse_checkpoint_pk(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        checkpoint_pk = _parse_checkpoint_pk(d.pop("checkpoint_pk"))

        def _parse_acknowledged_subtasks(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        acknowledged_subtasks = _parse_acknowledged_subtasks(d.pop("acknowledged_subtasks"))

        def _parse_total_subtasks(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        total_subtasks = _parse_total_subtasks(d.pop("total_subtasks"))

        discarded = d.pop("discarded")

        def _parse_target_directory(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        target_directory = _parse_target_directory(d.pop("target_directory"))

        kind = d.pop("kind", UNSET)

        _status = d.pop("status", UNSET)
        status: SavepointStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = SavepointStatusEnum(_status)

        def _parse_failure_cause(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_cause = _parse_failure_cause(d.pop("failure_cause", UNSET))

        def _parse_drain(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        drain = _parse_drain(d.pop("drain", UNSET))

        _trigger = d.pop("trigger", UNSET)
        trigger: SavepointTriggerEnum | Unset
        if isinstance(_trigger, Unset):
            trigger = UNSET
        else:
            trigger = SavepointTriggerEnum(_trigger)

        def _parse_schedule(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        schedule = _parse_schedule(d.pop("schedule", UNSET))

        _triggered_at = d.pop("triggered_at", UNSET)
        triggered_at: datetime.datetime | Unset
        if isinstance(_triggered_at, Unset):
            triggered_at = UNSET
        else:
            triggered_at = datetime.datetime.fromisoformat(_triggered_at)

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        savepoint_request = cls(
            request_id=request_id,
            run=run,
            location=location,
            checkpoint_id=checkpoint_id,
            checkpoint_pk=checkpoint_pk,
            acknowledged_subtasks=acknowledged_subtasks,
            total_subtasks=total_subtasks,
            discarded=discarded,
            target_directory=target_directory,
            kind=kind,
            status=status,
            failure_cause=failure_cause,
            drain=drain,
            trigger=trigger,
            schedule=schedule,
            triggered_at=triggered_at,
            completed_at=completed_at,
        )

        savepoint_request.additional_properties = d
        return savepoint_request

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
