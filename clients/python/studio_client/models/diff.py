from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.items_diff import ItemsDiff
    from ..models.settings_diff import SettingsDiff


T = TypeVar("T", bound="Diff")


@_attrs_define
class Diff:
    """
    Attributes:
        from_ (int | None): null for a draft or nothing
        to (int | None):
        nodes (ItemsDiff):
        edges (ItemsDiff):
        settings (SettingsDiff):
    """

    from_: int | None
    to: int | None
    nodes: ItemsDiff
    edges: ItemsDiff
    settings: SettingsDiff
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_: int | None
        from_ = self.from_

        to: int | None
        to = self.to

        nodes = self.nodes.to_dict()

        edges = self.edges.to_dict()

        settings = self.settings.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "to": to,
                "nodes": nodes,
                "edges": edges,
                "settings": settings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.items_diff import ItemsDiff  # noqa: PLC0415
        from ..models.settings_diff import SettingsDiff  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_from_(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        from_ = _parse_from_(d.pop("from"))

        def _parse_to(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        to = _parse_to(d.pop("to"))

        nodes = ItemsDiff.from_dict(d.pop("nodes"))

        edges = ItemsDiff.from_dict(d.pop("edges"))

        settings = SettingsDiff.from_dict(d.pop("settings"))

        diff = cls(
            from_=from_,
            to=to,
            nodes=nodes,
            edges=edges,
            settings=settings,
        )

        diff.additional_properties = d
        return diff

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
