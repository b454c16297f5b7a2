from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.shadow_status_enum import ShadowStatusEnum

if TYPE_CHECKING:
    from ..models.shadow_sinks_item import ShadowSinksItem
    from ..models.sink_diff import SinkDiff


T = TypeVar("T", bound="Shadow")


@_attrs_define
class Shadow:
    """
    Attributes:
        id (int):
        production (int): The production run.
        production_version (int):
        candidate_version (int):
        status (ShadowStatusEnum): * `PENDING` - Pending
            * `SNAPSHOTTING` - Snapshotting
            * `RUNNING` - Running
            * `COMPLETED` - Completed
            * `FAILED` - Failed
            * `DISCARDED` - Discarded
            * `PROMOTED` - Promoted
        snapshot (str):
        checkpoint_id (int | None): The checkpoint or savepoint both sides start from.
        max_seconds (int):
        max_output_bytes (int):
        max_slots (int):
        shared (list[str]): Nodes alike in both versions: they run once and feed both sides.
        sinks (list[ShadowSinksItem]): Per sink: where each side's output is (JSON lines).
        diff (list[SinkDiff] | None):
        ended_by (str):
        failure (str):
        promoted_run (int | None):
        created_at (datetime.datetime):
        started_at (datetime.datetime | None):
        ended_at (datetime.datetime | None):
    """

    id: int
    production: int
    production_version: int
    candidate_version: int
    status: ShadowStatusEnum
    snapshot: str
    checkpoint_id: int | None
    max_seconds: int
    max_output_bytes: int
    max_slots: int
    shared: list[str]
    sinks: list[ShadowSinksItem]
    diff: list[SinkDiff] | None
    ended_by: str
    failure: str
    promoted_run: int | None
    created_at: datetime.datetime
    started_at: datetime.datetime | None
    ended_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        production = self.production

        production_version = self.production_version

        candidate_version = self.candidate_version

        status = self.status.value

        snapshot = self.snapshot

        checkpoint_id: int | None
        checkpoint_id = self.checkpoint_id

        max_seconds = self.max_seconds

        max_output_bytes = self.max_output_bytes

        max_slots = self.max_slots

        shared = self.shared

        sinks = []
        for sinks_item_data in self.sinks:
            sinks_item = sinks_item_data.to_dict()
            sinks.append(sinks_item)

        diff: list[dict[str, Any]] | None
        if isinstance(self.diff, list):
            diff = []
            for diff_type_0_item_data in self.diff:
                diff_type_0_item = diff_type_0_item_data.to_dict()
                diff.append(diff_type_0_item)

        else:
            diff = self.diff

        ended_by = self.ended_by

        failure = self.failure

        promoted_run: int | None
        promoted_run = self.promoted_run

        created_at = self.created_at.isoformat()

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "production": production,
                "production_version": production_version,
                "candidate_version": candidate_version,
                "status": status,
                "snapshot": snapshot,
                "checkpoint_id": checkpoint_id,
                "max_seconds": max_seconds,
                "max_output_bytes": max_output_bytes,
                "max_slots": max_slots,
                "shared": shared,
                "sinks": sinks,
                "diff": diff,
                "ended_by": ended_by,
                "failure": failure,
                "promoted_run": promoted_run,
                "created_at": created_at,
                "started_at": started_at,
                "ended_at": ended_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.shadow_sinks_item import ShadowSinksItem  # noqa: PLC0415
        from ..models.sink_diff import SinkDiff  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        production = d.pop("production")

        production_version = d.pop("production_version")

        candidate_version = d.pop("candidate_version")

        status = ShadowStatusEnum(d.pop("status"))

        snapshot = d.pop("snapshot")

        def _parse_checkpoint_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        checkpoint_id = _parse_checkpoint_id(d.pop("checkpoint_id"))

        max_seconds = d.pop("max_seconds")

        max_output_bytes = d.pop("max_output_bytes")

        max_slots = d.pop("max_slots")

        shared = cast(list[str], d.pop("shared"))

        sinks = []
        _sinks = d.pop("sinks")
        for sinks_item_data in _sinks:
            sinks_item = ShadowSinksItem.from_dict(sinks_item_data)

            sinks.append(sinks_item)

        def _parse_diff(data: object) -> list[SinkDiff] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                diff_type_0 = []
                _diff_type_0 = data
                for diff_type_0_item_data in _diff_type_0:
                    diff_type_0_item = SinkDiff.from_dict(diff_type_0_item_data)

                    diff_type_0.append(diff_type_0_item)

                return diff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SinkDiff] | None, data)

        diff = _parse_diff(d.pop("diff"))

        ended_by = d.pop("ended_by")

        failure = d.pop("failure")

        def _parse_promoted_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        promoted_run = _parse_promoted_run(d.pop("promoted_run"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        shadow = cls(
            id=id,
            production=production,
            production_version=production_version,
            candidate_version=candidate_version,
            status=status,
            snapshot=snapshot,
            checkpoint_id=checkpoint_id,
            max_seconds=max_seconds,
            max_output_bytes=max_output_bytes,
            max_slots=max_slots,
            shared=shared,
            sinks=sinks,
            diff=diff,
            ended_by=ended_by,
            failure=failure,
            promoted_run=promoted_run,
            created_at=created_at,
            started_at=started_at,
            ended_at=ended_at,
        )

        shadow.additional_properties = d
        return shadow

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
