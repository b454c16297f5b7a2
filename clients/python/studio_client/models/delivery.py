from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status_enum import DeliveryStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt import Attempt


T = TypeVar("T", bound="Delivery")


@_attrs_define
class Delivery:
    """
    Attributes:
        id (int):
        rule (int):
        url (str):
        attempts (list[Attempt]):
        created_at (datetime.datetime):
        payload (Any | Unset):
        status (DeliveryStatusEnum | Unset): * `PENDING` - Pending
            * `DELIVERED` - Delivered
            * `FAILED` - Failed
        delivered_at (datetime.datetime | None | Unset):
    """

    id: int
    rule: int
    url: str
    attempts: list[Attempt]
    created_at: datetime.datetime
    payload: Any | Unset = UNSET
    status: DeliveryStatusEnum | Unset = UNSET
    delivered_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        rule = self.rule

        url = self.url

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        created_at = self.created_at.isoformat()

        payload = self.payload

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        delivered_at: None | str | Unset
        if isinstance(self.delivered_at, Unset):
            delivered_at = UNSET
        elif isinstance(self.delivered_at, datetime.datetime):
            delivered_at = self.delivered_at.isoformat()
        else:
            delivered_at = self.delivered_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "rule": rule,
                "url": url,
                "attempts": attempts,
                "created_at": created_at,
            }
        )
        if payload is not UNSET:
            field_dict["payload"] = payload
        if status is not UNSET:
            field_dict["status"] = status
        if delivered_at is not UNSET:
            field_dict["delivered_at"] = delivered_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt import Attempt  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        rule = d.pop("rule")

        url = d.pop("url")

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = Attempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        payload = d.pop("payload", UNSET)

        _status = d.pop("status", UNSET)
        status: DeliveryStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = DeliveryStatusEnum(_status)

        def _parse_delivered_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delivered_at_type_0 = datetime.datetime.fromisoformat(data)

                return delivered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at", UNSET))

        delivery = cls(
            id=id,
            rule=rule,
            url=url,
            attempts=attempts,
            created_at=created_at,
            payload=payload,
            status=status,
            delivered_at=delivered_at,
        )

        delivery.additional_properties = d
        return delivery

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
