from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.statistic import Statistic


T = TypeVar("T", bound="CheckpointSummary")


@_attrs_define
class CheckpointSummary:
    """
    Attributes:
        end_to_end_duration (Statistic):
        state_size (Statistic):
        alignment_duration (Statistic):
        persisted_data (Statistic):
    """

    end_to_end_duration: Statistic
    state_size: Statistic
    alignment_duration: Statistic
    persisted_data: Statistic
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        end_to_end_duration = self.end_to_end_duration.to_dict()

        state_size = self.state_size.to_dict()

        alignment_duration = self.alignment_duration.to_dict()

        persisted_data = self.persisted_data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "end_to_end_duration": end_to_end_duration,
                "state_size": state_size,
                "alignment_duration": alignment_duration,
                "persisted_data": persisted_data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.statistic import Statistic  # noqa: PLC0415

        d = dict(src_dict)
        end_to_end_duration = Statistic.from_dict(d.pop("end_to_end_duration"))

        state_size = Statistic.from_dict(d.pop("state_size"))

        alignment_duration = Statistic.from_dict(d.pop("alignment_duration"))

        persisted_data = Statistic.from_dict(d.pop("persisted_data"))

        checkpoint_summary = cls(
            end_to_end_duration=end_to_end_duration,
            state_size=state_size,
            alignment_duration=alignment_duration,
            persisted_data=persisted_data,
        )

        checkpoint_summary.additional_properties = d
        return checkpoint_summary

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
