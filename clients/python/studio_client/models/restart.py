from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Restart")


@_attrs_define
class Restart:
    """
    Attributes:
        seq (int):
        ts (int): epoch milliseconds
        cause (None | str):
        regions (list[str]):
        delay_ms (int | None):
    """

    seq: int
    ts: int
    cause: None | str
    regions: list[str]
    delay_ms: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        ts = self.ts

        cause: None | str
        cause = self.cause

        regions = self.regions

        delay_ms: int | None
        delay_ms = self.delay_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "seq": seq,
                "ts": ts,
                "cause": cause,
                "regions": regions,
                "delay_ms": delay_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        seq = d.pop("seq")

        ts = d.pop("ts")

        def _parse_cause(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cause = _parse_cause(d.pop("cause"))

        regions = cast(list[str], d.pop("regions"))

        def _parse_delay_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        delay_ms = _parse_delay_ms(d.pop("delay_ms"))

        restart = cls(
            seq=seq,
            ts=ts,
            cause=cause,
            regions=regions,
            delay_ms=delay_ms,
        )

        restart.additional_properties = d
        return restart

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
