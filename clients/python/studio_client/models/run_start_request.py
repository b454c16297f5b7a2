from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_start_mode_enum import RunStartModeEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.restore_from_request import RestoreFromRequest


T = TypeVar("T", bound="RunStartRequest")


@_attrs_define
class RunStartRequest:
    """
    Attributes:
        mode (RunStartModeEnum | Unset):
        version (int | Unset):
        restore_from (None | RestoreFromRequest | Unset):
        allow_non_restored_state (bool | Unset):  Default: False.
        environment (str | Unset): The environment whose parameters the definition's ${param:name} take (by name); none
            when empty.
    """

    mode: RunStartModeEnum | Unset = UNSET
    version: int | Unset = UNSET
    restore_from: None | RestoreFromRequest | Unset = UNSET
    allow_non_restored_state: bool | Unset = False
    environment: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.restore_from_request import RestoreFromRequest  # noqa: PLC0415

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        version = self.version

        restore_from: dict[str, Any] | None | Unset
        if isinstance(self.restore_from, Unset):
            restore_from = UNSET
        elif isinstance(self.restore_from, RestoreFromRequest):
            restore_from = self.restore_from.to_dict()
        else:
            restore_from = self.restore_from

        allow_non_restored_state = self.allow_non_restored_state

        environment = self.environment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if mode is not UNSET:
            field_dict["mode"] = mode
        if version is not UNSET:
            field_dict["version"] = version
        if restore_from is not UNSET:
            field_dict["restore_from"] = restore_from
        if allow_non_restored_state is not UNSET:
            field_dict["allow_non_restored_state"] = allow_non_restored_state
        if environment is not UNSET:
            field_dict["environment"] = environment

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.restore_from_request import RestoreFromRequest  # noqa: PLC0415

        d = dict(src_dict)
        _mode = d.pop("mode", UNSET)
        mode: RunStartModeEnum | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = RunStartModeEnum(_mode)

        version = d.pop("version", UNSET)

        def _parse_restore_from(data: object) -> None | RestoreFromRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                restore_from_type_1 = RestoreFromRequest.from_dict(data)

                return restore_from_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RestoreFromRequest | Unset, data)

        restore_from = _parse_restore_from(d.pop("restore_from", UNSET))

        allow_non_restored_state = d.pop("allow_non_restored_state", UNSET)

        environment = d.pop("environment", UNSET)

        run_start_request = cls(
            mode=mode,
            version=version,
            restore_from=restore_from,
            allow_non_restored_state=allow_non_restored_state,
            environment=environment,
        )

        run_start_request.additional_properties = d
        return run_start_request

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
