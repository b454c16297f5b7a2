from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.verdict import Verdict


T = TypeVar("T", bound="Badge")


@_attrs_define
class Badge:
    """
    Attributes:
        version (int):
        tests (None | Verdict): The version's latest run of its test cases.
        proof (None | Verdict): The version's latest exactly-once proof.
    """

    version: int
    tests: None | Verdict
    proof: None | Verdict
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.verdict import Verdict  # noqa: PLC0415

        version = self.version

        tests: dict[str, Any] | None
        if isinstance(self.tests, Verdict):
            tests = self.tests.to_dict()
        else:
            tests = self.tests

        proof: dict[str, Any] | None
        if isinstance(self.proof, Verdict):
            proof = self.proof.to_dict()
        else:
            proof = self.proof

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "version": version,
                "tests": tests,
                "proof": proof,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.verdict import Verdict  # noqa: PLC0415

        d = dict(src_dict)
        version = d.pop("version")

        def _parse_tests(data: object) -> None | Verdict:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tests_type_1 = Verdict.from_dict(data)

                return tests_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Verdict, data)

        tests = _parse_tests(d.pop("tests"))

        def _parse_proof(data: object) -> None | Verdict:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                proof_type_1 = Verdict.from_dict(data)

                return proof_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Verdict, data)

        proof = _parse_proof(d.pop("proof"))

        badge = cls(
            version=version,
            tests=tests,
            proof=proof,
        )

        badge.additional_properties = d
        return badge

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
