from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.definition_edges_item_exchange import DefinitionEdgesItemExchange
from ..models.definition_edges_item_partitioning import DefinitionEdgesItemPartitioning
from ..models.definition_edges_item_side import DefinitionEdgesItemSide
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition_edges_item_expectations_item import DefinitionEdgesItemExpectationsItem
    from ..models.definition_edges_item_ui import DefinitionEdgesItemUi


T = TypeVar("T", bound="DefinitionEdgesItem")


@_attrs_define
class DefinitionEdgesItem:
    """
    Attributes:
        id (str):
        from_ (str):
        to (str):
        from_port (None | str | Unset):
        partitioning (DefinitionEdgesItemPartitioning | Unset):
        key (None | str | Unset):
        exchange (DefinitionEdgesItemExchange | Unset):
        side (DefinitionEdgesItemSide | Unset):
        ui (DefinitionEdgesItemUi | Unset):
        expectations (list[DefinitionEdgesItemExpectationsItem] | Unset):
    """

    id: str
    from_: str
    to: str
    from_port: None | str | Unset = UNSET
    partitioning: DefinitionEdgesItemPartitioning | Unset = UNSET
    key: None | str | Unset = UNSET
    exchange: DefinitionEdgesItemExchange | Unset = UNSET
    side: DefinitionEdgesItemSide | Unset = UNSET
    ui: DefinitionEdgesItemUi | Unset = UNSET
    expectations: list[DefinitionEdgesItemExpectationsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        from_ = self.from_

        to = self.to

        from_port: None | str | Unset
        if isinstance(self.from_port, Unset):
            from_port = UNSET
        else:
            from_port = self.from_port

        partitioning: str | Unset = UNSET
        if not isinstance(self.partitioning, Unset):
            partitioning = self.partitioning.value

        key: None | str | Unset
        if isinstance(self.key, Unset):
            key = UNSET
        else:
            key = self.key

        exchange: str | Unset = UNSET
        if not isinstance(self.exchange, Unset):
            exchange = self.exchange.value

        side: str | Unset = UNSET
        if not isinstance(self.side, Unset):
            side = self.side.value

        ui: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ui, Unset):
            ui = self.ui.to_dict()

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
                "from": from_,
                "to": to,
            }
        )
        if from_port is not UNSET:
            field_dict["from_port"] = from_port
        if partitioning is not UNSET:
            field_dict["partitioning"] = partitioning
        if key is not UNSET:
            field_dict["key"] = key
        if exchange is not UNSET:
            field_dict["exchange"] = exchange
        if side is not UNSET:
            field_dict["side"] = side
        if ui is not UNSET:
            field_dict["ui"] = ui
        if expectations is not UNSET:
            field_dict["expectations"] = expectations

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_edges_item_expectations_item import DefinitionEdgesItemExpectationsItem  # noqa: PLC0415
        from ..models.definition_edges_item_ui import DefinitionEdgesItemUi  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        from_ = d.pop("from")

        to = d.pop("to")

        def _parse_from_port(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_port = _parse_from_port(d.pop("from_port", UNSET))

        _partitioning = d.pop("partitioning", UNSET)
        partitioning: DefinitionEdgesItemPartitioning | Unset
        if isinstance(_partitioning, Unset):
            partitioning = UNSET
        else:
            partitioning = DefinitionEdgesItemPartitioning(_partitioning)

        def _parse_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key = _parse_key(d.pop("key", UNSET))

        _exchange = d.pop("exchange", UNSET)
        exchange: DefinitionEdgesItemExchange | Unset
        if isinstance(_exchange, Unset):
            exchange = UNSET
        else:
            exchange = DefinitionEdgesItemExchange(_exchange)

        _side = d.pop("side", UNSET)
        side: DefinitionEdgesItemSide | Unset
        if isinstance(_side, Unset):
            side = UNSET
        else:
            side = DefinitionEdgesItemSide(_side)

        _ui = d.pop("ui", UNSET)
        ui: DefinitionEdgesItemUi | Unset
        if isinstance(_ui, Unset):
            ui = UNSET
        else:
            ui = DefinitionEdgesItemUi.from_dict(_ui)

        _expectations = d.pop("expectations", UNSET)
        expectations: list[DefinitionEdgesItemExpectationsItem] | Unset = UNSET
        if _expectations is not UNSET:
            expectations = []
            for expectations_item_data in _expectations:
                expectations_item = DefinitionEdgesItemExpectationsItem.from_dict(expectations_item_data)

                expectations.append(expectations_item)

        definition_edges_item = cls(
            id=id,
            from_=from_,
            to=to,
            from_port=from_port,
            partitioning=partitioning,
            key=key,
            exchange=exchange,
            side=side,
            ui=ui,
            expectations=expectations,
        )

        return definition_edges_item
