from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.team_share_role_enum import TeamShareRoleEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="TeamShareRequest")


@_attrs_define
class TeamShareRequest:
    """
    Attributes:
        team (str): The name of one of your teams.
        role (TeamShareRoleEnum | Unset): * `viewer` - Viewer
            * `editor` - Editor
            * `operator` - Operator Default: TeamShareRoleEnum.VIEWER.
    """

    team: str
    role: TeamShareRoleEnum | Unset = TeamShareRoleEnum.VIEWER
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        team = self.team

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "team": team,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        team = d.pop("team")

        _role = d.pop("role", UNSET)
        role: TeamShareRoleEnum | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = TeamShareRoleEnum(_role)

        team_share_request = cls(
            team=team,
            role=role,
        )

        team_share_request.additional_properties = d
        return team_share_request

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
