from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sink_counts import SinkCounts
    from ..models.sink_samples import SinkSamples


T = TypeVar("T", bound="SinkDiff")


@_attrs_define
class SinkDiff:
    """
    Attributes:
        node (str):
        type_ (str): The sink's type in the definition (it wrote JSON lines in the sandbox).
        keyed (bool):
        key (None | str): What rows are compared by, when keyed.
        in_production (bool):
        in_candidate (bool):
        counts (SinkCounts):
        samples (SinkSamples):
    """

    node: str
    type_: str
    keyed: bool
    key: None | str
    in_production: bool
    in_candidate: bool
    counts: SinkCounts
    samples: SinkSamples
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        type_ = self.type_

        keyed = self.keyed

        key: None | str
        key = self.key

        in_production = self.in_production

        in_candidate = self.in_candidate

        counts = self.counts.to_dict()

        samples = self.samples.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "type": type_,
                "keyed": keyed,
                "key": key,
                "in_production": in_production,
                "in_candidate": in_candidate,
                "counts": counts,
                "samples": samples,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sink_counts import SinkCounts  # noqa: PLC0415
        from ..models.sink_samples import SinkSamples  # noqa: PLC0415

        d = dict(src_dict)
        node = d.pop("node")

        type_ = d.pop("type")

        keyed = d.pop("keyed")

        def _parse_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        key = _parse_key(d.pop("key"))

        in_production = d.pop("in_production")

        in_candidate = d.pop("in_candidate")

        counts = SinkCounts.from_dict(d.pop("counts"))

        samples = SinkSamples.from_dict(d.pop("samples"))

        sink_diff = cls(
            node=node,
            type_=type_,
            keyed=keyed,
            key=key,
            in_production=in_production,
            in_candidate=in_candidate,
            counts=counts,
            samples=samples,
        )

        sink_diff.additional_properties = d
        return sink_diff

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
