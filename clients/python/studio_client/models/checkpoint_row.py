from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checkpoint_kind_enum import CheckpointKindEnum
from ..models.checkpoint_status_enum import CheckpointStatusEnum
from ..models.savepoint_trigger_enum import SavepointTriggerEnum

T = TypeVar("T", bound="CheckpointRow")


@_attrs_define
class CheckpointRow:
    """One checkpoint in the history (Flink's field names); ``id`` is the checkpoint id, ``pk`` the row id.

    Attributes:
        id (int):
        pk (int):
        kind (CheckpointKindEnum): * `checkpoint` - checkpoint
            * `savepoint` - savepoint
            * `sync-savepoint` - sync-savepoint
        is_savepoint (bool):
        status (CheckpointStatusEnum): * `IN_PROGRESS` - IN_PROGRESS
            * `COMPLETED` - COMPLETED
            * `FAILED` - FAILED
        trigger_timestamp (int):
        latest_ack_timestamp (int | None):
        end_to_end_duration (int | None):
        alignment_duration (float | None):
        unaligned (bool): Some subtask took it unaligned (on its first barrier).
        persisted_data (int): Bytes of in-flight data (channel state) it persisted.
        state_size (int):
        num_acknowledged_subtasks (int):
        num_subtasks (int):
        external_path (None | str):
        failure_message (None | str):
        discarded (bool):
        trigger (None | SavepointTriggerEnum): Savepoints: who asked for it; null for checkpoints.

            * `manual` - Manual
            * `scheduled` - Scheduled
            * `stop` - Stop
    """

    id: int
    pk: int
    kind: CheckpointKindEnum
    is_savepoint: bool
    status: CheckpointStatusEnum
    trigger_timestamp: int
    latest_ack_timestamp: int | None
    end_to_end_duration: int | None
    alignment_duration: float | None
    unaligned: bool
    persisted_data: int
    state_size: int
    num_acknowledged_subtasks: int
    num_subtasks: int
    external_path: None | str
    failure_message: None | str
    discarded: bool
    trigger: None | SavepointTriggerEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        pk = self.pk

        kind = self.kind.value

        is_savepoint = self.is_savepoint

        status = self.status.value

        trigger_timestamp = self.trigger_timestamp

        latest_ack_timestamp: int | None
        latest_ack_timestamp = self.latest_ack_timestamp

        end_to_end_duration: int | None
        end_to_end_duration = self.end_to_end_duration

        alignment_duration: float | None
        alignment_duration = self.alignment_duration

        unaligned = self.unaligned

        persisted_data = self.persisted_data

        state_size = self.state_size

        num_acknowledged_subtasks = self.num_acknowledged_subtasks

        num_subtasks = self.num_subtasks

        external_path: None | str
        external_path = self.external_path

        failure_message: None | str
        failure_message = self.failure_message

        discarded = self.discarded

        trigger: None | str
        if isinstance(self.trigger, SavepointTriggerEnum):
            trigger = self.trigger.value
        else:
            trigger = self.trigger

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pk": pk,
                "kind": kind,
                "is_savepoint": is_savepoint,
                "status": status,
                "trigger_timestamp": trigger_timestamp,
                "latest_ack_timestamp": latest_ack_timestamp,
                "end_to_end_duration": end_to_end_duration,
                "alignment_duration": alignment_duration,
                "unaligned": unaligned,
                "persisted_data": persisted_data,
                "state_size": state_size,
                "num_acknowledged_subtasks": num_acknowledged_subtasks,
                "num_subtasks": num_subtasks,
                "external_path": external_path,
                "failure_message": failure_message,
                "discarded": discarded,
                "trigger": trigger,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        pk = d.pop("pk")

        kind = CheckpointKindEnum(d.pop("kind"))

        is_savepoint = d.pop("is_savepoint")

        status = CheckpointStatusEnum(d.pop("status"))

        trigger_timestamp = d.pop("trigger_timestamp")

        def _parse_latest_ack_timestamp(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        latest_ack_timestamp = _parse_latest_ack_timestamp(d.pop("latest_ack_timestamp"))

        def _parse_end_to_end_duration(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        end_to_end_duration = _parse_end_to_end_duration(d.pop("end_to_end_duration"))

        def _parse_alignment_duration(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        alignment_duration = _parse_alignment_duration(d.pop("alignment_duration"))

        unaligned = d.pop("unaligned")

        persisted_data = d.pop("persisted_data")

        state_size = d.pop("state_size")

        num_acknowledged_subtasks = d.pop("num_acknowledged_subtasks")

        num_subtasks = d.pop("num_subtasks")

        def _parse_external_path(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        external_path = _parse_external_path(d.pop("external_path"))

        def _parse_failure_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failure_message = _parse_failure_message(d.pop("failure_message"))

        discarded = d.pop("discarded")

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

        checkpoint_row = cls(
            id=id,
            pk=pk,
            kind=kind,
            is_savepoint=is_savepoint,
            status=status,
            trigger_timestamp=trigger_timestamp,
            latest_ack_timestamp=latest_ack_timestamp,
            end_to_end_duration=end_to_end_duration,
            alignment_duration=alignment_duration,
            unaligned=unaligned,
            persisted_data=persisted_data,
            state_size=state_size,
            num_acknowledged_subtasks=num_acknowledged_subtasks,
            num_subtasks=num_subtasks,
            external_path=external_path,
            failure_message=failure_message,
            discarded=discarded,
            trigger=trigger,
        )

        checkpoint_row.additional_properties = d
        return checkpoint_row

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
