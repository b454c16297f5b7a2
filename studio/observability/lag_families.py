"""The Prometheus families of what the sources have left to read and how late windows emit.

- per split of a source subtask (labels ``pipeline``, ``run``, ``vertex``, ``operator``,
  ``subtask``, ``split``): ``source_records_behind``, ``source_bytes_behind``,
  ``source_pending`` (each only where the source's system says it: see
  ``studio.runs.source_lag``);
- per source node with a split enumerator (labels ``pipeline``, ``run``, ``operator``):
  ``source_splits_unassigned``, ``source_bytes_unassigned``;
- per window or window join subtask (the operator labels): ``operator_emit_delay_seconds``
  (mean over its recent results) and ``operator_emit_delay_max_seconds``.

Filled from the same latest ``metrics`` event as the other job families
(``studio.observability.exposition``).
"""
from __future__ import annotations

from typing import Iterable

from prometheus_client.core import GaugeMetricFamily

SPLIT_FIGURES = {"records_behind": "Records after the split's position", "bytes_behind": "Bytes after the "
                 "split's position (file bytes, WAL bytes)", "pending": "Read but not covered by a completed "
                 "checkpoint, as the source's system keeps it"}
UNASSIGNED_FIGURES = {"splits_unassigned": "Splits no subtask took yet", "bytes_unassigned": "Bytes of the splits "
                      "no subtask took yet"}


class LagFamilies:
    """Collects the lag and emit-delay figures of the runs' latest reports, then yields the families."""

    def __init__(self, prefix: str, operator_labels: list[str]):
        self.split = {name: GaugeMetricFamily(f"{prefix}source_{name}", help_text, labels=operator_labels + ["split"])
                      for name, help_text in SPLIT_FIGURES.items()}
        self.unassigned = {name: GaugeMetricFamily(f"{prefix}source_{name}", help_text,
                                                   labels=["pipeline", "run", "operator"])
                           for name, help_text in UNASSIGNED_FIGURES.items()}
        self.emit_delay = GaugeMetricFamily(f"{prefix}operator_emit_delay_seconds", "How long after its window's end "
                                            "a result left, the mean over the recent results", labels=operator_labels)
        self.emit_delay_max = GaugeMetricFamily(f"{prefix}operator_emit_delay_max_seconds", "The largest emit delay "
                                                "of the recent results", labels=operator_labels)

    def add_operator(self, labels: list[str], figures: dict) -> None:
        """One operator of one subtask: ``labels`` as the operator families have them."""
        for split in figures.get("lag") or ():
            for name, family in self.split.items():
                if isinstance(split.get(name), (int, float)):
                    family.add_metric(labels + [str(split.get("split"))], float(split[name]))
        if isinstance(figures.get("emit_delay_ms"), (int, float)):
            self.emit_delay.add_metric(labels, figures["emit_delay_ms"] / 1000.0)
            self.emit_delay_max.add_metric(labels, float(figures.get("emit_delay_max_ms") or 0) / 1000.0)

    def add_enumerators(self, pipeline: str, run: str, enumerators: dict) -> None:
        for operator, figures in sorted((enumerators or {}).items()):
            for name, family in self.unassigned.items():
                if isinstance((figures or {}).get(name), (int, float)):
                    family.add_metric([pipeline, run, operator], float(figures[name]))

    def families(self) -> Iterable:
        yield from (*self.split.values(), *self.unassigned.values(), self.emit_delay, self.emit_delay_max)
