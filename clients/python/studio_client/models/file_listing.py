from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.file_entry import FileEntry


T = TypeVar("T", bound="FileListing")


@_attrs_define
class FileListing:
    """
    Attributes:
        location (str):
        directory (str): Relative to the location's root ('' for the root).
        path (str): The directory's absolute path.
        exists (bool):
        entries (list[FileEntry]):
        truncated (bool):
    """

    location: str
    directory: str
    path: str
    exists: bool
    entries: list[FileEntry]
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        location = self.location

        directory = self.directory

        path = self.path

        exists = self.exists

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "location": location,
                "directory": directory,
                "path": path,
                "exists": exists,
                "entries": entries,
                "truncated": truncated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.file_entry import FileEntry  # noqa: PLC0415

        d = dict(src_dict)
        location = d.pop("location")

        directory = d.pop("directory")

        path = d.pop("path")

        exists = d.pop("exists")

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = FileEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        truncated = d.pop("truncated")

        file_listing = cls(
            location=location,
            directory=directory,
            path=path,
            exists=exists,
            entries=entries,
            truncated=truncated,
        )

        file_listing.additional_properties = d
        return file_listing

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
