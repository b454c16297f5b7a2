from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StateRow")


@_attrs_define
class StateRow:
    """
    Attributes:
        key (Any): The key (list state: [state name, subtask, position]).
        key_json (str): The key's canonical JSON: what ``key?key=`` takes.
        key_group (int): -1 for list state and enumerators.
        subtask (int):
        state (Any):
        bytes_ (int):
    """

    key: Any
    key_json: str
    key_group: int
    subtask: int
    state: Any
    bytes_: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        key_json = self.key_json

        key_group = self.key_group

        subtask = self.subtask

        state = self.state

        bytes_ = self.bytes_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "key_json": key_json,
                "key_group": key_group,
                "subtask": subtask,
                "state": state,
                "bytes": bytes_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        key_json = d.pop("key_json")

        key_group = d.pop("key_group")

        subtask = d.pop("subtask")

        state = d.pop("state")

        bytes_ = d.pop("bytes")

        state_row = cls(
            key=key,
            key_json=key_json,
            key_group=key_group,
            subtask=subtask,
            state=state,
            bytes_=bytes_,
        )

        state_row.additional_properties = d
        return state_row

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
