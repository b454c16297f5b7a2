from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.format_enum import FormatEnum
from ..models.run_start_mode_enum import RunStartModeEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition_checkpointing import DefinitionCheckpointing
    from ..models.definition_debloat import DefinitionDebloat
    from ..models.definition_edges_item import DefinitionEdgesItem
    from ..models.definition_latency_tracking import DefinitionLatencyTracking
    from ..models.definition_nodes_item import DefinitionNodesItem
    from ..models.definition_restart import DefinitionRestart
    from ..models.definition_tests_item import DefinitionTestsItem
    from ..models.definition_ui import DefinitionUi


T = TypeVar("T", bound="Definition")


@_attrs_define
class Definition:
    """A pipeline definition (format 1); see GET /api/operators for node types and the JSON Schema of each one's params.

    Attributes:
        format_ (FormatEnum):
        nodes (list[DefinitionNodesItem]):
        edges (list[DefinitionEdgesItem]):
        name (str | Unset):
        mode (RunStartModeEnum | Unset):
        parallelism (int | Unset):
        max_parallelism (int | Unset):
        checkpointing (DefinitionCheckpointing | Unset):
        restart (DefinitionRestart | Unset):
        debloat (DefinitionDebloat | Unset):
        latency_tracking (DefinitionLatencyTracking | Unset): Latency markers from the sources to the sinks
            (engine.runtime.latency_stats): one per source subtask every interval_ms; 0 is off.
        ui (DefinitionUi | Unset):
        tests (list[DefinitionTestsItem] | Unset):
    """

    format_: FormatEnum
    nodes: list[DefinitionNodesItem]
    edges: list[DefinitionEdgesItem]
    name: str | Unset = UNSET
    mode: RunStartModeEnum | Unset = UNSET
    parallelism: int | Unset = UNSET
    max_parallelism: int | Unset = UNSET
    checkpointing: DefinitionCheckpointing | Unset = UNSET
    restart: DefinitionRestart | Unset = UNSET
    debloat: DefinitionDebloat | Unset = UNSET
    latency_tracking: DefinitionLatencyTracking | Unset = UNSET
    ui: DefinitionUi | Unset = UNSET
    tests: list[DefinitionTestsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        format_ = self.format_.value

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)

        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        name = self.name

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        parallelism = self.parallelism

        max_parallelism = self.max_parallelism

        checkpointing: dict[str, Any] | Unset = UNSET
        if not isinstance(self.checkpointing, Unset):
            checkpointing = self.checkpointing.to_dict()

        restart: dict[str, Any] | Unset = UNSET
        if not isinstance(self.restart, Unset):
            restart = self.restart.to_dict()

        debloat: dict[str, Any] | Unset = UNSET
        if not isinstance(self.debloat, Unset):
            debloat = self.debloat.to_dict()

        latency_tracking: dict[str, Any] | Unset = UNSET
        if not isinstance(self.latency_tracking, Unset):
            latency_tracking = self.latency_tracking.to_dict()

        ui: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ui, Unset):
            ui = self.ui.to_dict()

        tests: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tests, Unset):
            tests = []
            for tests_item_data in self.tests:
                tests_item = tests_item_data.to_dict()
                tests.append(tests_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "format": format_,
                "nodes": nodes,
                "edges": edges,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if mode is not UNSET:
            field_dict["mode"] = mode
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism
        if max_parallelism is not UNSET:
            field_dict["max_parallelism"] = max_parallelism
        if checkpointing is not UNSET:
            field_dict["checkpointing"] = checkpointing
        if restart is not UNSET:
            field_dict["restart"] = restart
        if debloat is not UNSET:
            field_dict["debloat"] = debloat
        if latency_tracking is not UNSET:
            field_dict["latency_tracking"] = latency_tracking
        if ui is not UNSET:
            field_dict["ui"] = ui
        if tests is not UNSET:
            field_dict["tests"] = tests

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_checkpointing import DefinitionCheckpointing  # noqa: PLC0415
        from ..models.definition_debloat import DefinitionDebloat  # noqa: PLC0415
        from ..models.definition_edges_item import DefinitionEdgesItem  # noqa: PLC0415
        from ..models.definition_latency_tracking import DefinitionLatencyTracking  # noqa: PLC0415
        from ..models.definition_nodes_item import DefinitionNodesItem  # noqa: PLC0415
        from ..models.definition_restart import DefinitionRestart  # noqa: PLC0415
        from ..models.definition_tests_item import DefinitionTestsItem  # noqa: PLC0415
        from ..models.definition_ui import DefinitionUi  # noqa: PLC0415

        d = dict(src_dict)
        format_ = FormatEnum(d.pop("format"))

        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:
            nodes_item = DefinitionNodesItem.from_dict(nodes_item_data)

            nodes.append(nodes_item)

        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = DefinitionEdgesItem.from_dict(edges_item_data)

            edges.append(edges_item)

        name = d.pop("name", UNSET)

        _mode = d.pop("mode", UNSET)
        mode: RunStartModeEnum | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = RunStartModeEnum(_mode)

        parallelism = d.pop("parallelism", UNSET)

        max_parallelism = d.pop("max_parallelism", UNSET)

        _checkpointing = d.pop("checkpointing", UNSET)
        checkpointing: DefinitionCheckpointing | Unset
        if isinstance(_checkpointing, Unset):
            checkpointing = UNSET
        else:
            checkpointing = DefinitionCheckpointing.from_dict(_checkpointing)

        _restart = d.pop("restart", UNSET)
        restart: DefinitionRestart | Unset
        if isinstance(_restart, Unset):
            restart = UNSET
        else:
            restart = DefinitionRestart.from_dict(_restart)

        _debloat = d.pop("debloat", UNSET)
        debloat: DefinitionDebloat | Unset
        if isinstance(_debloat, Unset):
            debloat = UNSET
        else:
            debloat = DefinitionDebloat.from_dict(_debloat)

        _latency_tracking = d.pop("latency_tracking", UNSET)
        latency_tracking: DefinitionLatencyTracking | Unset
        if isinstance(_latency_tracking, Unset):
            latency_tracking = UNSET
        else:
            latency_tracking = DefinitionLatencyTracking.from_dict(_latency_tracking)

        _ui = d.pop("ui", UNSET)
        ui: DefinitionUi | Unset
        if isinstance(_ui, Unset):
            ui = UNSET
        else:
            ui = DefinitionUi.from_dict(_ui)

        _tests = d.pop("tests", UNSET)
        tests: list[DefinitionTestsItem] | Unset = UNSET
        if _tests is not UNSET:
            tests = []
            for tests_item_data in _tests:
                tests_item = DefinitionTestsItem.from_dict(tests_item_data)

                tests.append(tests_item)

        definition = cls(
            format_=format_,
            nodes=nodes,
            edges=edges,
            name=name,
            mode=mode,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            checkpointing=checkpointing,
            restart=restart,
            debloat=debloat,
            latency_tracking=latency_tracking,
            ui=ui,
            tests=tests,
        )

        return definition
