from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SubtaskCheckpoint")


@_attrs_define
class SubtaskCheckpoint:
    """A subtask's part of the latest completed checkpoint (its whole chain's state).

    Attributes:
        id (int | None):
        state_size (int | None): bytes
        processed_data (int | None): bytes
        persisted_data (int | None): bytes
        sync_duration (float | None): ms
        async_duration (float | None): ms
        alignment_duration (float | None): ms
    """

    id: int | None
    state_size: int | None
    processed_data: int | None
    persisted_data: int | None
    sync_duration: float | None
    async_duration: float | None
    alignment_duration: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id: int | None
        id = self.id

        state_size: int | None
        state_size = self.state_size

        processed_data: int | None
        processed_data = self.processed_data

        persisted_data: int | None
        persisted_data = self.persisted_data

        sync_duration: float | None
        sync_duration = self.sync_duration

        async_duration: float | None
        async_duration = self.async_duration

        alignment_duration: float | None
        alignment_duration = self.alignment_duration

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "state_size": state_size,
                "processed_data": processed_data,
                "persisted_data": persisted_data,
                "sync_duration": sync_duration,
                "async_duration": async_duration,
                "alignment_duration": alignment_duration,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        id = _parse_id(d.pop("id"))

        def _parse_state_size(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        state_size = _parse_state_size(d.pop("state_size"))

        def _parse_processed_data(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        processed_data = _parse_processed_data(d.pop("processed_data"))

        def _parse_persisted_data(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        persisted_data = _parse_persisted_data(d.pop("persisted_data"))

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

        def _parse_alignment_duration(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        alignment_duration = _parse_alignment_duration(d.pop("alignment_duration"))

        subtask_checkpoint = cls(
            id=id,
            state_size=state_size,
            processed_data=processed_data,
            persisted_data=persisted_data,
            sync_duration=sync_duration,
            async_duration=async_duration,
            alignment_duration=alignment_duration,
        )

        subtask_checkpoint.additional_properties = d
        return subtask_checkpoint

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
