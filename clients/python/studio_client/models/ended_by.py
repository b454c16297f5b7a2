from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.how_enum import HowEnum

T = TypeVar("T", bound="EndedBy")


@_attrs_define
class EndedBy:
    """
    Attributes:
        how (HowEnum): * `rescale` - rescale
            * `upgrade` - upgrade
            * `restart` - restart
            * `stop` - stop
            * `cancel` - cancel
            * `failure` - failure
            * `end_of_input` - end_of_input
        continued_as (int | None): The run the job goes on as.
        detail (str): "parallelism 1 -> 2", "v3 -> v4", the failure's first line, or empty.
    """

    how: HowEnum
    continued_as: int | None
    detail: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        how = self.how.value

        continued_as: int | None
        continued_as = self.continued_as

        detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "how": how,
                "continued_as": continued_as,
                "detail": detail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        how = HowEnum(d.pop("how"))

        def _parse_continued_as(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        continued_as = _parse_continued_as(d.pop("continued_as"))

        detail = d.pop("detail")

        ended_by = cls(
            how=how,
            continued_as=continued_as,
            detail=detail,
        )

        ended_by.additional_properties = d
        return ended_by

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
