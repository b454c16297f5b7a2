from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.latency_figures import LatencyFigures
    from ..models.split_lag import SplitLag
    from ..models.subtask_checkpoint import SubtaskCheckpoint
    from ..models.subtask_latency import SubtaskLatency
    from ..models.visible_latency import VisibleLatency


T = TypeVar("T", bound="SubtaskMetrics")


@_attrs_define
class SubtaskMetrics:
    """One subtask of a node: its operator's own counts, its thread's time shares.

    Attributes:
        subtask (int):
        records_in (float):
        records_out (float):
        records_in_per_second (float | None):
        records_out_per_second (float | None):
        watermark (int | None): The operator's input watermark, event-time ms; a source's own; null before the first.
        busy_ratio (float | None):
        idle_ratio (float | None):
        backpressured_ratio (float | None):
        checkpoint (None | SubtaskCheckpoint):
        late_records (int | Unset): Records that came after the watermark had closed their window (or join range) and
            were dropped (or sent to the late port); only operators that drop late records have it.
        partials_in (int | Unset): A window fed partial aggregates (local aggregation before the exchange): how many
            arrived; records_in counts the records they stand for.
        latency (SubtaskLatency | Unset): Source-to-here latency at one subtask's operator, pooled over its sources and
            per source subtask.
        hop_latency (LatencyFigures | Unset): What latency markers measured over a window of the latest markers (128 per
            source subtask).
        visible_latency (VisibleLatency | Unset): How long a sink subtask's records waited for their commit, weighed by
            records, over its latest commits.
        source_visible_latency (SubtaskLatency | Unset): Source-to-here latency at one subtask's operator, pooled over
            its sources and per source subtask.
        lag (list[SplitLag] | Unset): Sources: each split the subtask holds.
        emit_delay_ms (float | Unset): Windows and window joins: how long after its window's end, on the clock, a result
            left, ms (the mean over the recent results; event times in epoch ms only).
        emit_delay_max_ms (float | Unset): The largest emit delay of those results.
        emit_delay_results (int | Unset): The results the emit delay is over.
    """

    subtask: int
    records_in: float
    records_out: float
    records_in_per_second: float | None
    records_out_per_second: float | None
    watermark: int | None
    busy_ratio: float | None
    idle_ratio: float | None
    backpressured_ratio: float | None
    checkpoint: None | SubtaskCheckpoint
    late_records: int | Unset = UNSET
    partials_in: int | Unset = UNSET
    latency: SubtaskLatency | Unset = UNSET
    hop_latency: LatencyFigures | Unset = UNSET
    visible_latency: VisibleLatency | Unset = UNSET
    source_visible_latency: SubtaskLatency | Unset = UNSET
    lag: list[SplitLag] | Unset = UNSET
    emit_delay_ms: float | Unset = UNSET
    emit_delay_max_ms: float | Unset = UNSET
    emit_delay_results: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.subtask_checkpoint import SubtaskCheckpoint  # noqa: PLC0415

        subtask = self.subtask

        records_in = self.records_in

        records_out = self.records_out

        records_in_per_second: float | None
        records_in_per_second = self.records_in_per_second

        records_out_per_second: float | None
        records_out_per_second = self.records_out_per_second

        watermark: int | None
        watermark = self.watermark

        busy_ratio: float | None
        busy_ratio = self.busy_ratio

        idle_ratio: float | None
        idle_ratio = self.idle_ratio

        backpressured_ratio: float | None
        backpressured_ratio = self.backpressured_ratio

        checkpoint: dict[str, Any] | None
        if isinstance(self.checkpoint, SubtaskCheckpoint):
            checkpoint = self.checkpoint.to_dict()
        else:
            checkpoint = self.checkpoint

        late_records = self.late_records

        partials_in = self.partials_in

        latency: dict[str, Any] | Unset = UNSET
        if not isinstance(self.latency, Unset):
            latency = self.latency.to_dict()

        hop_latency: dict[str, Any] | Unset = UNSET
        if not isinstance(self.hop_latency, Unset):
            hop_latency = self.hop_latency.to_dict()

        visible_latency: dict[str, Any] | Unset = UNSET
        if not isinstance(self.visible_latency, Unset):
            visible_latency = self.visible_latency.to_dict()

        source_visible_latency: dict[str, Any] | Unset = UNSET
        if not isinstance(self.source_visible_latency, Unset):
            source_visible_latency = self.source_visible_latency.to_dict()

        lag: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.lag, Unset):
            lag = []
            for lag_item_data in self.lag:
                lag_item = lag_item_data.to_dict()
                lag.append(lag_item)

        emit_delay_ms = self.emit_delay_ms

        emit_delay_max_ms = self.emit_delay_max_ms

        emit_delay_results = self.emit_delay_results

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "subtask": subtask,
                "records_in": records_in,
                "records_out": records_out,
                "records_in_per_second": records_in_per_second,
                "records_out_per_second": records_out_per_second,
                "watermark": watermark,
                "busy_ratio": busy_ratio,
                "idle_ratio": idle_ratio,
                "backpressured_ratio": backpressured_ratio,
                "checkpoint": checkpoint,
            }
        )
        if late_records is not UNSET:
            field_dict["late_records"] = late_records
        if partials_in is not UNSET:
            field_dict["partials_in"] = partials_in
        if latency is not UNSET:
            field_dict["latency"] = latency
        if hop_latency is not UNSET:
            field_dict["hop_latency"] = hop_latency
        if visible_latency is not UNSET:
            field_dict["visible_latency"] = visible_latency
        if source_visible_latency is not UNSET:
            field_dict["source_visible_latency"] = source_visible_latency
        if lag is not UNSET:
            field_dict["lag"] = lag
        if emit_delay_ms is not UNSET:
            field_dict["emit_delay_ms"] = emit_delay_ms
        if emit_delay_max_ms is not UNSET:
            field_dict["emit_delay_max_ms"] = emit_delay_max_ms
        if emit_delay_results is not UNSET:
            field_dict["emit_delay_results"] = emit_delay_results

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.latency_figures import LatencyFigures  # noqa: PLC0415
        from ..models.split_lag import SplitLag  # noqa: PLC0415
        from ..models.subtask_checkpoint import SubtaskCheckpoint  # noqa: PLC0415
        from ..models.subtask_latency import SubtaskLatency  # noqa: PLC0415
        from ..models.visible_latency import VisibleLatency  # noqa: PLC0415

        d = dict(src_dict)
        subtask = d.pop("subtask")

        records_in = d.pop("records_in")

        records_out = d.pop("records_out")

        def _parse_records_in_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        records_in_per_second = _parse_records_in_per_second(d.pop("records_in_per_second"))

        def _parse_records_out_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        records_out_per_second = _parse_records_out_per_second(d.pop("records_out_per_second"))

        def _parse_watermark(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        watermark = _parse_watermark(d.pop("watermark"))

        def _parse_busy_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        busy_ratio = _parse_busy_ratio(d.pop("busy_ratio"))

        def _parse_idle_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        idle_ratio = _parse_idle_ratio(d.pop("idle_ratio"))

        def _parse_backpressured_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        backpressured_ratio = _parse_backpressured_ratio(d.pop("backpressured_ratio"))

        def _parse_checkpoint(data: object) -> None | SubtaskCheckpoint:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                checkpoint_type_1 = SubtaskCheckpoint.from_dict(data)

                return checkpoint_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubtaskCheckpoint, data)

        checkpoint = _parse_checkpoint(d.pop("checkpoint"))

        late_records = d.pop("late_records", UNSET)

        partials_in = d.pop("partials_in", UNSET)

        _latency = d.pop("latency", UNSET)
        latency: SubtaskLatency | Unset
        if isinstance(_latency, Unset):
            latency = UNSET
        else:
            latency = SubtaskLatency.from_dict(_latency)

        _hop_latency = d.pop("hop_latency", UNSET)
        hop_latency: LatencyFigures | Unset
        if isinstance(_hop_latency, Unset):
            hop_latency = UNSET
        else:
            hop_latency = LatencyFigures.from_dict(_hop_latency)

        _visible_latency = d.pop("visible_latency", UNSET)
        visible_latency: VisibleLatency | Unset
        if isinstance(_visible_latency, Unset):
            visible_latency = UNSET
        else:
            visible_latency = VisibleLatency.from_dict(_visible_latency)

        _source_visible_latency = d.pop("source_visible_latency", UNSET)
        source_visible_latency: SubtaskLatency | Unset
        if isinstance(_source_visible_latency, Unset):
            source_visible_latency = UNSET
        else:
            source_visible_latency = SubtaskLatency.from_dict(_source_visible_latency)

        _lag = d.pop("lag", UNSET)
        lag: list[SplitLag] | Unset = UNSET
        if _lag is not UNSET:
            lag = []
            for lag_item_data in _lag:
                lag_item = SplitLag.from_dict(lag_item_data)

                lag.append(lag_item)

        emit_delay_ms = d.pop("emit_delay_ms", UNSET)

        emit_delay_max_ms = d.pop("emit_delay_max_ms", UNSET)

        emit_delay_results = d.pop("emit_delay_results", UNSET)

        subtask_metrics = cls(
            subtask=subtask,
            records_in=records_in,
            records_out=records_out,
            records_in_per_second=records_in_per_second,
            records_out_per_second=records_out_per_second,
            watermark=watermark,
            busy_ratio=busy_ratio,
            idle_ratio=idle_ratio,
            backpressured_ratio=backpressured_ratio,
            checkpoint=checkpoint,
            late_records=late_records,
            partials_in=partials_in,
            latency=latency,
            hop_latency=hop_latency,
            visible_latency=visible_latency,
            source_visible_latency=source_visible_latency,
            lag=lag,
            emit_delay_ms=emit_delay_ms,
            emit_delay_max_ms=emit_delay_max_ms,
            emit_delay_results=emit_delay_results,
        )

        subtask_metrics.additional_properties = d
        return subtask_metrics

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
