from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.operator_state_list_states import OperatorStateListStates


T = TypeVar("T", bound="OperatorState")


@_attrs_define
class OperatorState:
    """
    Attributes:
        node (str):
        type_ (None | str):
        vertex (None | str):
        parallelism (int):
        max_parallelism (int | None):
        finished (list[int]): Subtasks that had finished.
        keyed (bool):
        list_states (OperatorStateListStates): Operator (list) states: elements per state name.
        coordinator (bool): A split enumerator's state is part of it.
        state_file_bytes (int):
        kind (str): The kind of state: keyed value/map/list, window panes and timers, join buffers, deduplication TTLs,
            source splits, pending transactions.
        rows (int):
        bytes_ (int): Bytes of the rows' state as JSON.
    """

    node: str
    type_: None | str
    vertex: None | str
    parallelism: int
    max_parallelism: int | None
    finished: list[int]
    keyed: bool
    list_states: OperatorStateListStates
    coordinator: bool
    state_file_bytes: int
    kind: str
    rows: int
    bytes_: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        type_: None | str
        type_ = self.type_

        vertex: None | str
        vertex = self.vertex

        parallelism = self.parallelism

        max_parallelism: int | None
        max_parallelism = self.max_parallelism

        finished = self.finished

        keyed = self.keyed

        list_states = self.list_states.to_dict()

        coordinator = self.coordinator

        state_file_bytes = self.state_file_bytes

        kind = self.kind

        rows = self.rows

        bytes_ = self.bytes_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "type": type_,
                "vertex": vertex,
                "parallelism": parallelism,
                "max_parallelism": max_parallelism,
                "finished": finished,
                "keyed": keyed,
                "list_states": list_states,
                "coordinator": coordinator,
                "state_file_bytes": state_file_bytes,
                "kind": kind,
                "rows": rows,
                "bytes": bytes_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operator_state_list_states import OperatorStateListStates  # noqa: PLC0415

        d = dict(src_dict)
        node = d.pop("node")

        def _parse_type_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        type_ = _parse_type_(d.pop("type"))

        def _parse_vertex(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vertex = _parse_vertex(d.pop("vertex"))

        parallelism = d.pop("parallelism")

        def _parse_max_parallelism(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        max_parallelism = _parse_max_parallelism(d.pop("max_parallelism"))

        finished = cast(list[int], d.pop("finished"))

        keyed = d.pop("keyed")

        list_states = OperatorStateListStates.from_dict(d.pop("list_states"))

        coordinator = d.pop("coordinator")

        state_file_bytes = d.pop("state_file_bytes")

        kind = d.pop("kind")

        rows = d.pop("rows")

        bytes_ = d.pop("bytes")

        operator_state = cls(
            node=node,
            type_=type_,
            vertex=vertex,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            finished=finished,
            keyed=keyed,
            list_states=list_states,
            coordinator=coordinator,
            state_file_bytes=state_file_bytes,
            kind=kind,
            rows=rows,
            bytes_=bytes_,
        )

        operator_state.additional_properties = d
        return operator_state

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
