from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.team_role_enum import TeamRoleEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemberRequest")


@_attrs_define
class MemberRequest:
    """
    Attributes:
        username (str): The member's user name.
        role (TeamRoleEnum | Unset): * `viewer` - Viewer
            * `editor` - Editor
            * `operator` - Operator
            * `admin` - Admin Default: TeamRoleEnum.VIEWER.
    """

    username: str
    role: TeamRoleEnum | Unset = TeamRoleEnum.VIEWER
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        username = self.username

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "username": username,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        username = d.pop("username")

        _role = d.pop("role", UNSET)
        role: TeamRoleEnum | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = TeamRoleEnum(_role)

        member_request = cls(
            username=username,
            role=role,
        )

        member_request.additional_properties = d
        return member_request

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
