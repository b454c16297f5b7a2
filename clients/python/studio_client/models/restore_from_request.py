from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RestoreFromRequest")


@_attrs_define
class RestoreFromRequest:
    """Where a run starts from: a checkpoint by the id users see (``#7``, with its run when ids repeat
    across runs), a checkpoint row by ``pk``, or a directory by ``path``.

        Attributes:
            checkpoint (int | Unset): The checkpoint or savepoint id shown in the UI (#7), among this pipeline's runs; add
                `run` when several runs have it.
            run (int | Unset): The run whose `checkpoint` is meant.
            pk (int | Unset): The row id of a completed checkpoint or savepoint (`pk` in the checkpoint history,
                `checkpoint_pk` of a savepoint request).
            path (str | Unset): A checkpoint or savepoint directory (with `_metadata`) or URL.
    """

    checkpoint: int | Unset = UNSET
    run: int | Unset = UNSET
    pk: int | Unset = UNSET
    path: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint = self.checkpoint

        run = self.run

        pk = self.pk

        path = self.path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if checkpoint is not UNSET:
            field_dict["checkpoint"] = checkpoint
        if run is not UNSET:
            field_dict["run"] = run
        if pk is not UNSET:
            field_dict["pk"] = pk
        if path is not UNSET:
            field_dict["path"] = path

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint = d.pop("checkpoint", UNSET)

        run = d.pop("run", UNSET)

        pk = d.pop("pk", UNSET)

        path = d.pop("path", UNSET)

        restore_from_request = cls(
            checkpoint=checkpoint,
            run=run,
            pk=pk,
            path=path,
        )

        restore_from_request.additional_properties = d
        return restore_from_request

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
