from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.connection_kind_enum import ConnectionKindEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.connection_profile_shares_item import ConnectionProfileSharesItem


T = TypeVar("T", bound="ConnectionProfile")


@_attrs_define
class ConnectionProfile:
    """
    Attributes:
        id (int):
        name (str): Unique among your profiles; nodes name it connection:<name>.
        kind (ConnectionKindEnum): * `kafka` - Kafka cluster (host:port,host:port)
            * `postgres` - PostgreSQL database (postgresql://user@host:port/database)
            * `redis` - Redis server (redis://host:port/db)
        address (str): Kafka: host:port,host:port; Redis: redis://host:port/db; PostgreSQL:
            postgresql://user@host:port/database. A password in it is kept apart, like `password`.
        has_password (bool): Whether a password is kept.
        owner (str):
        team_name (None | str):
        mine (bool): Whether you may change, share and delete it: its owner while no team owns it, else an admin of the
            team.
        reference (str): What a node's address parameter holds to use it.
        granted (bool): Whether your location grants cover its address now (checked again whenever it is used).
        grant_message (str): Why not, when not.
        shares (list[ConnectionProfileSharesItem]): Whom it is shared with (the owner sees them; others get an empty
            list).
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        description (str | Unset):
        team (int | None | Unset): The team that owns it (chosen when it is made, as one of the team's admins); absent
            or null: you do.
    """

    id: int
    name: str
    kind: ConnectionKindEnum
    address: str
    has_password: bool
    owner: str
    team_name: None | str
    mine: bool
    reference: str
    granted: bool
    grant_message: str
    shares: list[ConnectionProfileSharesItem]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    description: str | Unset = UNSET
    team: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        kind = self.kind.value

        address = self.address

        has_password = self.has_password

        owner = self.owner

        team_name: None | str
        team_name = self.team_name

        mine = self.mine

        reference = self.reference

        granted = self.granted

        grant_message = self.grant_message

        shares = []
        for shares_item_data in self.shares:
            shares_item = shares_item_data.to_dict()
            shares.append(shares_item)

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        description = self.description

        team: int | None | Unset
        if isinstance(self.team, Unset):
            team = UNSET
        else:
            team = self.team

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "kind": kind,
                "address": address,
                "has_password": has_password,
                "owner": owner,
                "team_name": team_name,
                "mine": mine,
                "reference": reference,
                "granted": granted,
                "grant_message": grant_message,
                "shares": shares,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if team is not UNSET:
            field_dict["team"] = team

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connection_profile_shares_item import ConnectionProfileSharesItem  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        kind = ConnectionKindEnum(d.pop("kind"))

        address = d.pop("address")

        has_password = d.pop("has_password")

        owner = d.pop("owner")

        def _parse_team_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        team_name = _parse_team_name(d.pop("team_name"))

        mine = d.pop("mine")

        reference = d.pop("reference")

        granted = d.pop("granted")

        grant_message = d.pop("grant_message")

        shares = []
        _shares = d.pop("shares")
        for shares_item_data in _shares:
            shares_item = ConnectionProfileSharesItem.from_dict(shares_item_data)

            shares.append(shares_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        description = d.pop("description", UNSET)

        def _parse_team(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        team = _parse_team(d.pop("team", UNSET))

        connection_profile = cls(
            id=id,
            name=name,
            kind=kind,
            address=address,
            has_password=has_password,
            owner=owner,
            team_name=team_name,
            mine=mine,
            reference=reference,
            granted=granted,
            grant_message=grant_message,
            shares=shares,
            created_at=created_at,
            updated_at=updated_at,
            description=description,
            team=team,
        )

        connection_profile.additional_properties = d
        return connection_profile

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
