from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.definition_tests_item_modes_item import DefinitionTestsItemModesItem
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition_tests_item_assertions_item import DefinitionTestsItemAssertionsItem
    from ..models.definition_tests_item_inputs import DefinitionTestsItemInputs
    from ..models.definition_tests_item_mocks import DefinitionTestsItemMocks


T = TypeVar("T", bound="DefinitionTestsItem")


@_attrs_define
class DefinitionTestsItem:
    """
    Attributes:
        name (str):
        description (str | Unset):
        modes (list[DefinitionTestsItemModesItem] | Unset):
        inputs (DefinitionTestsItemInputs | Unset):
        mocks (DefinitionTestsItemMocks | Unset):
        assertions (list[DefinitionTestsItemAssertionsItem] | Unset):
    """

    name: str
    description: str | Unset = UNSET
    modes: list[DefinitionTestsItemModesItem] | Unset = UNSET
    inputs: DefinitionTestsItemInputs | Unset = UNSET
    mocks: DefinitionTestsItemMocks | Unset = UNSET
    assertions: list[DefinitionTestsItemAssertionsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description = self.description

        modes: list[str] | Unset = UNSET
        if not isinstance(self.modes, Unset):
            modes = []
            for modes_item_data in self.modes:
                modes_item = modes_item_data.value
                modes.append(modes_item)

        inputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inputs, Unset):
            inputs = self.inputs.to_dict()

        mocks: dict[str, Any] | Unset = UNSET
        if not isinstance(self.mocks, Unset):
            mocks = self.mocks.to_dict()

        assertions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.assertions, Unset):
            assertions = []
            for assertions_item_data in self.assertions:
                assertions_item = assertions_item_data.to_dict()
                assertions.append(assertions_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if modes is not UNSET:
            field_dict["modes"] = modes
        if inputs is not UNSET:
            field_dict["inputs"] = inputs
        if mocks is not UNSET:
            field_dict["mocks"] = mocks
        if assertions is not UNSET:
            field_dict["assertions"] = assertions

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_tests_item_assertions_item import DefinitionTestsItemAssertionsItem  # noqa: PLC0415
        from ..models.definition_tests_item_inputs import DefinitionTestsItemInputs  # noqa: PLC0415
        from ..models.definition_tests_item_mocks import DefinitionTestsItemMocks  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        description = d.pop("description", UNSET)

        _modes = d.pop("modes", UNSET)
        modes: list[DefinitionTestsItemModesItem] | Unset = UNSET
        if _modes is not UNSET:
            modes = []
            for modes_item_data in _modes:
                modes_item = DefinitionTestsItemModesItem(modes_item_data)

                modes.append(modes_item)

        _inputs = d.pop("inputs", UNSET)
        inputs: DefinitionTestsItemInputs | Unset
        if isinstance(_inputs, Unset):
            inputs = UNSET
        else:
            inputs = DefinitionTestsItemInputs.from_dict(_inputs)

        _mocks = d.pop("mocks", UNSET)
        mocks: DefinitionTestsItemMocks | Unset
        if isinstance(_mocks, Unset):
            mocks = UNSET
        else:
            mocks = DefinitionTestsItemMocks.from_dict(_mocks)

        _assertions = d.pop("assertions", UNSET)
        assertions: list[DefinitionTestsItemAssertionsItem] | Unset = UNSET
        if _assertions is not UNSET:
            assertions = []
            for assertions_item_data in _assertions:
                assertions_item = DefinitionTestsItemAssertionsItem.from_dict(assertions_item_data)

                assertions.append(assertions_item)

        definition_tests_item = cls(
            name=name,
            description=description,
            modes=modes,
            inputs=inputs,
            mocks=mocks,
            assertions=assertions,
        )

        return definition_tests_item
