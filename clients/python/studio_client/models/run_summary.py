from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_status_enum import RunStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ended_by import EndedBy
    from ..models.last_checkpoint import LastCheckpoint


T = TypeVar("T", bound="RunSummary")


@_attrs_define
class RunSummary:
    """A run without its definition, plan and records: what lists, the jobs overview and the pipeline's
    stream show. ``restarts`` counts RESTARTING transitions; ``last_checkpoint`` is the newest completed one;
    ``ended_by`` says how an ended run ended, and which run the job continues as.

        Attributes:
            id (int):
            pipeline (int):
            pipeline_name (str):
            version (int):
            created_by (None | str):
            created_at (datetime.datetime):
            restarts (int):
            last_checkpoint (LastCheckpoint | None):
            ended_by (EndedBy | None):
            mode (str | Unset):
            status (RunStatusEnum | Unset): * `CREATED` - Created
                * `SCHEDULING` - Scheduling
                * `RUNNING` - Running
                * `FINISHING` - Finishing
                * `FINISHED` - Finished
                * `CANCELING` - Canceling
                * `CANCELED` - Canceled
                * `FAILING` - Failing
                * `FAILED` - Failed
                * `RESTARTING` - Restarting
            failure_cause (None | str | Unset):
            started_at (datetime.datetime | None | Unset):
            ended_at (datetime.datetime | None | Unset):
    """

    id: int
    pipeline: int
    pipeline_name: str
    version: int
    created_by: None | str
    created_at: datetime.datetime
    restarts: int
    last_checkpoint: LastCheckpoint | None
    ended_by: EndedBy | None
    mode: str | Unset = UNSET
    status: RunStatusEnum | Unset = UNSET
    failure_cause: None | str | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    ended_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.ended_by import EndedBy  # noqa: PLC0415
        from ..models.last_checkpoint import LastCheckpoint  # noqa: PLC0415

        id = self.id

        pipeline = self.pipeline

        pipeline_name = self.pipeline_name

        version = self.version

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

        restarts = self.restarts

        last_checkpoint: dict[str, Any] | None
        if isinstance(self.last_checkpoint, LastCheckpoint):
            last_checkpoint = self.last_checkpoint.to_dict()
        else:
            last_checkpoint = self.last_checkpoint

        ended_by: dict[str, Any] | None
        if isinstance(self.ended_by, EndedBy):
            ended_by = self.ended_by.to_dict()
        else:
            ended_by = self.ended_by

        mode = self.mode

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        failure_cause: None | str | Unset
        if isinstance(self.failure_cause, Unset):
            failure_cause = UNSET
        else:
            failure_cause = self.failure_cause

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        elif isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pipeline": pipeline,
                "pipeline_name": pipeline_name,
                "version": version,
                "created_by": created_by,
                "created_at": created_at,
                "restarts": restarts,
                "last_checkpoint": last_checkpoint,
                "ended_by": ended_by,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode
        if status is not UNSET:
            field_dict["status"] = status
        if failure_cause is not UNSET:
            field_dict["failure_cause"] = failure_cause
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ended_by import EndedBy  # noqa: PLC0415
        from ..models.last_checkpoint import LastCheckpoint  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        pipeline = d.pop("pipeline")

        pipeline_name = d.pop("pipeline_name")

        version = d.pop("version")

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        restarts = d.pop("restarts")

        def _parse_last_checkpoint(data: object) -> LastCheckpoint | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_checkpoint_type_1 = LastCheckpoint.from_dict(data)

                return last_checkpoint_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LastCheckpoint | None, data)

        last_checkpoint = _parse_last_checkpoint(d.pop("last_checkpoint"))

        def _parse_ended_by(data: object) -> EndedBy | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ended_by_type_1 = EndedBy.from_dict(data)

                return ended_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EndedBy | None, data)

        ended_by = _parse_ended_by(d.pop("ended_by"))

        mode = d.pop("mode", UNSET)

        _status = d.pop("status", UNSET)
        status: RunStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = RunStatusEnum(_status)

        def _parse_failure_cause(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_cause = _parse_failure_cause(d.pop("failure_cause", UNSET))

        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        def _parse_ended_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ended_at = _parse_ended_at(d.pop("ended_at", UNSET))

        run_summary = cls(
            id=id,
            pipeline=pipeline,
            pipeline_name=pipeline_name,
            version=version,
            created_by=created_by,
            created_at=created_at,
            restarts=restarts,
            last_checkpoint=last_checkpoint,
            ended_by=ended_by,
            mode=mode,
            status=status,
            failure_cause=failure_cause,
            started_at=started_at,
            ended_at=ended_at,
        )

        run_summary.additional_properties = d
        return run_summary

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
