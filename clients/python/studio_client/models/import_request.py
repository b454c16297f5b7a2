from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition import Definition


T = TypeVar("T", bound="ImportRequest")


@_attrs_define
class ImportRequest:
    """
    Attributes:
        definition (Definition): A pipeline definition (format 1); see GET /api/operators for node types and the JSON
            Schema of each one's params.
        name (str | Unset):
        team (int | None | Unset): A new pipeline: the team that owns it (you must be at least its editor); omitted: you
            do.
        message (str | Unset):  Default: 'Imported'.
    """

    definition: Definition
    name: str | Unset = UNSET
    team: int | None | Unset = UNSET
    message: str | Unset = "Imported"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition.to_dict()

        name = self.name

        team: int | None | Unset
        if isinstance(self.team, Unset):
            team = UNSET
        else:
            team = self.team

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "definition": definition,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if team is not UNSET:
            field_dict["team"] = team
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition import Definition  # noqa: PLC0415

        d = dict(src_dict)
        definition = Definition.from_dict(d.pop("definition"))

        name = d.pop("name", UNSET)

        def _parse_team(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        team = _parse_team(d.pop("team", UNSET))

        message = d.pop("message", UNSET)

        import_request = cls(
            definition=definition,
            name=name,
            team=team,
            message=message,
        )

        import_request.additional_properties = d
        return import_request

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
