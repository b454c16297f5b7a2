from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="NodeSplitLag")


@_attrs_define
class NodeSplitLag:
    """What one split of a source has left to read, as the source's system counts it; null where it cannot say.

    Attributes:
        split (str): The split: a file and byte range, a stream, a stream/group/consumer, a topic/partition, a
            replication slot.
        records_behind (int | None): Records after the position: Kafka's end offset minus it, a Redis stream's entries
            after the last id read (a consumer group: its lag), a Parquet split's rows left.
        bytes_behind (int | None): Bytes after the position: a file split's unread bytes, PostgreSQL's WAL from the
            position read to the current LSN.
        pending (int | None): Read but not covered by a completed checkpoint, as the system keeps it: a Redis consumer's
            pending entries, the WAL bytes behind a PostgreSQL slot's confirmed LSN.
        subtask (int): The subtask holding the split.
    """

    split: str
    records_behind: int | None
    bytes_behind: int | None
    pending: int | None
    subtask: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        split = self.split

        records_behind: int | None
        records_behind = self.records_behind

        bytes_behind: int | None
        bytes_behind = self.bytes_behind

        pending: int | None
        pending = self.pending

        subtask = self.subtask

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "split": split,
                "records_behind": records_behind,
                "bytes_behind": bytes_behind,
                "pending": pending,
                "subtask": subtask,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        split = d.pop("split")

        def _parse_records_behind(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        records_behind = _parse_records_behind(d.pop("records_behind"))

        def _parse_bytes_behind(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        bytes_behind = _parse_bytes_behind(d.pop("bytes_behind"))

        def _parse_pending(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        pending = _parse_pending(d.pop("pending"))

        subtask = d.pop("subtask")

        node_split_lag = cls(
            split=split,
            records_behind=records_behind,
            bytes_behind=bytes_behind,
            pending=pending,
            subtask=subtask,
        )

        node_split_lag.additional_properties = d
        return node_split_lag

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
