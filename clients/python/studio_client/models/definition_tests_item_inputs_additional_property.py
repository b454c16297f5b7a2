from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionTestsItemInputsAdditionalProperty")


@_attrs_define
class DefinitionTestsItemInputsAdditionalProperty:
    """
    Attributes:
        rows (list[Any] | Unset):
        file (str | Unset):
        timestamp (str | Unset):
    """

    rows: list[Any] | Unset = UNSET
    file: str | Unset = UNSET
    timestamp: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        rows: list[Any] | Unset = UNSET
        if not isinstance(self.rows, Unset):
            rows = self.rows

        file = self.file

        timestamp = self.timestamp

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if rows is not UNSET:
            field_dict["rows"] = rows
        if file is not UNSET:
            field_dict["file"] = file
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rows = cast(list[Any], d.pop("rows", UNSET))

        file = d.pop("file", UNSET)

        timestamp = d.pop("timestamp", UNSET)

        definition_tests_item_inputs_additional_property = cls(
            rows=rows,
            file=file,
            timestamp=timestamp,
        )

        return definition_tests_item_inputs_additional_property
