from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SavepointTriggerRequest")


@_attrs_define
class SavepointTriggerRequest:
    """
    Attributes:
        target_directory (None | str | Unset): Where to write the savepoint; the run's default if empty.
    """

    target_directory: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        target_directory: None | str | Unset
        if isinstance(self.target_directory, Unset):
            target_directory = UNSET
        else:
            target_directory = self.target_directory

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if target_directory is not UNSET:
            field_dict["target_directory"] = target_directory

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_target_directory(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        target_directory = _parse_target_directory(d.pop("target_directory", UNSET))

        savepoint_trigger_request = cls(
            target_directory=target_directory,
        )

        savepoint_trigger_request.additional_properties = d
        return savepoint_trigger_request

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
