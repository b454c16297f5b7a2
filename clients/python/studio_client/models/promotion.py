from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.promotion_status_enum import PromotionStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.promotion_diff import PromotionDiff


T = TypeVar("T", bound="Promotion")


@_attrs_define
class Promotion:
    """
    Attributes:
        id (int):
        pipeline (int):
        pipeline_name (str):
        version (int):
        target (str):
        target_id (int):
        status (PromotionStatusEnum): * `PENDING` - waiting for an approver
            * `APPLIED` - the environment has the version
            * `REJECTED` - an approver refused it
            * `WITHDRAWN` - the user who asked withdrew it
        diff (PromotionDiff):
        message (str):
        requested_at (datetime.datetime):
        decided_at (datetime.datetime | None):
        comment (str):
        approval_role (None | str): Who decides it: a user holding this team role (or a stronger one) on the pipeline,
            not who asked; null when its environment asks no approval.
        can_decide (bool): Whether you may approve or reject it now.
        source (None | str | Unset):
        requested_by (None | str | Unset):
        decided_by (None | str | Unset):
    """

    id: int
    pipeline: int
    pipeline_name: str
    version: int
    target: str
    target_id: int
    status: PromotionStatusEnum
    diff: PromotionDiff
    message: str
    requested_at: datetime.datetime
    decided_at: datetime.datetime | None
    comment: str
    approval_role: None | str
    can_decide: bool
    source: None | str | Unset = UNSET
    requested_by: None | str | Unset = UNSET
    decided_by: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        pipeline = self.pipeline

        pipeline_name = self.pipeline_name

        version = self.version

        target = self.target

        target_id = self.target_id

        status = self.status.value

        diff = self.diff.to_dict()

        message = self.message

        requested_at = self.requested_at.isoformat()

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        comment = self.comment

        approval_role: None | str
        approval_role = self.approval_role

        can_decide = self.can_decide

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        requested_by: None | str | Unset
        if isinstance(self.requested_by, Unset):
            requested_by = UNSET
        else:
            requested_by = self.requested_by

        decided_by: None | str | Unset
        if isinstance(self.decided_by, Unset):
            decided_by = UNSET
        else:
            decided_by = self.decided_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pipeline": pipeline,
                "pipeline_name": pipeline_name,
                "version": version,
                "target": target,
                "target_id": target_id,
                "status": status,
                "diff": diff,
                "message": message,
                "requested_at": requested_at,
                "decided_at": decided_at,
                "comment": comment,
                "approval_role": approval_role,
                "can_decide": can_decide,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if requested_by is not UNSET:
            field_dict["requested_by"] = requested_by
        if decided_by is not UNSET:
            field_dict["decided_by"] = decided_by

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.promotion_diff import PromotionDiff  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        pipeline = d.pop("pipeline")

        pipeline_name = d.pop("pipeline_name")

        version = d.pop("version")

        target = d.pop("target")

        target_id = d.pop("target_id")

        status = PromotionStatusEnum(d.pop("status"))

        diff = PromotionDiff.from_dict(d.pop("diff"))

        message = d.pop("message")

        requested_at = datetime.datetime.fromisoformat(d.pop("requested_at"))

        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_0 = datetime.datetime.fromisoformat(data)

                return decided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))

        comment = d.pop("comment")

        def _parse_approval_role(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        approval_role = _parse_approval_role(d.pop("approval_role"))

        can_decide = d.pop("can_decide")

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_requested_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        requested_by = _parse_requested_by(d.pop("requested_by", UNSET))

        def _parse_decided_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        decided_by = _parse_decided_by(d.pop("decided_by", UNSET))

        promotion = cls(
            id=id,
            pipeline=pipeline,
            pipeline_name=pipeline_name,
            version=version,
            target=target,
            target_id=target_id,
            status=status,
            diff=diff,
            message=message,
            requested_at=requested_at,
            decided_at=decided_at,
            comment=comment,
            approval_role=approval_role,
            can_decide=can_decide,
            source=source,
            requested_by=requested_by,
            decided_by=decided_by,
        )

        promotion.additional_properties = d
        return promotion

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
