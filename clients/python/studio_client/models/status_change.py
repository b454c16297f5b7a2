from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_status_value_enum import RunStatusValueEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="StatusChange")


@_attrs_define
class StatusChange:
    """
    Attributes:
        status (RunStatusValueEnum): * `CREATED` - CREATED
            * `SCHEDULING` - SCHEDULING
            * `RUNNING` - RUNNING
            * `FINISHING` - FINISHING
            * `FINISHED` - FINISHED
            * `CANCELING` - CANCELING
            * `CANCELED` - CANCELED
            * `FAILING` - FAILING
            * `FAILED` - FAILED
            * `RESTARTING` - RESTARTING
        ts (int): epoch milliseconds
        cause (str | Unset):
    """

    status: RunStatusValueEnum
    ts: int
    cause: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        ts = self.ts

        cause = self.cause

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "ts": ts,
            }
        )
        if cause is not UNSET:
            field_dict["cause"] = cause

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = RunStatusValueEnum(d.pop("status"))

        ts = d.pop("ts")

        cause = d.pop("cause", UNSET)

        status_change = cls(
            status=status,
            ts=ts,
            cause=cause,
        )

        status_change.additional_properties = d
        return status_change

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
