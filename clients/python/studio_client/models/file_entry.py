from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.file_entry_kind_enum import FileEntryKindEnum

T = TypeVar("T", bound="FileEntry")


@_attrs_define
class FileEntry:
    """
    Attributes:
        name (str):
        kind (FileEntryKindEnum): * `directory` - directory
            * `file` - file
            * `link` - link
            * `other` - other
        size (int | None):
        modified (int): Epoch milliseconds.
        data (bool): Whether a file source reads it (names starting with . or _ are not).
        path (str): The absolute path a source node names.
    """

    name: str
    kind: FileEntryKindEnum
    size: int | None
    modified: int
    data: bool
    path: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        kind = self.kind.value

        size: int | None
        size = self.size

        modified = self.modified

        data = self.data

        path = self.path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "kind": kind,
                "size": size,
                "modified": modified,
                "data": data,
                "path": path,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        kind = FileEntryKindEnum(d.pop("kind"))

        def _parse_size(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        size = _parse_size(d.pop("size"))

        modified = d.pop("modified")

        data = d.pop("data")

        path = d.pop("path")

        file_entry = cls(
            name=name,
            kind=kind,
            size=size,
            modified=modified,
            data=data,
            path=path,
        )

        file_entry.additional_properties = d
        return file_entry

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
