from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StateCompatibility")


@_attrs_define
class StateCompatibility:
    """
    Attributes:
        from_ (int):
        to (int):
        compatible (bool): False when a stateful node changed its operator type.
        needs_allow_non_restored_state (bool):
        kept (list[str]):
        dropped (list[str]):
        added (list[str]):
        changed_type (list[str]):
        message (str):
    """

    from_: int
    to: int
    compatible: bool
    needs_allow_non_restored_state: bool
    kept: list[str]
    dropped: list[str]
    added: list[str]
    changed_type: list[str]
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        compatible = self.compatible

        needs_allow_non_restored_state = self.needs_allow_non_restored_state

        kept = self.kept

        dropped = self.dropped

        added = self.added

        changed_type = self.changed_type

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "to": to,
                "compatible": compatible,
                "needs_allow_non_restored_state": needs_allow_non_restored_state,
                "kept": kept,
                "dropped": dropped,
                "added": added,
                "changed_type": changed_type,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        compatible = d.pop("compatible")

        needs_allow_non_restored_state = d.pop("needs_allow_non_restored_state")

        kept = cast(list[str], d.pop("kept"))

        dropped = cast(list[str], d.pop("dropped"))

        added = cast(list[str], d.pop("added"))

        changed_type = cast(list[str], d.pop("changed_type"))

        message = d.pop("message")

        state_compatibility = cls(
            from_=from_,
            to=to,
            compatible=compatible,
            needs_allow_non_restored_state=needs_allow_non_restored_state,
            kept=kept,
            dropped=dropped,
            added=added,
            changed_type=changed_type,
            message=message,
        )

        state_compatibility.additional_properties = d
        return state_compatibility

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
