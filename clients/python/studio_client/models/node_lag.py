from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.node_split_lag import NodeSplitLag


T = TypeVar("T", bound="NodeLag")


@_attrs_define
class NodeLag:
    """What a source node has left to read: sums over its splits (null when none says the figure), what
    its split enumerator has not handed out, and the splits furthest behind.

        Attributes:
            records_behind (int | None):
            bytes_behind (int | None):
            pending (int | None):
            splits_unassigned (int | None): Splits no subtask took yet (file and Parquet sources).
            bytes_unassigned (int | None): Their bytes (file sources).
            splits_total (int): Splits the subtasks hold.
            splits (list[NodeSplitLag]): The 20 splits furthest behind.
    """

    records_behind: int | None
    bytes_behind: int | None
    pending: int | None
    splits_unassigned: int | None
    bytes_unassigned: int | None
    splits_total: int
    splits: list[NodeSplitLag]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        records_behind: int | None
        records_behind = self.records_behind

        bytes_behind: int | None
        bytes_behind = self.bytes_behind

        pending: int | None
        pending = self.pending

        splits_unassigned: int | None
        splits_unassigned = self.splits_unassigned

        bytes_unassigned: int | None
        bytes_unassigned = self.bytes_unassigned

        splits_total = self.splits_total

        splits = []
        for splits_item_data in self.splits:
            splits_item = splits_item_data.to_dict()
            splits.append(splits_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "records_behind": records_behind,
                "bytes_behind": bytes_behind,
                "pending": pending,
                "splits_unassigned": splits_unassigned,
                "bytes_unassigned": bytes_unassigned,
                "splits_total": splits_total,
                "splits": splits,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_split_lag import NodeSplitLag  # noqa: PLC0415

        d = dict(src_dict)

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

        def _parse_splits_unassigned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        splits_unassigned = _parse_splits_unassigned(d.pop("splits_unassigned"))

        def _parse_bytes_unassigned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        bytes_unassigned = _parse_bytes_unassigned(d.pop("bytes_unassigned"))

        splits_total = d.pop("splits_total")

        splits = []
        _splits = d.pop("splits")
        for splits_item_data in _splits:
            splits_item = NodeSplitLag.from_dict(splits_item_data)

            splits.append(splits_item)

        node_lag = cls(
            records_behind=records_behind,
            bytes_behind=bytes_behind,
            pending=pending,
            splits_unassigned=splits_unassigned,
            bytes_unassigned=bytes_unassigned,
            splits_total=splits_total,
            splits=splits,
        )

        node_lag.additional_properties = d
        return node_lag

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
