from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.blank_enum import BlankEnum
from ..models.placement_enum import PlacementEnum
from ..models.run_status_enum import RunStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ended_by import EndedBy
    from ..models.last_checkpoint import LastCheckpoint
    from ..models.restored_from import RestoredFrom
    from ..models.run_collected import RunCollected
    from ..models.run_definition import RunDefinition
    from ..models.savepoint_request import SavepointRequest
    from ..models.status_change import StatusChange


T = TypeVar("T", bound="Run")


@_attrs_define
class Run:
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
            definition (RunDefinition):
            plan (Any):
            collected (RunCollected):
            status_history (list[StatusChange]):
            restored_from (None | RestoredFrom):
            savepoint_requests (list[SavepointRequest]):
            placement (BlankEnum | PlacementEnum): Where its job runs: "session" (the Spark application runs share),
                "own_driver" (a driver and application of its own), "" (not launched yet).

                * `session` - session
                * `own_driver` - own_driver
                * `` -
            placement_reason (str): Why it runs there.
            pipeline_isolated (bool): Its pipeline's runs from now on get a driver of their own (POST
                /api/pipelines/{id}/isolation changes it).
            environment (None | str): The environment the run runs in, by name (null: none); the parameters it got: GET
                /api/runs/{id}/environment.
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
            checkpoint_dir (str | Unset):
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
    definition: RunDefinition
    plan: Any
    collected: RunCollected
    status_history: list[StatusChange]
    restored_from: None | RestoredFrom
    savepoint_requests: list[SavepointRequest]
    placement: BlankEnum | PlacementEnum
    placement_reason: str
    pipeline_isolated: bool
    environment: None | str
    mode: str | Unset = UNSET
    status: RunStatusEnum | Unset = UNSET
    failure_cause: None | str | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    ended_at: datetime.datetime | None | Unset = UNSET
    checkpoint_dir: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.ended_by import EndedBy  # noqa: PLC0415
        from ..models.last_checkpoint import LastCheckpoint  # noqa: PLC0415
        from ..models.restored_from import RestoredFrom  # noqa: PLC0415

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

        definition = self.definition.to_dict()

        plan = self.plan

        collected = self.collected.to_dict()

        status_history = []
        for status_history_item_data in self.status_history:
            status_history_item = status_history_item_data.to_dict()
            status_history.append(status_history_item)

        restored_from: dict[str, Any] | None
        if isinstance(self.restored_from, RestoredFrom):
            restored_from = self.restored_from.to_dict()
        else:
            restored_from = self.restored_from

        savepoint_requests = []
        for savepoint_requests_item_data in self.savepoint_requests:
            savepoint_requests_item = savepoint_requests_item_data.to_dict()
            savepoint_requests.append(savepoint_requests_item)

        placement: str
        if isinstance(self.placement, PlacementEnum):
            placement = self.placement.value
        else:
            placement = self.placement.value

        placement_reason = self.placement_reason

        pipeline_isolated = self.pipeline_isolated

        environment: None | str
        environment = self.environment

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

        checkpoint_dir = self.checkpoint_dir

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
                "definition": definition,
                "plan": plan,
                "collected": collected,
                "status_history": status_history,
                "restored_from": restored_from,
                "savepoint_requests": savepoint_requests,
                "placement": placement,
                "placement_reason": placement_reason,
                "pipeline_isolated": pipeline_isolated,
                "environment": environment,
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
        if checkpoint_dir is not UNSET:
            field_dict["checkpoint_dir"] = checkpoint_dir

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ended_by import EndedBy  # noqa: PLC0415
        from ..models.last_checkpoint import LastCheckpoint  # noqa: PLC0415
        from ..models.restored_from import RestoredFrom  # noqa: PLC0415
        from ..models.run_collected import RunCollected  # noqa: PLC0415
        from ..models.run_definition import RunDefinition  # noqa: PLC0415
        from ..models.savepoint_request import SavepointRequest  # noqa: PLC0415
        from ..models.status_change import StatusChange  # noqa: PLC0415

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

        definition = RunDefinition.from_dict(d.pop("definition"))

        plan = d.pop("plan")

        collected = RunCollected.from_dict(d.pop("collected"))

        status_history = []
        _status_history = d.pop("status_history")
        for status_history_item_data in _status_history:
            status_history_item = StatusChange.from_dict(status_history_item_data)

            status_history.append(status_history_item)

        def _parse_restored_from(data: object) -> None | RestoredFrom:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                restored_from_type_1 = RestoredFrom.from_dict(data)

                return restored_from_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RestoredFrom, data)

        restored_from = _parse_restored_from(d.pop("restored_from"))

        savepoint_requests = []
        _savepoint_requests = d.pop("savepoint_requests")
        for savepoint_requests_item_data in _savepoint_requests:
            savepoint_requests_item = SavepointRequest.from_dict(savepoint_requests_item_data)

            savepoint_requests.append(savepoint_requests_item)

        def _parse_placement(data: object) -> BlankEnum | PlacementEnum:
            try:
                if not isinstance(data, str):
                    raise TypeError()
                placement_type_0 = PlacementEnum(data)

                return placement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, str):
                raise TypeError()
            placement_type_1 = BlankEnum(data)

            return placement_type_1

        placement = _parse_placement(d.pop("placement"))

        placement_reason = d.pop("placement_reason")

        pipeline_isolated = d.pop("pipeline_isolated")

        def _parse_environment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        environment = _parse_environment(d.pop("environment"))

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

        checkpoint_dir = d.pop("checkpoint_dir", UNSET)

        run = cls(
            id=id,
            pipeline=pipeline,
            pipeline_name=pipeline_name,
            version=version,
            created_by=created_by,
            created_at=created_at,
            restarts=restarts,
            last_checkpoint=last_checkpoint,
            ended_by=ended_by,
            definition=definition,
            plan=plan,
            collected=collected,
            status_history=status_history,
            restored_from=restored_from,
            savepoint_requests=savepoint_requests,
            placement=placement,
            placement_reason=placement_reason,
            pipeline_isolated=pipeline_isolated,
            environment=environment,
            mode=mode,
            status=status,
            failure_cause=failure_cause,
            started_at=started_at,
            ended_at=ended_at,
            checkpoint_dir=checkpoint_dir,
        )

        run.additional_properties = d
        return run

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
