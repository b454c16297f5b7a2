from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Notification")


@_attrs_define
class Notification:
    """
    Attributes:
        id (int):
        kind (str):
        message (str):
        created_at (datetime.datetime):
        rule (int | None | Unset):
        run (int | None | Unset):
        pipeline (int | None | Unset):
        data (Any | Unset):
        read_at (datetime.datetime | None | Unset):
    """

    id: int
    kind: str
    message: str
    created_at: datetime.datetime
    rule: int | None | Unset = UNSET
    run: int | None | Unset = UNSET
    pipeline: int | None | Unset = UNSET
    data: Any | Unset = UNSET
    read_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        kind = self.kind

        message = self.message

        created_at = self.created_at.isoformat()

        rule: int | None | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        else:
            rule = self.rule

        run: int | None | Unset
        if isinstance(self.run, Unset):
            run = UNSET
        else:
            run = self.run

        pipeline: int | None | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        else:
            pipeline = self.pipeline

        data = self.data

        read_at: None | str | Unset
        if isinstance(self.read_at, Unset):
            read_at = UNSET
        elif isinstance(self.read_at, datetime.datetime):
            read_at = self.read_at.isoformat()
        else:
            read_at = self.read_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "message": message,
                "created_at": created_at,
            }
        )
        if rule is not UNSET:
            field_dict["rule"] = rule
        if run is not UNSET:
            field_dict["run"] = run
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if data is not UNSET:
            field_dict["data"] = data
        if read_at is not UNSET:
            field_dict["read_at"] = read_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        kind = d.pop("kind")

        message = d.pop("message")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_rule(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))

        def _parse_run(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        run = _parse_run(d.pop("run", UNSET))

        def _parse_pipeline(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

        data = d.pop("data", UNSET)

        def _parse_read_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                read_at_type_0 = datetime.datetime.fromisoformat(data)

                return read_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        read_at = _parse_read_at(d.pop("read_at", UNSET))

        notification = cls(
            id=id,
            kind=kind,
            message=message,
            created_at=created_at,
            rule=rule,
            run=run,
            pipeline=pipeline,
            data=data,
            read_at=read_at,
        )

        notification.additional_properties = d
        return notification

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
