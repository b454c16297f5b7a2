from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition_nodes_item_expectations_item import DefinitionNodesItemExpectationsItem
    from ..models.definition_nodes_item_params import DefinitionNodesItemParams
    from ..models.definition_nodes_item_ui import DefinitionNodesItemUi


T = TypeVar("T", bound="DefinitionNodesItem")


@_attrs_define
class DefinitionNodesItem:
    """
    Attributes:
        id (str):
        type_ (str):
        params (DefinitionNodesItemParams | Unset):
        parallelism (int | Unset):
        ui (DefinitionNodesItemUi | Unset):
        name (str | Unset):
        restore_state_of (str | Unset):
        expectations (list[DefinitionNodesItemExpectationsItem] | Unset):
    """

    id: str
    type_: str
    params: DefinitionNodesItemParams | Unset = UNSET
    parallelism: int | Unset = UNSET
    ui: DefinitionNodesItemUi | Unset = UNSET
    name: str | Unset = UNSET
    restore_state_of: str | Unset = UNSET
    expectations: list[DefinitionNodesItemExpectationsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        parallelism = self.parallelism

        ui: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ui, Unset):
            ui = self.ui.to_dict()

        name = self.name

        restore_state_of = self.restore_state_of

        expectations: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.expectations, Unset):
            expectations = []
            for expectations_item_data in self.expectations:
                expectations_item = expectations_item_data.to_dict()
                expectations.append(expectations_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "type": type_,
            }
        )
        if params is not UNSET:
            field_dict["params"] = params
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism
        if ui is not UNSET:
            field_dict["ui"] = ui
        if name is not UNSET:
            field_dict["name"] = name
        if restore_state_of is not UNSET:
            field_dict["restore_state_of"] = restore_state_of
        if expectations is not UNSET:
            field_dict["expectations"] = expectations

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_nodes_item_expectations_item import DefinitionNodesItemExpectationsItem  # noqa: PLC0415
        from ..models.definition_nodes_item_params import DefinitionNodesItemParams  # noqa: PLC0415
        from ..models.definition_nodes_item_ui import DefinitionNodesItemUi  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        _params = d.pop("params", UNSET)
        params: DefinitionNodesItemParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = DefinitionNodesItemParams.from_dict(_params)

        parallelism = d.pop("parallelism", UNSET)

        _ui = d.pop("ui", UNSET)
        ui: DefinitionNodesItemUi | Unset
        if isinstance(_ui, Unset):
            ui = UNSET
        else:
            ui = DefinitionNodesItemUi.from_dict(_ui)

        name = d.pop("name", UNSET)

        restore_state_of = d.pop("restore_state_of", UNSET)

        _expectations = d.pop("expectations", UNSET)
        expectations: list[DefinitionNodesItemExpectationsItem] | Unset = UNSET
        if _expectations is not UNSET:
            expectations = []
            for expectations_item_data in _expectations:
                expectations_item = DefinitionNodesItemExpectationsItem.from_dict(expectations_item_data)

                expectations.append(expectations_item)

        definition_nodes_item = cls(
            id=id,
            type_=type_,
            params=params,
            parallelism=parallelism,
            ui=ui,
            name=name,
            restore_state_of=restore_state_of,
            expectations=expectations,
        )

        return definition_nodes_item
