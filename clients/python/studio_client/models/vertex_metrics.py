from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VertexMetrics")


@_attrs_define
class VertexMetrics:
    """One job vertex's metrics; every field may be missing while the engine has not reported it.

    Attributes:
        records_in (float | Unset):
        records_out (float | Unset):
        records_in_per_second (float | None | Unset):
        records_out_per_second (float | None | Unset):
        busy_ratio (float | None | Unset):
        idle_ratio (float | None | Unset):
        backpressured_ratio (float | None | Unset):
        operators (list[str] | Unset):
        parallelism (int | None | Unset):
    """

    records_in: float | Unset = UNSET
    records_out: float | Unset = UNSET
    records_in_per_second: float | None | Unset = UNSET
    records_out_per_second: float | None | Unset = UNSET
    busy_ratio: float | None | Unset = UNSET
    idle_ratio: float | None | Unset = UNSET
    backpressured_ratio: float | None | Unset = UNSET
    operators: list[str] | Unset = UNSET
    parallelism: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        records_in = self.records_in

        records_out = self.records_out

        records_in_per_second: float | None | Unset
        if isinstance(self.records_in_per_second, Unset):
            records_in_per_second = UNSET
        else:
            records_in_per_second = self.records_in_per_second

        records_out_per_second: float | None | Unset
        if isinstance(self.records_out_per_second, Unset):
            records_out_per_second = UNSET
        else:
            records_out_per_second = self.records_out_per_second

        busy_ratio: float | None | Unset
        if isinstance(self.busy_ratio, Unset):
            busy_ratio = UNSET
        else:
            busy_ratio = self.busy_ratio

        idle_ratio: float | None | Unset
        if isinstance(self.idle_ratio, Unset):
            idle_ratio = UNSET
        else:
            idle_ratio = self.idle_ratio

        backpressured_ratio: float | None | Unset
        if isinstance(self.backpressured_ratio, Unset):
            backpressured_ratio = UNSET
        else:
            backpressured_ratio = self.backpressured_ratio

        operators: list[str] | Unset = UNSET
        if not isinstance(self.operators, Unset):
            operators = self.operators

        parallelism: int | None | Unset
        if isinstance(self.parallelism, Unset):
            parallelism = UNSET
        else:
            parallelism = self.parallelism

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if records_in is not UNSET:
            field_dict["records_in"] = records_in
        if records_out is not UNSET:
            field_dict["records_out"] = records_out
        if records_in_per_second is not UNSET:
            field_dict["records_in_per_second"] = records_in_per_second
        if records_out_per_second is not UNSET:
            field_dict["records_out_per_second"] = records_out_per_second
        if busy_ratio is not UNSET:
            field_dict["busy_ratio"] = busy_ratio
        if idle_ratio is not UNSET:
            field_dict["idle_ratio"] = idle_ratio
        if backpressured_ratio is not UNSET:
            field_dict["backpressured_ratio"] = backpressured_ratio
        if operators is not UNSET:
            field_dict["operators"] = operators
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        records_in = d.pop("records_in", UNSET)

        records_out = d.pop("records_out", UNSET)

        def _parse_records_in_per_second(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        records_in_per_second = _parse_records_in_per_second(d.pop("records_in_per_second", UNSET))

        def _parse_records_out_per_second(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        records_out_per_second = _parse_records_out_per_second(d.pop("records_out_per_second", UNSET))

        def _parse_busy_ratio(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        busy_ratio = _parse_busy_ratio(d.pop("busy_ratio", UNSET))

        def _parse_idle_ratio(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        idle_ratio = _parse_idle_ratio(d.pop("idle_ratio", UNSET))

        def _parse_backpressured_ratio(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        backpressured_ratio = _parse_backpressured_ratio(d.pop("backpressured_ratio", UNSET))

        operators = cast(list[str], d.pop("operators", UNSET))

        def _parse_parallelism(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        parallelism = _parse_parallelism(d.pop("parallelism", UNSET))

        vertex_metrics = cls(
            records_in=records_in,
            records_out=records_out,
            records_in_per_second=records_in_per_second,
            records_out_per_second=records_out_per_second,
            busy_ratio=busy_ratio,
            idle_ratio=idle_ratio,
            backpressured_ratio=backpressured_ratio,
            operators=operators,
            parallelism=parallelism,
        )

        vertex_metrics.additional_properties = d
        return vertex_metrics

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
