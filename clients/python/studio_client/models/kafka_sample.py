from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.inferred_field import InferredField
    from ..models.kafka_message import KafkaMessage


T = TypeVar("T", bound="KafkaSample")


@_attrs_define
class KafkaSample:
    """
    Attributes:
        topic (str):
        emit (str):
        messages (list[KafkaMessage]):
        fields (list[InferredField]):
    """

    topic: str
    emit: str
    messages: list[KafkaMessage]
    fields: list[InferredField]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        topic = self.topic

        emit = self.emit

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        fields = []
        for fields_item_data in self.fields:
            fields_item = fields_item_data.to_dict()
            fields.append(fields_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "topic": topic,
                "emit": emit,
                "messages": messages,
                "fields": fields,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.inferred_field import InferredField  # noqa: PLC0415
        from ..models.kafka_message import KafkaMessage  # noqa: PLC0415

        d = dict(src_dict)
        topic = d.pop("topic")

        emit = d.pop("emit")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = KafkaMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        fields = []
        _fields = d.pop("fields")
        for fields_item_data in _fields:
            fields_item = InferredField.from_dict(fields_item_data)

            fields.append(fields_item)

        kafka_sample = cls(
            topic=topic,
            emit=emit,
            messages=messages,
            fields=fields,
        )

        kafka_sample.additional_properties = d
        return kafka_sample

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
