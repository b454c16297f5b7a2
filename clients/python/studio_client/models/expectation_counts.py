from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.expectation_counts_rules import ExpectationCountsRules


T = TypeVar("T", bound="ExpectationCounts")


@_attrs_define
class ExpectationCounts:
    """The counts of one checked node or edge, summed over its subtasks; continued exactly from the
    restored checkpoint after a restart.

        Attributes:
            records (int): Records checked.
            dropped (int): Records a drop rule held back (and no quarantine rule took).
            quarantined (int): Records sent to a quarantine port.
            rules (ExpectationCountsRules):
    """

    records: int
    dropped: int
    quarantined: int
    rules: ExpectationCountsRules
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        records = self.records

        dropped = self.dropped

        quarantined = self.quarantined

        rules = self.rules.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "records": records,
                "dropped": dropped,
                "quarantined": quarantined,
                "rules": rules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.expectation_counts_rules import ExpectationCountsRules  # noqa: PLC0415

        d = dict(src_dict)
        records = d.pop("records")

        dropped = d.pop("dropped")

        quarantined = d.pop("quarantined")

        rules = ExpectationCountsRules.from_dict(d.pop("rules"))

        expectation_counts = cls(
            records=records,
            dropped=dropped,
            quarantined=quarantined,
            rules=rules,
        )

        expectation_counts.additional_properties = d
        return expectation_counts

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
