from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stage_enum import StageEnum

if TYPE_CHECKING:
    from ..models.connection_test_result_details import ConnectionTestResultDetails


T = TypeVar("T", bound="ConnectionTestResult")


@_attrs_define
class ConnectionTestResult:
    """
    Attributes:
        ok (bool):
        stage (StageEnum): * `grants` - grants
            * `connect` - connect
            * `done` - done
        message (str):
        elapsed_ms (int):
        details (ConnectionTestResultDetails):
    """

    ok: bool
    stage: StageEnum
    message: str
    elapsed_ms: int
    details: ConnectionTestResultDetails
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ok = self.ok

        stage = self.stage.value

        message = self.message

        elapsed_ms = self.elapsed_ms

        details = self.details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ok": ok,
                "stage": stage,
                "message": message,
                "elapsed_ms": elapsed_ms,
                "details": details,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connection_test_result_details import ConnectionTestResultDetails  # noqa: PLC0415

        d = dict(src_dict)
        ok = d.pop("ok")

        stage = StageEnum(d.pop("stage"))

        message = d.pop("message")

        elapsed_ms = d.pop("elapsed_ms")

        details = ConnectionTestResultDetails.from_dict(d.pop("details"))

        connection_test_result = cls(
            ok=ok,
            stage=stage,
            message=message,
            elapsed_ms=elapsed_ms,
            details=details,
        )

        connection_test_result.additional_properties = d
        return connection_test_result

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
