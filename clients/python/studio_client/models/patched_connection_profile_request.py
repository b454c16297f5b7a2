from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.connection_kind_enum import ConnectionKindEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchedConnectionProfileRequest")


@_attrs_define
class PatchedConnectionProfileRequest:
    """
    Attributes:
        name (str | Unset): Unique among your profiles; nodes name it connection:<name>.
        kind (ConnectionKindEnum | Unset): * `kafka` - Kafka cluster (host:port,host:port)
            * `postgres` - PostgreSQL database (postgresql://user@host:port/database)
            * `redis` - Redis server (redis://host:port/db)
        address (str | Unset): Kafka: host:port,host:port; Redis: redis://host:port/db; PostgreSQL:
            postgresql://user@host:port/database. A password in it is kept apart, like `password`.
        password (str | Unset): Kept encrypted and never shown; empty removes it, absent keeps it.
        description (str | Unset):
        team (int | None | Unset): The team that owns it (chosen when it is made, as one of the team's admins); absent
            or null: you do.
    """

    name: str | Unset = UNSET
    kind: ConnectionKindEnum | Unset = UNSET
    address: str | Unset = UNSET
    password: str | Unset = UNSET
    description: str | Unset = UNSET
    team: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        address = self.address

        password = self.password

        description = self.description

        team: int | None | Unset
        if isinstance(self.team, Unset):
            team = UNSET
        else:
            team = self.team

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if kind is not UNSET:
            field_dict["kind"] = kind
        if address is not UNSET:
            field_dict["address"] = address
        if password is not UNSET:
            field_dict["password"] = password
        if description is not UNSET:
            field_dict["description"] = description
        if team is not UNSET:
            field_dict["team"] = team

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        _kind = d.pop("kind", UNSET)
        kind: ConnectionKindEnum | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = ConnectionKindEnum(_kind)

        address = d.pop("address", UNSET)

        password = d.pop("password", UNSET)

        description = d.pop("description", UNSET)

        def _parse_team(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        team = _parse_team(d.pop("team", UNSET))

        patched_connection_profile_request = cls(
            name=name,
            kind=kind,
            address=address,
            password=password,
            description=description,
            team=team,
        )

        patched_connection_profile_request.additional_properties = d
        return patched_connection_profile_request

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
