from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TeamLocation")


@_attrs_define
class TeamLocation:
    """A storage location granted to a team, as its members see it (an administrator grants it).

    Attributes:
        id (int): The location's id.
        name (str):
        kind (str):
        prefix (str): As configured ({user} stands for each member).
        description (str):
        can_write (bool | Unset):
    """

    id: int
    name: str
    kind: str
    prefix: str
    description: str
    can_write: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        kind = self.kind

        prefix = self.prefix

        description = self.description

        can_write = self.can_write

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "kind": kind,
                "prefix": prefix,
                "description": description,
            }
        )
        if can_write is not UNSET:
            field_dict["can_write"] = can_write

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        kind = d.pop("kind")

        prefix = d.pop("prefix")

        description = d.pop("description")

        can_write = d.pop("can_write", UNSET)

        team_location = cls(
            id=id,
            name=name,
            kind=kind,
            prefix=prefix,
            description=description,
            can_write=can_write,
        )

        team_location.additional_properties = d
        return team_location

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
