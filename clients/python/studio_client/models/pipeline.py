from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.pipeline_permissions_enum import PipelinePermissionsEnum
from ..models.pipeline_role_enum import PipelineRoleEnum

if TYPE_CHECKING:
    from ..models.pipeline_definition import PipelineDefinition


T = TypeVar("T", bound="Pipeline")


@_attrs_define
class Pipeline:
    """``isolated``: its runs get a driver and Spark application of their own instead of the studio's
    shared session (``studio.runs.placement``; runs with Python code always do).

        Attributes:
            id (int):
            name (str):
            version (int):
            definition (PipelineDefinition):
            owner (None | str): Who created it (who owns it while no team does).
            team (int | None): The team that owns it, if one does.
            team_name (None | str):
            permissions (list[PipelinePermissionsEnum]):
            role (None | PipelineRoleEnum): Your role on it (viewer, editor, operator, admin): from the team that owns it or
                a team it is shared with; admin when it is yours alone; null when only a group share, or nothing, gives you
                access.
            role_team (None | str): The team your role comes from (null: none does).
            isolated (bool): Run in a driver and Spark application of its own instead of the studio's shared session (runs
                with Python code always are).
            created_at (datetime.datetime):
            updated_at (datetime.datetime):
    """

    id: int
    name: str
    version: int
    definition: PipelineDefinition
    owner: None | str
    team: int | None
    team_name: None | str
    permissions: list[PipelinePermissionsEnum]
    role: None | PipelineRoleEnum
    role_team: None | str
    isolated: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        version = self.version

        definition = self.definition.to_dict()

        owner: None | str
        owner = self.owner

        team: int | None
        team = self.team

        team_name: None | str
        team_name = self.team_name

        permissions = []
        for permissions_item_data in self.permissions:
            permissions_item = permissions_item_data.value
            permissions.append(permissions_item)

        role: None | str
        if isinstance(self.role, PipelineRoleEnum):
            role = self.role.value
        else:
            role = self.role

        role_team: None | str
        role_team = self.role_team

        isolated = self.isolated

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "version": version,
                "definition": definition,
                "owner": owner,
                "team": team,
                "team_name": team_name,
                "permissions": permissions,
                "role": role,
                "role_team": role_team,
                "isolated": isolated,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pipeline_definition import PipelineDefinition  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        version = d.pop("version")

        definition = PipelineDefinition.from_dict(d.pop("definition"))

        def _parse_owner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        owner = _parse_owner(d.pop("owner"))

        def _parse_team(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        team = _parse_team(d.pop("team"))

        def _parse_team_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        team_name = _parse_team_name(d.pop("team_name"))

        permissions = []
        _permissions = d.pop("permissions")
        for permissions_item_data in _permissions:
            permissions_item = PipelinePermissionsEnum(permissions_item_data)

            permissions.append(permissions_item)

        def _parse_role(data: object) -> None | PipelineRoleEnum:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_1 = PipelineRoleEnum(data)

                return role_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PipelineRoleEnum, data)

        role = _parse_role(d.pop("role"))

        def _parse_role_team(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        role_team = _parse_role_team(d.pop("role_team"))

        isolated = d.pop("isolated")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        pipeline = cls(
            id=id,
            name=name,
            version=version,
            definition=definition,
            owner=owner,
            team=team,
            team_name=team_name,
            permissions=permissions,
            role=role,
            role_team=role_team,
            isolated=isolated,
            created_at=created_at,
            updated_at=updated_at,
        )

        pipeline.additional_properties = d
        return pipeline

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
