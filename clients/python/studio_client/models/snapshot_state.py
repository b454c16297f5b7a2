from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.operator_state import OperatorState


T = TypeVar("T", bound="SnapshotState")


@_attrs_define
class SnapshotState:
    """
    Attributes:
        checkpoint_id (int):
        kind (str):
        completed_timestamp (int | None):
        operators (list[OperatorState]):
    """

    checkpoint_id: int
    kind: str
    completed_timestamp: int | None
    operators: list[OperatorState]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        kind = self.kind

        completed_timestamp: int | None
        completed_timestamp = self.completed_timestamp

        operators = []
        for operators_item_data in self.operators:
            operators_item = operators_item_data.to_dict()
            operators.append(operators_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
                "kind": kind,
                "completed_timestamp": completed_timestamp,
                "operators": operators,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operator_state import OperatorState  # noqa: PLC0415

        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        kind = d.pop("kind")

        def _parse_completed_timestamp(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        completed_timestamp = _parse_completed_timestamp(d.pop("completed_timestamp"))

        operators = []
        _operators = d.pop("operators")
        for operators_item_data in _operators:
            operators_item = OperatorState.from_dict(operators_item_data)

            operators.append(operators_item)

        snapshot_state = cls(
            checkpoint_id=checkpoint_id,
            kind=kind,
            completed_timestamp=completed_timestamp,
            operators=operators,
        )

        snapshot_state.additional_properties = d
        return snapshot_state

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
