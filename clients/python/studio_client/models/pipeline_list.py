from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.latest_run import LatestRun


T = TypeVar("T", bound="PipelineList")


@_attrs_define
class PipelineList:
    """``isolated``: its runs get a driver and Spark application of their own instead of the studio's
    shared session (``studio.runs.placement``; runs with Python code always do).

        Attributes:
            id (int):
            name (str):
            version (int):
            owner (None | str): Who created it (who owns it while no team does).
            team (int | None): The team that owns it, if one does.
            team_name (None | str):
            created_at (datetime.datetime):
            updated_at (datetime.datetime):
            latest_run (LatestRun | None):
    """

    id: int
    name: str
    version: int
    owner: None | str
    team: int | None
    team_name: None | str
    created_at: datetime.datetime
    updated_at: datetime.datetime
    latest_run: LatestRun | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.latest_run import LatestRun  # noqa: PLC0415

        id = self.id

        name = self.name

        version = self.version

        owner: None | str
        owner = self.owner

        team: int | None
        team = self.team

        team_name: None | str
        team_name = self.team_name

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        latest_run: dict[str, Any] | None
        if isinstance(self.latest_run, LatestRun):
            latest_run = self.latest_run.to_dict()
        else:
            latest_run = self.latest_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "version": version,
                "owner": owner,
                "team": team,
                "team_name": team_name,
                "created_at": created_at,
                "updated_at": updated_at,
                "latest_run": latest_run,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.latest_run import LatestRun  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        version = d.pop("version")

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

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_latest_run(data: object) -> LatestRun | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                latest_run_type_1 = LatestRun.from_dict(data)

                return latest_run_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LatestRun | None, data)

        latest_run = _parse_latest_run(d.pop("latest_run"))

        pipeline_list = cls(
            id=id,
            name=name,
            version=version,
            owner=owner,
            team=team,
            team_name=team_name,
            created_at=created_at,
            updated_at=updated_at,
            latest_run=latest_run,
        )

        pipeline_list.additional_properties = d
        return pipeline_list

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
