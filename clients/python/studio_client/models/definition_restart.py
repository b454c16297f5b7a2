from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.definition_restart_strategy import DefinitionRestartStrategy
from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionRestart")


@_attrs_define
class DefinitionRestart:
    """
    Attributes:
        strategy (DefinitionRestartStrategy | Unset):
        attempts (int | Unset):
        delay_ms (int | Unset):
    """

    strategy: DefinitionRestartStrategy | Unset = UNSET
    attempts: int | Unset = UNSET
    delay_ms: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        strategy: str | Unset = UNSET
        if not isinstance(self.strategy, Unset):
            strategy = self.strategy.value

        attempts = self.attempts

        delay_ms = self.delay_ms

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if strategy is not UNSET:
            field_dict["strategy"] = strategy
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if delay_ms is not UNSET:
            field_dict["delay_ms"] = delay_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _strategy = d.pop("strategy", UNSET)
        strategy: DefinitionRestartStrategy | Unset
        if isinstance(_strategy, Unset):
            strategy = UNSET
        else:
            strategy = DefinitionRestartStrategy(_strategy)

        attempts = d.pop("attempts", UNSET)

        delay_ms = d.pop("delay_ms", UNSET)

        definition_restart = cls(
            strategy=strategy,
            attempts=attempts,
            delay_ms=delay_ms,
        )

        return definition_restart
