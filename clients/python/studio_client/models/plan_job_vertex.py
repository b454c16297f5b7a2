from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PlanJobVertex")


@_attrs_define
class PlanJobVertex:
    """A job vertex: a chain of operators one task thread runs (``engine.plan.plan_summary``).

    Attributes:
        id (str): The id of the chain's head operator.
        name (str):
        operators (list[str]): The chain's operators (node ids), head first, each after the one that feeds it.
        chain_inputs (list[int]): Per operator, the position in `operators` of the chained operator that feeds it (-1
            for the head): [-1, 0, 1] is a line, [-1, 0, 1, 1] a chain whose second operator fans out to the last two (a
            tree).
        parallelism (int):
        max_parallelism (int):
        is_source (bool):
    """

    id: str
    name: str
    operators: list[str]
    chain_inputs: list[int]
    parallelism: int
    max_parallelism: int
    is_source: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        operators = self.operators

        chain_inputs = self.chain_inputs

        parallelism = self.parallelism

        max_parallelism = self.max_parallelism

        is_source = self.is_source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "operators": operators,
                "chain_inputs": chain_inputs,
                "parallelism": parallelism,
                "max_parallelism": max_parallelism,
                "is_source": is_source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        operators = cast(list[str], d.pop("operators"))

        chain_inputs = cast(list[int], d.pop("chain_inputs"))

        parallelism = d.pop("parallelism")

        max_parallelism = d.pop("max_parallelism")

        is_source = d.pop("is_source")

        plan_job_vertex = cls(
            id=id,
            name=name,
            operators=operators,
            chain_inputs=chain_inputs,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            is_source=is_source,
        )

        plan_job_vertex.additional_properties = d
        return plan_job_vertex

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
