from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.restore_point_kind_enum import RestorePointKindEnum
from ..models.savepoint_trigger_enum import SavepointTriggerEnum

T = TypeVar("T", bound="RestorePoint")


@_attrs_define
class RestorePoint:
    """A completed checkpoint or savepoint whose files are still there; restore it with ``{"pk": pk}``.

    Attributes:
        pk (int):
        run (int):
        checkpoint_id (int):
        kind (RestorePointKindEnum): * `checkpoint` - checkpoint
            * `savepoint` - savepoint
        trigger (None | SavepointTriggerEnum): Savepoints: who asked for it; null for checkpoints.

            * `manual` - Manual
            * `scheduled` - Scheduled
            * `stop` - Stop
        trigger_timestamp (int):
        completed_timestamp (int): When its last subtask acknowledged it (epoch ms).
        state_size (int): Bytes.
        location (str):
    """

    pk: int
    run: int
    checkpoint_id: int
    kind: RestorePointKindEnum
    trigger: None | SavepointTriggerEnum
    trigger_timestamp: int
    completed_timestamp: int
    state_size: int
    location: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pk = self.pk

        run = self.run

        checkpoint_id = self.checkpoint_id

        kind = self.kind.value

        trigger: None | str
        if isinstance(self.trigger, SavepointTriggerEnum):
            trigger = self.trigger.value
        else:
            trigger = self.trigger

        trigger_timestamp = self.trigger_timestamp

        completed_timestamp = self.completed_timestamp

        state_size = self.state_size

        location = self.location

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pk": pk,
                "run": run,
                "checkpoint_id": checkpoint_id,
                "kind": kind,
                "trigger": trigger,
                "trigger_timestamp": trigger_timestamp,
                "completed_timestamp": completed_timestamp,
                "state_size": state_size,
                "location": location,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        pk = d.pop("pk")

        run = d.pop("run")

        checkpoint_id = d.pop("checkpoint_id")

        kind = RestorePointKindEnum(d.pop("kind"))

        def _parse_trigger(data: object) -> None | SavepointTriggerEnum:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                trigger_type_0 = SavepointTriggerEnum(data)

                return trigger_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SavepointTriggerEnum, data)

        trigger = _parse_trigger(d.pop("trigger"))

        trigger_timestamp = d.pop("trigger_timestamp")

        completed_timestamp = d.pop("completed_timestamp")

        state_size = d.pop("state_size")

        location = d.pop("location")

        restore_point = cls(
            pk=pk,
            run=run,
            checkpoint_id=checkpoint_id,
            kind=kind,
            trigger=trigger,
            trigger_timestamp=trigger_timestamp,
            completed_timestamp=completed_timestamp,
            state_size=state_size,
            location=location,
        )

        restore_point.additional_properties = d
        return restore_point

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
