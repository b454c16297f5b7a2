from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.environment_run_parameters import EnvironmentRunParameters


T = TypeVar("T", bound="EnvironmentRun")


@_attrs_define
class EnvironmentRun:
    """
    Attributes:
        run (int):
        environment (str):
        pipeline (int):
        pipeline_name (str):
        version (int):
        status (str):
        created_at (datetime.datetime):
        parameters (EnvironmentRunParameters): The parameters it was started with (a secret stays its ${secret:name}).
    """

    run: int
    environment: str
    pipeline: int
    pipeline_name: str
    version: int
    status: str
    created_at: datetime.datetime
    parameters: EnvironmentRunParameters
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        run = self.run

        environment = self.environment

        pipeline = self.pipeline

        pipeline_name = self.pipeline_name

        version = self.version

        status = self.status

        created_at = self.created_at.isoformat()

        parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "run": run,
                "environment": environment,
                "pipeline": pipeline,
                "pipeline_name": pipeline_name,
                "version": version,
                "status": status,
                "created_at": created_at,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.environment_run_parameters import EnvironmentRunParameters  # noqa: PLC0415

        d = dict(src_dict)
        run = d.pop("run")

        environment = d.pop("environment")

        pipeline = d.pop("pipeline")

        pipeline_name = d.pop("pipeline_name")

        version = d.pop("version")

        status = d.pop("status")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        parameters = EnvironmentRunParameters.from_dict(d.pop("parameters"))

        environment_run = cls(
            run=run,
            environment=environment,
            pipeline=pipeline,
            pipeline_name=pipeline_name,
            version=version,
            status=status,
            created_at=created_at,
            parameters=parameters,
        )

        environment_run.additional_properties = d
        return environment_run

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
