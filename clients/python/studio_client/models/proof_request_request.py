from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProofRequestRequest")


@_attrs_define
class ProofRequestRequest:
    """
    Attributes:
        version (int | Unset): The version to prove; the latest when omitted.
        test_case (str | Unset): The test case whose input the proof runs; the version's first when omitted.
        kills (int | Unset): How many times subtasks are killed (default 10). Default: 10.
        seed (int | Unset): The seed the kills are drawn from: a failed proof's seed replays it.
        rescale (bool | Unset): Restore once at another parallelism (default true). Default: True.
    """

    version: int | Unset = UNSET
    test_case: str | Unset = UNSET
    kills: int | Unset = 10
    seed: int | Unset = UNSET
    rescale: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        test_case = self.test_case

        kills = self.kills

        seed = self.seed

        rescale = self.rescale

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if test_case is not UNSET:
            field_dict["test_case"] = test_case
        if kills is not UNSET:
            field_dict["kills"] = kills
        if seed is not UNSET:
            field_dict["seed"] = seed
        if rescale is not UNSET:
            field_dict["rescale"] = rescale

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        version = d.pop("version", UNSET)

        test_case = d.pop("test_case", UNSET)

        kills = d.pop("kills", UNSET)

        seed = d.pop("seed", UNSET)

        rescale = d.pop("rescale", UNSET)

        proof_request_request = cls(
            version=version,
            test_case=test_case,
            kills=kills,
            seed=seed,
            rescale=rescale,
        )

        proof_request_request.additional_properties = d
        return proof_request_request

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
