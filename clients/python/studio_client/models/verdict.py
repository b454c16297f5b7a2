from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.verdict_enum import VerdictEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="Verdict")


@_attrs_define
class Verdict:
    """
    Attributes:
        id (int):
        status (VerdictEnum): * `queued` - queued
            * `running` - running
            * `passed` - passed
            * `failed` - failed
            * `error` - error
            * `inconclusive` - inconclusive (the output depends on the parallelism)
        at (datetime.datetime):
        seed (int | Unset):
        environment (None | str | Unset): A test run's environment, by name (null: none).
    """

    id: int
    status: VerdictEnum
    at: datetime.datetime
    seed: int | Unset = UNSET
    environment: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status = self.status.value

        at = self.at.isoformat()

        seed = self.seed

        environment: None | str | Unset
        if isinstance(self.environment, Unset):
            environment = UNSET
        else:
            environment = self.environment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "at": at,
            }
        )
        if seed is not UNSET:
            field_dict["seed"] = seed
        if environment is not UNSET:
            field_dict["environment"] = environment

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        status = VerdictEnum(d.pop("status"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        seed = d.pop("seed", UNSET)

        def _parse_environment(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        environment = _parse_environment(d.pop("environment", UNSET))

        verdict = cls(
            id=id,
            status=status,
            at=at,
            seed=seed,
            environment=environment,
        )

        verdict.additional_properties = d
        return verdict

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
