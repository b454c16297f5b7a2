from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RestoredCheckpoint")


@_attrs_define
class RestoredCheckpoint:
    """
    Attributes:
        id (int | None):
        pk (int | None):
        external_path (str):
        is_savepoint (bool | None):
        restore_timestamp (int):
    """

    id: int | None
    pk: int | None
    external_path: str
    is_savepoint: bool | None
    restore_timestamp: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id: int | None
        id = self.id

        pk: int | None
        pk = self.pk

        external_path = self.external_path

        is_savepoint: bool | None
        is_savepoint = self.is_savepoint

        restore_timestamp = self.restore_timestamp

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pk": pk,
                "external_path": external_path,
                "is_savepoint": is_savepoint,
                "restore_timestamp": restore_timestamp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        id = _parse_id(d.pop("id"))

        def _parse_pk(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        pk = _parse_pk(d.pop("pk"))

        external_path = d.pop("external_path")

        def _parse_is_savepoint(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        is_savepoint = _parse_is_savepoint(d.pop("is_savepoint"))

        restore_timestamp = d.pop("restore_timestamp")

        restored_checkpoint = cls(
            id=id,
            pk=pk,
            external_path=external_path,
            is_savepoint=is_savepoint,
            restore_timestamp=restore_timestamp,
        )

        restored_checkpoint.additional_properties = d
        return restored_checkpoint

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
