from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.state_enum import StateEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="Tap")


@_attrs_define
class Tap:
    """
    Attributes:
        tap_id (str):
        run (int):
        edge (str): The id of an edge of the run's pipeline.
        state (StateEnum): * `waiting` - waiting
            * `open` - open
            * `closed` - closed
        websocket (str): Connect here to receive the samples; closing it closes the tap.
        created_at (datetime.datetime):
        opened_at (datetime.datetime | None):
        closed_at (datetime.datetime | None):
        records_per_second (int | Unset): Records a second at most (default 20).
        bytes_per_second (int | Unset): Bytes of record JSON a second at most (default 32 KiB).
        max_record_bytes (int | Unset): A record's JSON beyond this is cut (default 1 KiB).
    """

    tap_id: str
    run: int
    edge: str
    state: StateEnum
    websocket: str
    created_at: datetime.datetime
    opened_at: datetime.datetime | None
    closed_at: datetime.datetime | None
    records_per_second: int | Unset = UNSET
    bytes_per_second: int | Unset = UNSET
    max_record_bytes: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tap_id = self.tap_id

        run = self.run

        edge = self.edge

        state = self.state.value

        websocket = self.websocket

        created_at = self.created_at.isoformat()

        opened_at: None | str
        if isinstance(self.opened_at, datetime.datetime):
            opened_at = self.opened_at.isoformat()
        else:
            opened_at = self.opened_at

        closed_at: None | str
        if isinstance(self.closed_at, datetime.datetime):
            closed_at = self.closed_at.isoformat()
        else:
            closed_at = self.closed_at

        records_per_second = self.records_per_second

        bytes_per_second = self.bytes_per_second

        max_record_bytes = self.max_record_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tap_id": tap_id,
                "run": run,
                "edge": edge,
                "state": state,
                "websocket": websocket,
                "created_at": created_at,
                "opened_at": opened_at,
                "closed_at": closed_at,
            }
        )
        if records_per_second is not UNSET:
            field_dict["records_per_second"] = records_per_second
        if bytes_per_second is not UNSET:
            field_dict["bytes_per_second"] = bytes_per_second
        if max_record_bytes is not UNSET:
            field_dict["max_record_bytes"] = max_record_bytes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tap_id = d.pop("tap_id")

        run = d.pop("run")

        edge = d.pop("edge")

        state = StateEnum(d.pop("state"))

        websocket = d.pop("websocket")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_opened_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                opened_at_type_0 = datetime.datetime.fromisoformat(data)

                return opened_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        opened_at = _parse_opened_at(d.pop("opened_at"))

        def _parse_closed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                closed_at_type_0 = datetime.datetime.fromisoformat(data)

                return closed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        closed_at = _parse_closed_at(d.pop("closed_at"))

        records_per_second = d.pop("records_per_second", UNSET)

        bytes_per_second = d.pop("bytes_per_second", UNSET)

        max_record_bytes = d.pop("max_record_bytes", UNSET)

        tap = cls(
            tap_id=tap_id,
            run=run,
            edge=edge,
            state=state,
            websocket=websocket,
            created_at=created_at,
            opened_at=opened_at,
            closed_at=closed_at,
            records_per_second=records_per_second,
            bytes_per_second=bytes_per_second,
            max_record_bytes=max_record_bytes,
        )

        tap.additional_properties = d
        return tap

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
