from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchedSecretRequest")


@_attrs_define
class PatchedSecretRequest:
    """
    Attributes:
        name (str | Unset): Unique among your secrets (or the team's).
        value (str | Unset): Kept encrypted and never shown again; required when creating, absent keeps it.
        description (str | Unset):
        team (int | None | Unset): The team that owns it (chosen when it is made, as one of the team's admins); absent
            or null: you do. The team's editors and up use it in the team's pipelines; only its admins replace or delete it.
    """

    name: str | Unset = UNSET
    value: str | Unset = UNSET
    description: str | Unset = UNSET
    team: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        value = self.value

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
        if value is not UNSET:
            field_dict["value"] = value
        if description is not UNSET:
            field_dict["description"] = description
        if team is not UNSET:
            field_dict["team"] = team

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        value = d.pop("value", UNSET)

        description = d.pop("description", UNSET)

        def _parse_team(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        team = _parse_team(d.pop("team", UNSET))

        patched_secret_request = cls(
            name=name,
            value=value,
            description=description,
            team=team,
        )

        patched_secret_request.additional_properties = d
        return patched_secret_request

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
