from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.connection_kind_enum import ConnectionKindEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="ConnectionTestRequestRequest")


@_attrs_define
class ConnectionTestRequestRequest:
    """
    Attributes:
        kind (ConnectionKindEnum): * `kafka` - Kafka cluster (host:port,host:port)
            * `postgres` - PostgreSQL database (postgresql://user@host:port/database)
            * `redis` - Redis server (redis://host:port/db)
        address (str):
        password (str | Unset):
    """

    kind: ConnectionKindEnum
    address: str
    password: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        address = self.address

        password = self.password

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "address": address,
            }
        )
        if password is not UNSET:
            field_dict["password"] = password

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = ConnectionKindEnum(d.pop("kind"))

        address = d.pop("address")

        password = d.pop("password", UNSET)

        connection_test_request_request = cls(
            kind=kind,
            address=address,
            password=password,
        )

        connection_test_request_request.additional_properties = d
        return connection_test_request_request

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
