from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RestoredFrom")


@_attrs_define
class RestoredFrom:
    """
    Attributes:
        pk (int | None):
        checkpoint_id (int | None):
        run (int | None):
        kind (None | str):
        path (str):
        allow_non_restored_state (bool):
    """

    pk: int | None
    checkpoint_id: int | None
    run: int | None
    kind: None | str
    path: str
    allow_non_restored_state: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pk: int | None
        pk = self.pk

        checkpoint_id: int | None
        checkpoint_id = self.checkpoint_id

        run: int | None
        run = self.run

        kind: None | str
        kind = self.kind

        path = self.path

        allow_non_restored_state = self.allow_non_restored_state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pk": pk,
                "checkpoint_id": checkpoint_id,
                "run": run,
                "kind": kind,
                "path": path,
                "allow_non_restored_state": allow_non_restored_state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_pk(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        pk = _parse_pk(d.pop("pk"))

        def _parse_checkpoint_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        checkpoint_id = _parse_checkpoint_id(d.pop("checkpoint_id"))

        def _parse_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        run = _parse_run(d.pop("run"))

        def _parse_kind(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        kind = _parse_kind(d.pop("kind"))

        path = d.pop("path")

        allow_non_restored_state = d.pop("allow_non_restored_state")

        restored_from = cls(
            pk=pk,
            checkpoint_id=checkpoint_id,
            run=run,
            kind=kind,
            path=path,
            allow_non_restored_state=allow_non_restored_state,
        )

        restored_from.additional_properties = d
        return restored_from

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
