from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.subtask_stats import SubtaskStats


T = TypeVar("T", bound="VertexCheckpoint")


@_attrs_define
class VertexCheckpoint:
    """
    Attributes:
        id (str):
        name (str):
        operators (list[str]):
        num_subtasks (int):
        num_acknowledged_subtasks (int):
        state_size (int):
        latest_ack_timestamp (int | None):
        end_to_end_duration (int | None):
        alignment_duration (float | None):
        start_delay (float | None):
        sync_duration (float | None):
        async_duration (float | None):
        subtasks (list[SubtaskStats]):
    """

    id: str
    name: str
    operators: list[str]
    num_subtasks: int
    num_acknowledged_subtasks: int
    state_size: int
    latest_ack_timestamp: int | None
    end_to_end_duration: int | None
    alignment_duration: float | None
    start_delay: float | None
    sync_duration: float | None
    async_duration: float | None
    subtasks: list[SubtaskStats]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        operators = self.operators

        num_subtasks = self.num_subtasks

        num_acknowledged_subtasks = self.num_acknowledged_subtasks

        state_size = self.state_size

        latest_ack_timestamp: int | None
        latest_ack_timestamp = self.latest_ack_timestamp

        end_to_end_duration: int | None
        end_to_end_duration = self.end_to_end_duration

        alignment_duration: float | None
        alignment_duration = self.alignment_duration

        start_delay: float | None
        start_delay = self.start_delay

        sync_duration: float | None
        sync_duration = self.sync_duration

        async_duration: float | None
        async_duration = self.async_duration

        subtasks = []
        for subtasks_item_data in self.subtasks:
            subtasks_item = subtasks_item_data.to_dict()
            subtasks.append(subtasks_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "operators": operators,
                "num_subtasks": num_subtasks,
                "num_acknowledged_subtasks": num_acknowledged_subtasks,
                "state_size": state_size,
                "latest_ack_timestamp": latest_ack_timestamp,
                "end_to_end_duration": end_to_end_duration,
                "alignment_duration": alignment_duration,
                "start_delay": start_delay,
                "sync_duration": sync_duration,
                "async_duration": async_duration,
                "subtasks": subtasks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.subtask_stats import SubtaskStats  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        operators = cast(list[str], d.pop("operators"))

        num_subtasks = d.pop("num_subtasks")

        num_acknowledged_subtasks = d.pop("num_acknowledged_subtasks")

        state_size = d.pop("state_size")

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

        def _parse_start_delay(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        start_delay = _parse_start_delay(d.pop("start_delay"))

        def _parse_sync_duration(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        sync_duration = _parse_sync_duration(d.pop("sync_duration"))

        def _parse_async_duration(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        async_duration = _parse_async_duration(d.pop("async_duration"))

        subtasks = []
        _subtasks = d.pop("subtasks")
        for subtasks_item_data in _subtasks:
            subtasks_item = SubtaskStats.from_dict(subtasks_item_data)

            subtasks.append(subtasks_item)

        vertex_checkpoint = cls(
            id=id,
            name=name,
            operators=operators,
            num_subtasks=num_subtasks,
            num_acknowledged_subtasks=num_acknowledged_subtasks,
            state_size=state_size,
            latest_ack_timestamp=latest_ack_timestamp,
            end_to_end_duration=end_to_end_duration,
            alignment_duration=alignment_duration,
            start_delay=start_delay,
            sync_duration=sync_duration,
            async_duration=async_duration,
            subtasks=subtasks,
        )

        vertex_checkpoint.additional_properties = d
        return vertex_checkpoint

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
