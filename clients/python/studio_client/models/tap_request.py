from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TapRequest")


@_attrs_define
class TapRequest:
    """
    Attributes:
        edge (str): The id of an edge of the run's pipeline.
        records_per_second (int | Unset): Records a second at most (default 20).
        bytes_per_second (int | Unset): Bytes of record JSON a second at most (default 32 KiB).
        max_record_bytes (int | Unset): A record's JSON beyond this is cut (default 1 KiB).
    """

    edge: str
    records_per_second: int | Unset = UNSET
    bytes_per_second: int | Unset = UNSET
    max_record_bytes: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        edge = self.edge

        records_per_second = self.records_per_second

        bytes_per_second = self.bytes_per_second

        max_record_bytes = self.max_record_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "edge": edge,
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
        edge = d.pop("edge")

        records_per_second = d.pop("records_per_second", UNSET)

        bytes_per_second = d.pop("bytes_per_second", UNSET)

        max_record_bytes = d.pop("max_record_bytes", UNSET)

        tap_request = cls(
            edge=edge,
            records_per_second=records_per_second,
            bytes_per_second=bytes_per_second,
            max_record_bytes=max_record_bytes,
        )

        tap_request.additional_properties = d
        return tap_request

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
