from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="InferredField")


@_attrs_define
class InferredField:
    """
    Attributes:
        path (str): The field as an expression over the record x.
        types (list[str]):
        present (int): In how many of the sampled records it is.
        example (None | str):
    """

    path: str
    types: list[str]
    present: int
    example: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        types = self.types

        present = self.present

        example: None | str
        example = self.example

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "path": path,
                "types": types,
                "present": present,
                "example": example,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        path = d.pop("path")

        types = cast(list[str], d.pop("types"))

        present = d.pop("present")

        def _parse_example(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        example = _parse_example(d.pop("example"))

        inferred_field = cls(
            path=path,
            types=types,
            present=present,
            example=example,
        )

        inferred_field.additional_properties = d
        return inferred_field

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
