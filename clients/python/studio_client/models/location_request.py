from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.location_kind_enum import LocationKindEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="LocationRequest")


@_attrs_define
class LocationRequest:
    """
    Attributes:
        name (str):
        kind (LocationKindEnum): * `path` - Path
            * `url` - Url
            * `redis` - Redis
            * `postgres` - Postgres
            * `kafka` - Kafka
        prefix (str):
        description (str | Unset):
        shared (bool | Unset): Several pipelines may write into the same target.
        all_users (bool | Unset): Granted (read and write) to every user.
    """

    name: str
    kind: LocationKindEnum
    prefix: str
    description: str | Unset = UNSET
    shared: bool | Unset = UNSET
    all_users: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        kind = self.kind.value

        prefix = self.prefix

        description = self.description

        shared = self.shared

        all_users = self.all_users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "kind": kind,
                "prefix": prefix,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if shared is not UNSET:
            field_dict["shared"] = shared
        if all_users is not UNSET:
            field_dict["all_users"] = all_users

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        kind = LocationKindEnum(d.pop("kind"))

        prefix = d.pop("prefix")

        description = d.pop("description", UNSET)

        shared = d.pop("shared", UNSET)

        all_users = d.pop("all_users", UNSET)

        location_request = cls(
            name=name,
            kind=kind,
            prefix=prefix,
            description=description,
            shared=shared,
            all_users=all_users,
        )

        location_request.additional_properties = d
        return location_request

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
