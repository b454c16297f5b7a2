from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.team_role_enum import TeamRoleEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.patched_environment_request_parameters import PatchedEnvironmentRequestParameters


T = TypeVar("T", bound="PatchedEnvironmentRequest")


@_attrs_define
class PatchedEnvironmentRequest:
    """
    Attributes:
        name (str | Unset): Unique among your environments (dev, prod).
        position (int | Unset): Orders your environments: a version is promoted from one into the next.
        description (str | Unset):
        parameters (PatchedEnvironmentRequestParameters | Unset): The values a definition's ${param:name} take here:
            strings, numbers or booleans; a string may name your secrets as ${secret:name}.
        requires_approval (bool | Unset): A promotion into it waits for an approver, and only a promoted version runs in
            it.
        approval_role (TeamRoleEnum | Unset): * `viewer` - Viewer
            * `editor` - Editor
            * `operator` - Operator
            * `admin` - Admin
        team (int | None | Unset): The team that owns it (chosen when it is made, as one of the team's admins); absent
            or null: you do. A team's environment is used with the team's pipelines by its editors and up.
    """

    name: str | Unset = UNSET
    position: int | Unset = UNSET
    description: str | Unset = UNSET
    parameters: PatchedEnvironmentRequestParameters | Unset = UNSET
    requires_approval: bool | Unset = UNSET
    approval_role: TeamRoleEnum | Unset = UNSET
    team: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

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
        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
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
        from ..models.patched_environment_request_parameters import PatchedEnvironmentRequestParameters  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name", UNSET)

        position = d.pop("position", UNSET)

        description = d.pop("description", UNSET)

        _parameters = d.pop("parameters", UNSET)
        parameters: PatchedEnvironmentRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = PatchedEnvironmentRequestParameters.from_dict(_parameters)

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

        patched_environment_request = cls(
            name=name,
            position=position,
            description=description,
            parameters=parameters,
            requires_approval=requires_approval,
            approval_role=approval_role,
            team=team,
        )

        patched_environment_request.additional_properties = d
        return patched_environment_request

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
