from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.kafka_partition import KafkaPartition


T = TypeVar("T", bound="KafkaTopic")


@_attrs_define
class KafkaTopic:
    """
    Attributes:
        topic (str):
        partitions (list[KafkaPartition]):
        messages (int): Latest minus earliest offsets, over the partitions.
    """

    topic: str
    partitions: list[KafkaPartition]
    messages: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        topic = self.topic

        partitions = []
        for partitions_item_data in self.partitions:
            partitions_item = partitions_item_data.to_dict()
            partitions.append(partitions_item)

        messages = self.messages

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "topic": topic,
                "partitions": partitions,
                "messages": messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kafka_partition import KafkaPartition  # noqa: PLC0415

        d = dict(src_dict)
        topic = d.pop("topic")

        partitions = []
        _partitions = d.pop("partitions")
        for partitions_item_data in _partitions:
            partitions_item = KafkaPartition.from_dict(partitions_item_data)

            partitions.append(partitions_item)

        messages = d.pop("messages")

        kafka_topic = cls(
            topic=topic,
            partitions=partitions,
            messages=messages,
        )

        kafka_topic.additional_properties = d
        return kafka_topic

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
