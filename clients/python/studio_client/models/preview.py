from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.preview_nodes import PreviewNodes


T = TypeVar("T", bound="Preview")


@_attrs_define
class Preview:
    """
    Attributes:
        environment (None | str): The environment whose parameters the preview ran with (null: none, the definition as
            written).
        status (str):
        nodes (PreviewNodes):
        failure (None | str | Unset):
    """

    environment: None | str
    status: str
    nodes: PreviewNodes
    failure: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        environment: None | str
        environment = self.environment

        status = self.status

        nodes = self.nodes.to_dict()

        failure: None | str | Unset
        if isinstance(self.failure, Unset):
            failure = UNSET
        else:
            failure = self.failure

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "environment": environment,
                "status": status,
                "nodes": nodes,
            }
        )
        if failure is not UNSET:
            field_dict["failure"] = failure

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.preview_nodes import PreviewNodes  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_environment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        environment = _parse_environment(d.pop("environment"))

        status = d.pop("status")

        nodes = PreviewNodes.from_dict(d.pop("nodes"))

        def _parse_failure(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure = _parse_failure(d.pop("failure", UNSET))

        preview = cls(
            environment=environment,
            status=status,
            nodes=nodes,
            failure=failure,
        )

        preview.additional_properties = d
        return preview

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
