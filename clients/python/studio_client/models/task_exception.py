from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TaskException")


@_attrs_define
class TaskException:
    """
    Attributes:
        seq (int):
        ts (int): epoch milliseconds
        task (None | str): "vertex#subtask"; null when a whole slot was lost
        vertex (None | str):
        subtask (int | None):
        operator (None | str): The node the error came from, when known.
        region (None | str):
        attempt (int | None):
        message (str):
        record (None | str): The record an expression failed on, as JSON cut at 500 characters; null when no record is
            known.
        traceback (None | str):
    """

    seq: int
    ts: int
    task: None | str
    vertex: None | str
    subtask: int | None
    operator: None | str
    region: None | str
    attempt: int | None
    message: str
    record: None | str
    traceback: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        ts = self.ts

        task: None | str
        task = self.task

        vertex: None | str
        vertex = self.vertex

        subtask: int | None
        subtask = self.subtask

        operator: None | str
        operator = self.operator

        region: None | str
        region = self.region

        attempt: int | None
        attempt = self.attempt

        message = self.message

        record: None | str
        record = self.record

        traceback: None | str
        traceback = self.traceback

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "seq": seq,
                "ts": ts,
                "task": task,
                "vertex": vertex,
                "subtask": subtask,
                "operator": operator,
                "region": region,
                "attempt": attempt,
                "message": message,
                "record": record,
                "traceback": traceback,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        seq = d.pop("seq")

        ts = d.pop("ts")

        def _parse_task(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        task = _parse_task(d.pop("task"))

        def _parse_vertex(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vertex = _parse_vertex(d.pop("vertex"))

        def _parse_subtask(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        subtask = _parse_subtask(d.pop("subtask"))

        def _parse_operator(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        operator = _parse_operator(d.pop("operator"))

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        def _parse_attempt(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        attempt = _parse_attempt(d.pop("attempt"))

        message = d.pop("message")

        def _parse_record(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        record = _parse_record(d.pop("record"))

        def _parse_traceback(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        traceback = _parse_traceback(d.pop("traceback"))

        task_exception = cls(
            seq=seq,
            ts=ts,
            task=task,
            vertex=vertex,
            subtask=subtask,
            operator=operator,
            region=region,
            attempt=attempt,
            message=message,
            record=record,
            traceback=traceback,
        )

        task_exception.additional_properties = d
        return task_exception

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
