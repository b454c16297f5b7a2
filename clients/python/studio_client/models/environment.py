from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.team_role_enum import TeamRoleEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.environment_parameters import EnvironmentParameters


T = TypeVar("T", bound="Environment")


@_attrs_define
class Environment:
    """
    Attributes:
        id (int):
        name (str): Unique among your environments (dev, prod).
        owner (str): Who made it (a team's environment is the team's, not theirs).
        team_name (None | str):
        mine (bool): Whether it is your own (no team's): you change and use it.
        can_change (bool): Whether you may change or delete it: its owner while no team owns it, else an admin of the
            team.
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        position (int | Unset): Orders your environments: a version is promoted from one into the next.
        description (str | Unset):
        parameters (EnvironmentParameters | Unset): The values a definition's ${param:name} take here: strings, numbers
            or booleans; a string may name your secrets as ${secret:name}.
        requires_approval (bool | Unset): A promotion into it waits for an approver, and only a promoted version runs in
            it.
        approval_role (TeamRoleEnum | Unset): * `viewer` - Viewer
            * `editor` - Editor
            * `operator` - Operator
            * `admin` - Admin
        team (int | None | Unset): The team that owns it (chosen when it is made, as one of the team's admins); absent
            or null: you do. A team's environment is used with the team's pipelines by its editors and up.
    """

    id: int
    name: str
    owner: str
    team_name: None | str
    mine: bool
    can_change: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime
    position: int | Unset = UNSET
    description: str | Unset = UNSET
    parameters: EnvironmentParameters | Unset = UNSET
    requires_approval: bool | Unset = UNSET
    approval_role: TeamRoleEnum | Unset = UNSET
    team: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        owner = self.owner

        team_name: None | str
        team_name = self.team_name

        mine = self.mine

        can_change = self.can_change

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        position = self.position

        description = self.description

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        requires_approval = self.requires_approval

        approval_role: str | Unset = UNSET
        if not isinstance(self.approval_role, Unset):
            approval_role = self.approval_role.value

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
                "owner": owner,
                "team_name": team_name,
                "mine": mine,
                "can_change": can_change,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if position is not UNSET:
            field_dict["position"] = position
        if description is not UNSET:
            field_dict["description"] = description
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if requires_approval is not UNSET:
            field_dict["requires_approval"] = requires_approval
        if approval_role is not UNSET:
            field_dict["approval_role"] = approval_role
        if team is not UNSET:
            field_dict["team"] = team

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.environment_parameters import EnvironmentParameters  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        owner = d.pop("owner")

        def _parse_team_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        team_name = _parse_team_name(d.pop("team_name"))

        mine = d.pop("mine")

        can_change = d.pop("can_change")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        position = d.pop("position", UNSET)

        description = d.pop("description", UNSET)

        _parameters = d.pop("parameters", UNSET)
        parameters: EnvironmentParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = EnvironmentParameters.from_dict(_parameters)

        requires_approval = d.pop("requires_approval", UNSET)

        _approval_role = d.pop("approval_role", UNSET)
        approval_role: TeamRoleEnum | Unset
        if isinstance(_approval_role, Unset):
            approval_role = UNSET
        else:
            approval_role = TeamRoleEnum(_approval_role)

        def _parse_team(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        team = _parse_team(d.pop("team", UNSET))

        environment = cls(
            id=id,
            name=name,
            owner=owner,
            team_name=team_name,
            mine=mine,
            can_change=can_change,
            created_at=created_at,
            updated_at=updated_at,
            position=position,
            description=description,
            parameters=parameters,
            requires_approval=requires_approval,
            approval_role=approval_role,
            team=team,
        )

        environment.additional_properties = d
        return environment

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
