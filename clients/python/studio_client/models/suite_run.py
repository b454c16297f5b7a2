from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.verdict_enum import VerdictEnum

if TYPE_CHECKING:
    from ..models.suite_run_counts import SuiteRunCounts
    from ..models.suite_run_parameters import SuiteRunParameters
    from ..models.suite_run_results_item import SuiteRunResultsItem


T = TypeVar("T", bound="SuiteRun")


@_attrs_define
class SuiteRun:
    """
    Attributes:
        id (int):
        pipeline (int):
        version (int | None): The version it ran; null for a draft.
        environment (None | str): The environment whose parameters its ${param:name} took, by name (null: none, the
            definition as written).
        parameters (SuiteRunParameters): Those parameters as they were when it ran ({} without an environment); a secret
            stays a reference.
        status (VerdictEnum): * `queued` - queued
            * `running` - running
            * `passed` - passed
            * `failed` - failed
            * `error` - error
            * `inconclusive` - inconclusive (the output depends on the parallelism)
        cases (Any):
        counts (SuiteRunCounts):
        results (list[SuiteRunResultsItem]): Per test case: name, status (passed, failed, error), modes, assertions
            (each passed or not, its message and first difference), agreement of the bounded and streaming runs, nodes (per
            node: count, first records, status), failures (one line each), duration_s.
        error (str):
        duration_s (float | None):
        created_by (None | str):
        created_at (datetime.datetime):
        finished_at (datetime.datetime | None):
    """

    id: int
    pipeline: int
    version: int | None
    environment: None | str
    parameters: SuiteRunParameters
    status: VerdictEnum
    cases: Any
    counts: SuiteRunCounts
    results: list[SuiteRunResultsItem]
    error: str
    duration_s: float | None
    created_by: None | str
    created_at: datetime.datetime
    finished_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        pipeline = self.pipeline

        version: int | None
        version = self.version

        environment: None | str
        environment = self.environment

        parameters = self.parameters.to_dict()

        status = self.status.value

        cases = self.cases

        counts = self.counts.to_dict()

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        error = self.error

        duration_s: float | None
        duration_s = self.duration_s

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pipeline": pipeline,
                "version": version,
                "environment": environment,
                "parameters": parameters,
                "status": status,
                "cases": cases,
                "counts": counts,
                "results": results,
                "error": error,
                "duration_s": duration_s,
                "created_by": created_by,
                "created_at": created_at,
                "finished_at": finished_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.suite_run_counts import SuiteRunCounts  # noqa: PLC0415
        from ..models.suite_run_parameters import SuiteRunParameters  # noqa: PLC0415
        from ..models.suite_run_results_item import SuiteRunResultsItem  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        pipeline = d.pop("pipeline")

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))

        def _parse_environment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        environment = _parse_environment(d.pop("environment"))

        parameters = SuiteRunParameters.from_dict(d.pop("parameters"))

        status = VerdictEnum(d.pop("status"))

        cases = d.pop("cases")

        counts = SuiteRunCounts.from_dict(d.pop("counts"))

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = SuiteRunResultsItem.from_dict(results_item_data)

            results.append(results_item)

        error = d.pop("error")

        def _parse_duration_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        duration_s = _parse_duration_s(d.pop("duration_s"))

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        suite_run = cls(
            id=id,
            pipeline=pipeline,
            version=version,
            environment=environment,
            parameters=parameters,
            status=status,
            cases=cases,
            counts=counts,
            results=results,
            error=error,
            duration_s=duration_s,
            created_by=created_by,
            created_at=created_at,
            finished_at=finished_at,
        )

        suite_run.additional_properties = d
        return suite_run

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
