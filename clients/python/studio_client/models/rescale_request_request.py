from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rescale_request_request_nodes import RescaleRequestRequestNodes


T = TypeVar("T", bound="RescaleRequestRequest")


@_attrs_define
class RescaleRequestRequest:
    """
    Attributes:
        parallelism (int | Unset): The job's new parallelism (nodes that followed it move along).
        nodes (RescaleRequestRequestNodes | Unset): New parallelism per node id.
    """

    parallelism: int | Unset = UNSET
    nodes: RescaleRequestRequestNodes | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        parallelism = self.parallelism

        nodes: dict[str, Any] | Unset = UNSET
        if not isinstance(self.nodes, Unset):
            nodes = self.nodes.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism
        if nodes is not UNSET:
            field_dict["nodes"] = nodes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rescale_request_request_nodes import RescaleRequestRequestNodes  # noqa: PLC0415

        d = dict(src_dict)
        parallelism = d.pop("parallelism", UNSET)

        _nodes = d.pop("nodes", UNSET)
        nodes: RescaleRequestRequestNodes | Unset
        if isinstance(_nodes, Unset):
            nodes = UNSET
        else:
            nodes = RescaleRequestRequestNodes.from_dict(_nodes)

        rescale_request_request = cls(
            parallelism=parallelism,
            nodes=nodes,
        )

        rescale_request_request.additional_properties = d
        return rescale_request_request

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
