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
        runs (int | None): Runs it drives.
        runs_waiting (int | None): Runs waiting for slots.
        memory_mb (int | None): Resident memory of its driver, JVM and slots.
    """

    enabled: bool
    serving: bool
    application_id: None | str
    slots: int | None
    slots_used: int | None
    runs: int | None
    runs_waiting: int | None
    memory_mb: int | None
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

        runs: int | None
        runs = self.runs

        runs_waiting: int | None
        runs_waiting = self.runs_waiting

        memory_mb: int | None
        memory_mb = self.memory_mb

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "serving": serving,
                "application_id": application_id,
                "slots": slots,
                "slots_used": slots_used,
                "runs": runs,
                "runs_waiting": runs_waiting,
                "memory_mb": memory_mb,
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

        session_use = cls(
            enabled=enabled,
            serving=serving,
            application_id=application_id,
            slots=slots,
            slots_used=slots_used,
            runs=runs,
            runs_waiting=runs_waiting,
            memory_mb=memory_mb,
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
