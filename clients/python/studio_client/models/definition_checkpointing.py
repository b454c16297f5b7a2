from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.definition_checkpointing_mode import DefinitionCheckpointingMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionCheckpointing")


@_attrs_define
class DefinitionCheckpointing:
    """
    Attributes:
        interval_ms (int | Unset):
        mode (DefinitionCheckpointingMode | Unset):
        timeout_ms (int | Unset):
        min_pause_ms (int | Unset):
        max_concurrent (int | Unset):
        tolerable_failures (int | Unset):
        unaligned (bool | Unset):
        aligned_timeout_ms (int | Unset):
        max_aligned_bytes (int | Unset):
        retained (int | Unset):
        enabled (bool | Unset):
    """

    interval_ms: int | Unset = UNSET
    mode: DefinitionCheckpointingMode | Unset = UNSET
    timeout_ms: int | Unset = UNSET
    min_pause_ms: int | Unset = UNSET
    max_concurrent: int | Unset = UNSET
    tolerable_failures: int | Unset = UNSET
    unaligned: bool | Unset = UNSET
    aligned_timeout_ms: int | Unset = UNSET
    max_aligned_bytes: int | Unset = UNSET
    retained: int | Unset = UNSET
    enabled: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        interval_ms = self.interval_ms

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        timeout_ms = self.timeout_ms

        min_pause_ms = self.min_pause_ms

        max_concurrent = self.max_concurrent

        tolerable_failures = self.tolerable_failures

        unaligned = self.unaligned

        aligned_timeout_ms = self.aligned_timeout_ms

        max_aligned_bytes = self.max_aligned_bytes

        retained = self.retained

        enabled = self.enabled

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if interval_ms is not UNSET:
            field_dict["interval_ms"] = interval_ms
        if mode is not UNSET:
            field_dict["mode"] = mode
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms
        if min_pause_ms is not UNSET:
            field_dict["min_pause_ms"] = min_pause_ms
        if max_concurrent is not UNSET:
            field_dict["max_concurrent"] = max_concurrent
        if tolerable_failures is not UNSET:
            field_dict["tolerable_failures"] = tolerable_failures
        if unaligned is not UNSET:
            field_dict["unaligned"] = unaligned
        if aligned_timeout_ms is not UNSET:
            field_dict["aligned_timeout_ms"] = aligned_timeout_ms
        if max_aligned_bytes is not UNSET:
            field_dict["max_aligned_bytes"] = max_aligned_bytes
        if retained is not UNSET:
            field_dict["retained"] = retained
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        interval_ms = d.pop("interval_ms", UNSET)

        _mode = d.pop("mode", UNSET)
        mode: DefinitionCheckpointingMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = DefinitionCheckpointingMode(_mode)

        timeout_ms = d.pop("timeout_ms", UNSET)

        min_pause_ms = d.pop("min_pause_ms", UNSET)

        max_concurrent = d.pop("max_concurrent", UNSET)

        tolerable_failures = d.pop("tolerable_failures", UNSET)

        unaligned = d.pop("unaligned", UNSET)

        aligned_timeout_ms = d.pop("aligned_timeout_ms", UNSET)

        max_aligned_bytes = d.pop("max_aligned_bytes", UNSET)

        retained = d.pop("retained", UNSET)

        enabled = d.pop("enabled", UNSET)

        definition_checkpointing = cls(
            interval_ms=interval_ms,
            mode=mode,
            timeout_ms=timeout_ms,
            min_pause_ms=min_pause_ms,
            max_concurrent=max_concurrent,
            tolerable_failures=tolerable_failures,
            unaligned=unaligned,
            aligned_timeout_ms=aligned_timeout_ms,
            max_aligned_bytes=max_aligned_bytes,
            retained=retained,
            enabled=enabled,
        )

        return definition_checkpointing
