from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Secret")


@_attrs_define
class Secret:
    """
    Attributes:
        id (int):
        name (str): Unique among your secrets (or the team's).
        reference (str): What a definition or a parameter holds to use it (a team's secret: in the team's pipelines,
            where the team's wins over a member's own of the same name).
        team_name (None | str):
        can_change (bool): Whether you may replace or delete it: its owner while no team owns it, else an admin of the
            team.
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        description (str | Unset):
        team (int | None | Unset): The team that owns it (chosen when it is made, as one of the team's admins); absent
            or null: you do. The team's editors and up use it in the team's pipelines; only its admins replace or delete it.
    """

    id: int
    name: str
    reference: str
    team_name: None | str
    can_change: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime
    description: str | Unset = UNSET
    team: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        reference = self.reference

        team_name: None | str
        team_name = self.team_name

        can_change = self.can_change

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
                "reference": reference,
                "team_name": team_name,
                "can_change": can_change,
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
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        reference = d.pop("reference")

        def _parse_team_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        team_name = _parse_team_name(d.pop("team_name"))

        can_change = d.pop("can_change")

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

        secret = cls(
            id=id,
            name=name,
            reference=reference,
            team_name=team_name,
            can_change=can_change,
            created_at=created_at,
            updated_at=updated_at,
            description=description,
            team=team,
        )

        secret.additional_properties = d
        return secret

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
