from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.team_role_enum import TeamRoleEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="Member")


@_attrs_define
class Member:
    """
    Attributes:
        id (int):
        username (str): The member's user name.
        created_at (datetime.datetime):
        role (TeamRoleEnum | Unset): * `viewer` - Viewer
            * `editor` - Editor
            * `operator` - Operator
            * `admin` - Admin Default: TeamRoleEnum.VIEWER.
    """

    id: int
    username: str
    created_at: datetime.datetime
    role: TeamRoleEnum | Unset = TeamRoleEnum.VIEWER
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        username = self.username

        created_at = self.created_at.isoformat()

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "username": username,
                "created_at": created_at,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        username = d.pop("username")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        _role = d.pop("role", UNSET)
        role: TeamRoleEnum | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = TeamRoleEnum(_role)

        member = cls(
            id=id,
            username=username,
            created_at=created_at,
            role=role,
        )

        member.additional_properties = d
        return member

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
