from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.snapshot_enum import SnapshotEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewShadowRequest")


@_attrs_define
class NewShadowRequest:
    """
    Attributes:
        candidate_version (int): A version number of the run's pipeline.
        snapshot (SnapshotEnum | Unset): * `take` - take
            * `latest` - latest Default: SnapshotEnum.TAKE.
        max_seconds (int | Unset): How long the shadow job may run (default 60 s).
        max_output_bytes (int | Unset): Bytes both sides' outputs may reach (default 64 MiB).
        max_slots (int | Unset): Slots the shadow job may take at once.
    """

    candidate_version: int
    snapshot: SnapshotEnum | Unset = SnapshotEnum.TAKE
    max_seconds: int | Unset = UNSET
    max_output_bytes: int | Unset = UNSET
    max_slots: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        candidate_version = self.candidate_version

        snapshot: str | Unset = UNSET
        if not isinstance(self.snapshot, Unset):
            snapshot = self.snapshot.value

        max_seconds = self.max_seconds

        max_output_bytes = self.max_output_bytes

        max_slots = self.max_slots

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "candidate_version": candidate_version,
            }
        )
        if snapshot is not UNSET:
            field_dict["snapshot"] = snapshot
        if max_seconds is not UNSET:
            field_dict["max_seconds"] = max_seconds
        if max_output_bytes is not UNSET:
            field_dict["max_output_bytes"] = max_output_bytes
        if max_slots is not UNSET:
            field_dict["max_slots"] = max_slots

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        candidate_version = d.pop("candidate_version")

        _snapshot = d.pop("snapshot", UNSET)
        snapshot: SnapshotEnum | Unset
        if isinstance(_snapshot, Unset):
            snapshot = UNSET
        else:
            snapshot = SnapshotEnum(_snapshot)

        max_seconds = d.pop("max_seconds", UNSET)

        max_output_bytes = d.pop("max_output_bytes", UNSET)

        max_slots = d.pop("max_slots", UNSET)

        new_shadow_request = cls(
            candidate_version=candidate_version,
            snapshot=snapshot,
            max_seconds=max_seconds,
            max_output_bytes=max_output_bytes,
            max_slots=max_slots,
        )

        new_shadow_request.additional_properties = d
        return new_shadow_request

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
