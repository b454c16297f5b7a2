from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.suite_run_request_request_definition import SuiteRunRequestRequestDefinition


T = TypeVar("T", bound="SuiteRunRequestRequest")


@_attrs_define
class SuiteRunRequestRequest:
    """
    Attributes:
        version (int | Unset): The version whose test cases run; the latest when omitted.
        definition (SuiteRunRequestRequestDefinition | Unset): A draft (the editor's unsaved pipeline) whose test cases
            run instead of a version's; nothing of it is saved.
        cases (list[str] | Unset): The names of the test cases to run; all when omitted.
        environment (str | Unset): The environment whose parameters the definition's ${param:name} take (by name), as a
            run started there gets them; none when empty. Your ${secret:name} are filled in and masked in the results.
    """

    version: int | Unset = UNSET
    definition: SuiteRunRequestRequestDefinition | Unset = UNSET
    cases: list[str] | Unset = UNSET
    environment: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        definition: dict[str, Any] | Unset = UNSET
        if not isinstance(self.definition, Unset):
            definition = self.definition.to_dict()

        cases: list[str] | Unset = UNSET
        if not isinstance(self.cases, Unset):
            cases = self.cases

        environment = self.environment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if definition is not UNSET:
            field_dict["definition"] = definition
        if cases is not UNSET:
            field_dict["cases"] = cases
        if environment is not UNSET:
            field_dict["environment"] = environment

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.suite_run_request_request_definition import SuiteRunRequestRequestDefinition  # noqa: PLC0415

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        _definition = d.pop("definition", UNSET)
        definition: SuiteRunRequestRequestDefinition | Unset
        if isinstance(_definition, Unset):
            definition = UNSET
        else:
            definition = SuiteRunRequestRequestDefinition.from_dict(_definition)

        cases = cast(list[str], d.pop("cases", UNSET))

        environment = d.pop("environment", UNSET)

        suite_run_request_request = cls(
            version=version,
            definition=definition,
            cases=cases,
            environment=environment,
        )

        suite_run_request_request.additional_properties = d
        return suite_run_request_request

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
