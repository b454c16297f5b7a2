from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SubtaskStats")


@_attrs_define
class SubtaskStats:
    """
    Attributes:
        index (int):
        status (str):
        ack_timestamp (int | None):
        end_to_end_duration (int | None):
        start_delay (float | None):
        alignment_duration (float | None):
        sync_duration (float | None):
        async_duration (float | None):
        state_size (int | None):
        persisted_data (int | None | Unset): Bytes of in-flight data this subtask persisted.
        unaligned (bool | None | Unset): Taken on its first barrier (unaligned) or aligned.
    """

    index: int
    status: str
    ack_timestamp: int | None
    end_to_end_duration: int | None
    start_delay: float | None
    alignment_duration: float | None
    sync_duration: float | None
    async_duration: float | None
    state_size: int | None
    persisted_data: int | None | Unset = UNSET
    unaligned: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        status = self.status

        ack_timestamp: int | None
        ack_timestamp = self.ack_timestamp

        end_to_end_duration: int | None
        end_to_end_duration = self.end_to_end_duration

        start_delay: float | None
        start_delay = self.start_delay

        alignment_duration: float | None
        alignment_duration = self.alignment_duration

        sync_duration: float | None
        sync_duration = self.sync_duration

        async_duration: float | None
        async_duration = self.async_duration

        state_size: int | None
        state_size = self.state_size

        persisted_data: int | None | Unset
        if isinstance(self.persisted_data, Unset):
            persisted_data = UNSET
        else:
            persisted_data = self.persisted_data

        unaligned: bool | None | Unset
        if isinstance(self.unaligned, Unset):
            unaligned = UNSET
        else:
            unaligned = self.unaligned

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "status": status,
                "ack_timestamp": ack_timestamp,
                "end_to_end_duration": end_to_end_duration,
                "start_delay": start_delay,
                "alignment_duration": alignment_duration,
                "sync_duration": sync_duration,
                "async_duration": async_duration,
                "state_size": state_size,
            }
        )
        if persisted_data is not UNSET:
            field_dict["persisted_data"] = persisted_data
        if unaligned is not UNSET:
            field_dict["unaligned"] = unaligned

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        status = d.pop("status")

        def _parse_ack_timestamp(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        ack_timestamp = _parse_ack_timestamp(d.pop("ack_timestamp"))

        def _parse_end_to_end_duration(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        end_to_end_duration = _parse_end_to_end_duration(d.pop("end_to_end_duration"))

        def _parse_start_delay(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        start_delay = _parse_start_delay(d.pop("start_delay"))

        def _parse_alignment_duration(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        alignment_duration = _parse_alignment_duration(d.pop("alignment_duration"))

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

        def _parse_state_size(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        state_size = _parse_state_size(d.pop("state_size"))

        def _parse_persisted_data(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        persisted_data = _parse_persisted_data(d.pop("persisted_data", UNSET))

        def _parse_unaligned(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        unaligned = _parse_unaligned(d.pop("unaligned", UNSET))

        subtask_stats = cls(
            index=index,
            status=status,
            ack_timestamp=ack_timestamp,
            end_to_end_duration=end_to_end_duration,
            start_delay=start_delay,
            alignment_duration=alignment_duration,
            sync_duration=sync_duration,
            async_duration=async_duration,
            state_size=state_size,
            persisted_data=persisted_data,
            unaligned=unaligned,
        )

        subtask_stats.additional_properties = d
        return subtask_stats

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
