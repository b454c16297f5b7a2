from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_environment_parameters import RunEnvironmentParameters


T = TypeVar("T", bound="RunEnvironment")


@_attrs_define
class RunEnvironment:
    """
    Attributes:
        environment (None | str): Where the run runs (null: in no environment).
        parameters (RunEnvironmentParameters): The parameters it was started with (a secret stays its ${secret:name}).
    """

    environment: None | str
    parameters: RunEnvironmentParameters
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        environment: None | str
        environment = self.environment

        parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "environment": environment,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_environment_parameters import RunEnvironmentParameters  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_environment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        environment = _parse_environment(d.pop("environment"))

        parameters = RunEnvironmentParameters.from_dict(d.pop("parameters"))

        run_environment = cls(
            environment=environment,
            parameters=parameters,
        )

        run_environment.additional_properties = d
        return run_environment

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
