from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="KafkaPartition")


@_attrs_define
class KafkaPartition:
    """
    Attributes:
        partition (int):
        earliest (int):
        latest (int):
    """

    partition: int
    earliest: int
    latest: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        partition = self.partition

        earliest = self.earliest

        latest = self.latest

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "partition": partition,
                "earliest": earliest,
                "latest": latest,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        partition = d.pop("partition")

        earliest = d.pop("earliest")

        latest = d.pop("latest")

        kafka_partition = cls(
            partition=partition,
            earliest=earliest,
            latest=latest,
        )

        kafka_partition.additional_properties = d
        return kafka_partition

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
