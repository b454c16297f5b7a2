from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition_tests_item_mocks_additional_property_answers_item import (
        DefinitionTestsItemMocksAdditionalPropertyAnswersItem,
    )


T = TypeVar("T", bound="DefinitionTestsItemMocksAdditionalProperty")


@_attrs_define
class DefinitionTestsItemMocksAdditionalProperty:
    """
    Attributes:
        answers (list[DefinitionTestsItemMocksAdditionalPropertyAnswersItem] | Unset):
        expression (str | Unset):
    """

    answers: list[DefinitionTestsItemMocksAdditionalPropertyAnswersItem] | Unset = UNSET
    expression: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        answers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.answers, Unset):
            answers = []
            for answers_item_data in self.answers:
                answers_item = answers_item_data.to_dict()
                answers.append(answers_item)

        expression = self.expression

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if answers is not UNSET:
            field_dict["answers"] = answers
        if expression is not UNSET:
            field_dict["expression"] = expression

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_tests_item_mocks_additional_property_answers_item import (
            DefinitionTestsItemMocksAdditionalPropertyAnswersItem,  # noqa: PLC0415
        )

        d = dict(src_dict)
        _answers = d.pop("answers", UNSET)
        answers: list[DefinitionTestsItemMocksAdditionalPropertyAnswersItem] | Unset = UNSET
        if _answers is not UNSET:
            answers = []
            for answers_item_data in _answers:
                answers_item = DefinitionTestsItemMocksAdditionalPropertyAnswersItem.from_dict(answers_item_data)

                answers.append(answers_item)

        expression = d.pop("expression", UNSET)

        definition_tests_item_mocks_additional_property = cls(
            answers=answers,
            expression=expression,
        )

        return definition_tests_item_mocks_additional_property
