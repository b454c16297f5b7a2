from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.location_kind_enum import LocationKindEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.grant import Grant


T = TypeVar("T", bound="Location")


@_attrs_define
class Location:
    """
    Attributes:
        id (int):
        name (str):
        kind (LocationKindEnum): * `path` - Path
            * `url` - Url
            * `redis` - Redis
            * `postgres` - Postgres
            * `kafka` - Kafka
        prefix (str):
        resolved_prefix (str): The prefix for you ({user} filled in).
        can_write (bool): Whether you may write there.
        grants (list[Grant]): Who may reach it (administrators see them; others get an empty list).
        created_at (datetime.datetime):
        description (str | Unset):
        shared (bool | Unset): Several pipelines may write into the same target.
        all_users (bool | Unset): Granted (read and write) to every user.
    """

    id: int
    name: str
    kind: LocationKindEnum
    prefix: str
    resolved_prefix: str
    can_write: bool
    grants: list[Grant]
    created_at: datetime.datetime
    description: str | Unset = UNSET
    shared: bool | Unset = UNSET
    all_users: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        kind = self.kind.value

        prefix = self.prefix

        resolved_prefix = self.resolved_prefix

        can_write = self.can_write

        grants = []
        for grants_item_data in self.grants:
            grants_item = grants_item_data.to_dict()
            grants.append(grants_item)

        created_at = self.created_at.isoformat()

        description = self.description

        shared = self.shared

        all_users = self.all_users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "kind": kind,
                "prefix": prefix,
                "resolved_prefix": resolved_prefix,
                "can_write": can_write,
                "grants": grants,
                "created_at": created_at,
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
        from ..models.grant import Grant  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        kind = LocationKindEnum(d.pop("kind"))

        prefix = d.pop("prefix")

        resolved_prefix = d.pop("resolved_prefix")

        can_write = d.pop("can_write")

        grants = []
        _grants = d.pop("grants")
        for grants_item_data in _grants:
            grants_item = Grant.from_dict(grants_item_data)

            grants.append(grants_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        description = d.pop("description", UNSET)

        shared = d.pop("shared", UNSET)

        all_users = d.pop("all_users", UNSET)

        location = cls(
            id=id,
            name=name,
            kind=kind,
            prefix=prefix,
            resolved_prefix=resolved_prefix,
            can_write=can_write,
            grants=grants,
            created_at=created_at,
            description=description,
            shared=shared,
            all_users=all_users,
        )

        location.additional_properties = d
        return location

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
