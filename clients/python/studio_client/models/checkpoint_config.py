from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checkpoint_config_mode_enum import CheckpointConfigModeEnum

if TYPE_CHECKING:
    from ..models.checkpoint_config_externalization import CheckpointConfigExternalization
    from ..models.checkpoint_config_settings import CheckpointConfigSettings


T = TypeVar("T", bound="CheckpointConfig")


@_attrs_define
class CheckpointConfig:
    """
    Attributes:
        enabled (bool):
        mode (CheckpointConfigModeEnum): * `exactly_once` - exactly_once
            * `at_least_once` - at_least_once
        interval (int): ms
        timeout (int): ms
        min_pause (int): ms
        max_concurrent (int):
        tolerable_failed_checkpoints (int):
        unaligned_checkpoints (bool):
        aligned_checkpoint_timeout (int): ms
        retained_checkpoints (int):
        checkpoints_after_tasks_finish (bool):
        checkpoint_storage (str):
        externalization (CheckpointConfigExternalization):
        settings (CheckpointConfigSettings): The definition's checkpointing section with defaults filled in.
    """

    enabled: bool
    mode: CheckpointConfigModeEnum
    interval: int
    timeout: int
    min_pause: int
    max_concurrent: int
    tolerable_failed_checkpoints: int
    unaligned_checkpoints: bool
    aligned_checkpoint_timeout: int
    retained_checkpoints: int
    checkpoints_after_tasks_finish: bool
    checkpoint_storage: str
    externalization: CheckpointConfigExternalization
    settings: CheckpointConfigSettings
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        mode = self.mode.value

        interval = self.interval

        timeout = self.timeout

        min_pause = self.min_pause

        max_concurrent = self.max_concurrent

        tolerable_failed_checkpoints = self.tolerable_failed_checkpoints

        unaligned_checkpoints = self.unaligned_checkpoints

        aligned_checkpoint_timeout = self.aligned_checkpoint_timeout

        retained_checkpoints = self.retained_checkpoints

        checkpoints_after_tasks_finish = self.checkpoints_after_tasks_finish

        checkpoint_storage = self.checkpoint_storage

        externalization = self.externalization.to_dict()

        settings = self.settings.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "mode": mode,
                "interval": interval,
                "timeout": timeout,
                "min_pause": min_pause,
                "max_concurrent": max_concurrent,
                "tolerable_failed_checkpoints": tolerable_failed_checkpoints,
                "unaligned_checkpoints": unaligned_checkpoints,
                "aligned_checkpoint_timeout": aligned_checkpoint_timeout,
                "retained_checkpoints": retained_checkpoints,
                "checkpoints_after_tasks_finish": checkpoints_after_tasks_finish,
                "checkpoint_storage": checkpoint_storage,
                "externalization": externalization,
                "settings": settings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_config_externalization import CheckpointConfigExternalization  # noqa: PLC0415
        from ..models.checkpoint_config_settings import CheckpointConfigSettings  # noqa: PLC0415

        d = dict(src_dict)
        enabled = d.pop("enabled")

        mode = CheckpointConfigModeEnum(d.pop("mode"))

        interval = d.pop("interval")

        timeout = d.pop("timeout")

        min_pause = d.pop("min_pause")

        max_concurrent = d.pop("max_concurrent")

        tolerable_failed_checkpoints = d.pop("tolerable_failed_checkpoints")

        unaligned_checkpoints = d.pop("unaligned_checkpoints")

        aligned_checkpoint_timeout = d.pop("aligned_checkpoint_timeout")

        retained_checkpoints = d.pop("retained_checkpoints")

        checkpoints_after_tasks_finish = d.pop("checkpoints_after_tasks_finish")

        checkpoint_storage = d.pop("checkpoint_storage")

        externalization = CheckpointConfigExternalization.from_dict(d.pop("externalization"))

        settings = CheckpointConfigSettings.from_dict(d.pop("settings"))

        checkpoint_config = cls(
            enabled=enabled,
            mode=mode,
            interval=interval,
            timeout=timeout,
            min_pause=min_pause,
            max_concurrent=max_concurrent,
            tolerable_failed_checkpoints=tolerable_failed_checkpoints,
            unaligned_checkpoints=unaligned_checkpoints,
            aligned_checkpoint_timeout=aligned_checkpoint_timeout,
            retained_checkpoints=retained_checkpoints,
            checkpoints_after_tasks_finish=checkpoints_after_tasks_finish,
            checkpoint_storage=checkpoint_storage,
            externalization=externalization,
            settings=settings,
        )

        checkpoint_config.additional_properties = d
        return checkpoint_config

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
