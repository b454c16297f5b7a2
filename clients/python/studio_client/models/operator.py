from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_time_enum import EventTimeEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.operator_output_ports_item import OperatorOutputPortsItem
    from ..models.operator_params_schema import OperatorParamsSchema


T = TypeVar("T", bound="Operator")


@_attrs_define
class Operator:
    """One operator type of the catalog (``engine.spec.catalog``).

    Attributes:
        type_ (str):
        category (str):
        title (str):
        description (str):
        inputs (Any): How many inputs: 0, 1 or "many".
        outputs (int):
        source (bool):
        sink (bool):
        keyed (bool):
        stateful (bool):
        params_schema (OperatorParamsSchema): The JSON Schema of the operator's params.
        output_ports (list[OperatorOutputPortsItem]): Named output ports besides the main output, [{"name",
            "description"}]: an edge leaves one with "from_port" (event-time windows: "late").
        event_time (EventTimeEnum | None): "needs": every input must carry event time (a watermark operator upstream, or
            a source that assigns it); "assigns": the operator stamps its records with event time; null: neither. A
            parameter whose schema has "x-event-time" does the same while it is set (a state TTL needs event time, a Kafka
            source with watermarks assigns it).

            * `needs` - needs
            * `assigns` - assigns
        input_sides (list[str] | Unset): Named inputs of a two-input operator (joins: ["left", "right"]); an edge into
            one says which it feeds with "side". Absent for operators with one kind of input.
    """

    type_: str
    category: str
    title: str
    description: str
    inputs: Any
    outputs: int
    source: bool
    sink: bool
    keyed: bool
    stateful: bool
    params_schema: OperatorParamsSchema
    output_ports: list[OperatorOutputPortsItem]
    event_time: EventTimeEnum | None
    input_sides: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        category = self.category

        title = self.title

        description = self.description

        inputs = self.inputs

        outputs = self.outputs

        source = self.source

        sink = self.sink

        keyed = self.keyed

        stateful = self.stateful

        params_schema = self.params_schema.to_dict()

        output_ports = []
        for output_ports_item_data in self.output_ports:
            output_ports_item = output_ports_item_data.to_dict()
            output_ports.append(output_ports_item)

        event_time: None | str
        if isinstance(self.event_time, EventTimeEnum):
            event_time = self.event_time.value
        else:
            event_time = self.event_time

        input_sides: list[str] | Unset = UNSET
        if not isinstance(self.input_sides, Unset):
            input_sides = self.input_sides

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "category": category,
                "title": title,
                "description": description,
                "inputs": inputs,
                "outputs": outputs,
                "source": source,
                "sink": sink,
                "keyed": keyed,
                "stateful": stateful,
                "params_schema": params_schema,
                "output_ports": output_ports,
                "event_time": event_time,
            }
        )
        if input_sides is not UNSET:
            field_dict["input_sides"] = input_sides

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operator_output_ports_item import OperatorOutputPortsItem  # noqa: PLC0415
        from ..models.operator_params_schema import OperatorParamsSchema  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        category = d.pop("category")

        title = d.pop("title")

        description = d.pop("description")

        inputs = d.pop("inputs")

        outputs = d.pop("outputs")

        source = d.pop("source")

        sink = d.pop("sink")

        keyed = d.pop("keyed")

        stateful = d.pop("stateful")

        params_schema = OperatorParamsSchema.from_dict(d.pop("params_schema"))

        output_ports = []
        _output_ports = d.pop("output_ports")
        for output_ports_item_data in _output_ports:
            output_ports_item = OperatorOutputPortsItem.from_dict(output_ports_item_data)

            output_ports.append(output_ports_item)

        def _parse_event_time(data: object) -> EventTimeEnum | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                event_time_type_0 = EventTimeEnum(data)

                return event_time_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventTimeEnum | None, data)

        event_time = _parse_event_time(d.pop("event_time"))

        input_sides = cast(list[str], d.pop("input_sides", UNSET))

        operator = cls(
            type_=type_,
            category=category,
            title=title,
            description=description,
            inputs=inputs,
            outputs=outputs,
            source=source,
            sink=sink,
            keyed=keyed,
            stateful=stateful,
            params_schema=params_schema,
            output_ports=output_ports,
            event_time=event_time,
            input_sides=input_sides,
        )

        operator.additional_properties = d
        return operator

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
