from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DefinitionTestsItemMocksAdditionalPropertyAnswersItem")


@_attrs_define
class DefinitionTestsItemMocksAdditionalPropertyAnswersItem:
    """
    Attributes:
        request (Any):
        answer (Any | Unset):
        error (str | Unset):
        delay_ms (int | Unset):
    """

    request: Any
    answer: Any | Unset = UNSET
    error: str | Unset = UNSET
    delay_ms: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        request = self.request

        answer = self.answer

        error = self.error

        delay_ms = self.delay_ms

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "request": request,
            }
        )
        if answer is not UNSET:
            field_dict["answer"] = answer
        if error is not UNSET:
            field_dict["error"] = error
        if delay_ms is not UNSET:
            field_dict["delay_ms"] = delay_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        request = d.pop("request")

        answer = d.pop("answer", UNSET)

        error = d.pop("error", UNSET)

        delay_ms = d.pop("delay_ms", UNSET)

        definition_tests_item_mocks_additional_property_answers_item = cls(
            request=request,
            answer=answer,
            error=error,
            delay_ms=delay_ms,
        )

        return definition_tests_item_mocks_additional_property_answers_item
