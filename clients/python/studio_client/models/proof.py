from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.verdict_enum import VerdictEnum

if TYPE_CHECKING:
    from ..models.proof_result import ProofResult


T = TypeVar("T", bound="Proof")


@_attrs_define
class Proof:
    """
    Attributes:
        id (int):
        pipeline (int):
        version (int):
        test_case (str):
        kills (int):
        seed (int):
        rescale (bool):
        status (VerdictEnum): * `queued` - queued
            * `running` - running
            * `passed` - passed
            * `failed` - failed
            * `error` - error
            * `inconclusive` - inconclusive (the output depends on the parallelism)
        message (str):
        result (ProofResult): The proof's report: rows, records_per_checkpoint, planned (kills per phase), phases
            (parallelism, restarts, kills fired, checkpoints), sinks (expected, found, missing, doubled), difference (the
            first), replay (seed, kills, rescale, test_case).
        created_by (None | str):
        created_at (datetime.datetime):
        started_at (datetime.datetime | None):
        finished_at (datetime.datetime | None):
    """

    id: int
    pipeline: int
    version: int
    test_case: str
    kills: int
    seed: int
    rescale: bool
    status: VerdictEnum
    message: str
    result: ProofResult
    created_by: None | str
    created_at: datetime.datetime
    started_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        pipeline = self.pipeline

        version = self.version

        test_case = self.test_case

        kills = self.kills

        seed = self.seed

        rescale = self.rescale

        status = self.status.value

        message = self.message

        result = self.result.to_dict()

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

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
                "test_case": test_case,
                "kills": kills,
                "seed": seed,
                "rescale": rescale,
                "status": status,
                "message": message,
                "result": result,
                "created_by": created_by,
                "created_at": created_at,
                "started_at": started_at,
                "finished_at": finished_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.proof_result import ProofResult  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        pipeline = d.pop("pipeline")

        version = d.pop("version")

        test_case = d.pop("test_case")

        kills = d.pop("kills")

        seed = d.pop("seed")

        rescale = d.pop("rescale")

        status = VerdictEnum(d.pop("status"))

        message = d.pop("message")

        result = ProofResult.from_dict(d.pop("result"))

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

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

        proof = cls(
            id=id,
            pipeline=pipeline,
            version=version,
            test_case=test_case,
            kills=kills,
            seed=seed,
            rescale=rescale,
            status=status,
            message=message,
            result=result,
            created_by=created_by,
            created_at=created_at,
            started_at=started_at,
            finished_at=finished_at,
        )

        proof.additional_properties = d
        return proof

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
