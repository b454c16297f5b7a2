from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FilePlace")


@_attrs_define
class FilePlace:
    """
    Attributes:
        name (str): The storage location's name.
        root (str): Its directory (for you: {user} filled in).
        writable (bool): Whether you may upload into it.
        description (str):
        exists (bool): Whether the directory exists yet (an upload creates it).
    """

    name: str
    root: str
    writable: bool
    description: str
    exists: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        root = self.root

        writable = self.writable

        description = self.description

        exists = self.exists

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "root": root,
                "writable": writable,
                "description": description,
                "exists": exists,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        root = d.pop("root")

        writable = d.pop("writable")

        description = d.pop("description")

        exists = d.pop("exists")

        file_place = cls(
            name=name,
            root=root,
            writable=writable,
            description=description,
            exists=exists,
        )

        file_place.additional_properties = d
        return file_place

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
