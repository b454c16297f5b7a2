from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.kafka_message_headers import KafkaMessageHeaders


T = TypeVar("T", bound="KafkaMessage")


@_attrs_define
class KafkaMessage:
    """
    Attributes:
        partition (int):
        offset (int):
        timestamp (int):
        key (None | str):
        headers (KafkaMessageHeaders):
        value (Any): Decoded as the source would (null: it does not decode).
        text (None | str):
    """

    partition: int
    offset: int
    timestamp: int
    key: None | str
    headers: KafkaMessageHeaders
    value: Any
    text: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        partition = self.partition

        offset = self.offset

        timestamp = self.timestamp

        key: None | str
        key = self.key

        headers = self.headers.to_dict()

        value = self.value

        text: None | str
        text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "partition": partition,
                "offset": offset,
                "timestamp": timestamp,
                "key": key,
                "headers": headers,
                "value": value,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kafka_message_headers import KafkaMessageHeaders  # noqa: PLC0415

        d = dict(src_dict)
        partition = d.pop("partition")

        offset = d.pop("offset")

        timestamp = d.pop("timestamp")

        def _parse_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        key = _parse_key(d.pop("key"))

        headers = KafkaMessageHeaders.from_dict(d.pop("headers"))

        value = d.pop("value")

        def _parse_text(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        text = _parse_text(d.pop("text"))

        kafka_message = cls(
            partition=partition,
            offset=offset,
            timestamp=timestamp,
            key=key,
            headers=headers,
            value=value,
            text=text,
        )

        kafka_message.additional_properties = d
        return kafka_message

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
