from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SessionUse")


@_attrs_define
class SessionUse:
    """
    Attributes:
        enabled (bool): Session mode is on (STUDIO_SESSION_MODE).
        serving (bool): A session driver serves now (it announced itself lately).
        application_id (None | str): Its Spark application.
        slots (int | None): Slots (cores) of the application.
        slots_used (int | None):
        slots_max (int | None): The most slots it offers (an elastic session's maximum of executors; else its slots).
        runs (int | None): Runs it drives.
        runs_waiting (int | None): Runs waiting for slots.
        memory_mb (int | None): Resident memory of its driver, JVM and slots.
        executors (int | None): Executors registered now (one slot each); null: local[N], whose cores are fixed.
        executors_target (int | None): Executors it asked the master for.
        executors_min (int | None): Executors it keeps even when idle.
        executors_max (int | None): Executors it grows to at most.
    """

    enabled: bool
    serving: bool
    application_id: None | str
    slots: int | None
    slots_used: int | None
    slots_max: int | None
    runs: int | None
    runs_waiting: int | None
    memory_mb: int | None
    executors: int | None
    executors_target: int | None
    executors_min: int | None
    executors_max: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        serving = self.serving

        application_id: None | str
        application_id = self.application_id

        slots: int | None
        slots = self.slots

        slots_used: int | None
        slots_used = self.slots_used

        slots_max: int | None
        slots_max = self.slots_max

        runs: int | None
        runs = self.runs

        runs_waiting: int | None
        runs_waiting = self.runs_waiting

        memory_mb: int | None
        memory_mb = self.memory_mb

        executors: int | None
        executors = self.executors

        executors_target: int | None
        executors_target = self.executors_target

        executors_min: int | None
        executors_min = self.executors_min

        executors_max: int | None
        executors_max = self.executors_max

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "serving": serving,
                "application_id": application_id,
                "slots": slots,
                "slots_used": slots_used,
                "slots_max": slots_max,
                "runs": runs,
                "runs_waiting": runs_waiting,
                "memory_mb": memory_mb,
                "executors": executors,
                "executors_target": executors_target,
                "executors_min": executors_min,
                "executors_max": executors_max,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        serving = d.pop("serving")

        def _parse_application_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        application_id = _parse_application_id(d.pop("application_id"))

        def _parse_slots(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        slots = _parse_slots(d.pop("slots"))

        def _parse_slots_used(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        slots_used = _parse_slots_used(d.pop("slots_used"))

        def _parse_slots_max(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        slots_max = _parse_slots_max(d.pop("slots_max"))

        def _parse_runs(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        runs = _parse_runs(d.pop("runs"))

        def _parse_runs_waiting(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        runs_waiting = _parse_runs_waiting(d.pop("runs_waiting"))

        def _parse_memory_mb(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        memory_mb = _parse_memory_mb(d.pop("memory_mb"))

        def _parse_executors(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        executors = _parse_executors(d.pop("executors"))

        def _parse_executors_target(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        executors_target = _parse_executors_target(d.pop("executors_target"))

        def _parse_executors_min(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        executors_min = _parse_executors_min(d.pop("executors_min"))

        def _parse_executors_max(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        executors_max = _parse_executors_max(d.pop("executors_max"))

        session_use = cls(
            enabled=enabled,
            serving=serving,
            application_id=application_id,
            slots=slots,
            slots_used=slots_used,
            slots_max=slots_max,
            runs=runs,
            runs_waiting=runs_waiting,
            memory_mb=memory_mb,
            executors=executors,
            executors_target=executors_target,
            executors_min=executors_min,
            executors_max=executors_max,
        )

        session_use.additional_properties = d
        return session_use

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
