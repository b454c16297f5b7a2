"""``quality.expectations``: the check of a node's or an edge's expectations (``engine.spec.expectations``).

The planner adds one such operator per checked node or edge (``engine.plan.expectations``)
and chains it there. Per batch, each rule runs once over the whole batch as a filter with
the rule inline (no Python call per record); only a rule that some record of the batch
violates, or that raised, is evaluated again record by record to learn which ones (a record
a rule raises on violates it). A batch that violates nothing is passed on as it is: the
cost of a check that finds nothing is one comprehension per rule.

Counts (records checked, per rule the records violating it, records dropped and
quarantined) are kept in the subtask and written into operator state at every checkpoint
as one additive element, so after a restore, at any parallelism, the totals continue from
exactly what the restored checkpoint had counted: the counts of the records a restarted job
replays are not counted twice. They are reported in the task's metrics as::

    {"expectations": {"node:<id>" | "edge:<id>": {"records", "dropped", "quarantined",
                                                   "rules": {name: {"action", "violated"}}}}}

and in every checkpoint acknowledgement (``checkpointed_metrics``), as the snapshot has them.

A ``fail`` rule a record violates raises :class:`ExpectationFailed` from ``process_batch``:
the task fails, and the run with it once its restart strategy gives up, with a message
naming the rule, the node or edge and the record (its JSON, cut short).
"""
from __future__ import annotations

import json

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import ConfigurationError, StreamOperator, compile_expression_function
from engine.runtime.operators.restored_state import require, restored_dicts
from engine.spec.expressions import compile_batch_filter

STATE_NAME = "expectation_counts"
SAMPLE_TEXT = 300
"""Characters of the sample record a failure shows."""


class ExpectationFailed(ConfigurationError):
    """A record violated an expectation whose action is ``fail``."""

    def __init__(self, node: dict, scope: str, rule: dict, record):
        try:
            text = json.dumps(record, default=repr, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(record)
        if len(text) > SAMPLE_TEXT:
            text = text[:SAMPLE_TEXT] + "…"
        kind, _, name = scope.partition(":")
        self.scope = scope
        self.rule = rule["name"]
        self.record = text
        ValueError.__init__(self, f"expectation '{rule['name']}' of {kind} '{name}' failed: rule {rule['rule']!r} "
                                  f"does not hold for record {text}")
        self.node_id = node["id"]
        self.cause = str(self)


def _holds(function, record) -> bool:
    try:
        return bool(function(record))
    except Exception:  # a record the rule cannot judge violates it
        return False


class _Rule:
    __slots__ = ("name", "source", "action", "port", "function", "kept", "violated")

    def __init__(self, expectation: dict):
        self.name = expectation["name"]
        self.source = expectation["rule"]
        self.action = expectation.get("action") or "warn"
        self.port = expectation.get("port")
        self.function = compile_expression_function(self.source)
        self.kept = compile_batch_filter(self.source)
        self.violated = 0

    def violations(self, batch: list) -> list[bool] | None:
        """Per record whether it violates the rule, or None when none does."""
        try:
            if len(self.kept(batch)) == len(batch):
                return None
        except Exception:
            pass
        function = self.function
        flags = [not _holds(function, record) for record in batch]
        return flags if any(flags) else None


class ExpectationsOperator(StreamOperator):
    """Checks each record against the rules; passes, drops, quarantines or fails (module docstring)."""

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        kind = "node" if "node" in params else "edge"
        self.scope = f"{kind}:{params[kind]}"
        self.rules = [_Rule(expectation) for expectation in params["expectations"]]
        self.records = 0
        self.dropped = 0
        self.quarantined = 0
        self._state = None

    def initialize_state(self) -> None:
        self._state = self.context.operator_state().list_state(STATE_NAME)
        by_name = {rule.name: rule for rule in self.rules}
        for element in restored_dicts(self.node, self.context, STATE_NAME, self._state.get()):
            counts = [element.get(name, 0) for name in ("records", "dropped", "quarantined")]
            violated = element.get("violated", {})
            require(all(type(c) is int and c >= 0 for c in counts) and isinstance(violated, dict)
                    and all(type(v) is int and v >= 0 for v in violated.values()), self.node, self.context,
                    f"holds counts {element!r:.80} that are not counts")
            self.records += counts[0]
            self.dropped += counts[1]
            self.quarantined += counts[2]
            for name, value in violated.items():
                if name in by_name:  # a rule removed since is forgotten, a new one starts at 0
                    by_name[name].violated += value

    def process_batch(self, batch) -> None:
        if type(batch) is not list and type(batch) is not TimestampedBatch:
            batch = batch.tolist() if hasattr(batch, "tolist") else list(batch)
        self.records += len(batch)
        found = []
        for rule in self.rules:
            flags = rule.violations(batch)
            if flags is not None:
                found.append((rule, flags))
        if not found:
            self.emit(batch)
            return
        self._route(batch, found)

    def _route(self, batch: list, found: list) -> None:
        size = len(batch)
        passes = [True] * size
        ports: dict[str, list[bool]] = {}
        for rule, flags in found:
            rule.violated += sum(flags)
            if rule.action == "fail":
                raise ExpectationFailed(self.node, self.scope, {"name": rule.name, "rule": rule.source},
                                        batch[flags.index(True)])
            if rule.action == "warn":
                continue
            passes = [keep and not bad for keep, bad in zip(passes, flags)]
            if rule.action == "quarantine":
                marks = ports.setdefault(rule.port, [False] * size)
                ports[rule.port] = [mark or bad for mark, bad in zip(marks, flags)]
        timestamps = batch.timestamps if type(batch) is TimestampedBatch else None
        held_back = size - sum(passes)
        quarantined = [False] * size
        for port, marks in ports.items():
            quarantined = [q or m for q, m in zip(quarantined, marks)]
            emit = self.side_outputs.get(port)
            if emit is not None:
                emit(_select(batch, timestamps, marks))
        quarantined_count = sum(quarantined)
        self.quarantined += quarantined_count
        self.dropped += held_back - quarantined_count
        if held_back < size:
            self.emit(_select(batch, timestamps, passes))

    def snapshot_state(self, checkpoint_id: int) -> None:
        self._state.update([self._counts()])

    def _counts(self) -> dict:
        return {"records": self.records, "dropped": self.dropped, "quarantined": self.quarantined,
                "violated": {rule.name: rule.violated for rule in self.rules}}

    def metrics(self) -> dict:
        return {"expectations": {self.scope: self.report()}}

    def checkpointed_metrics(self) -> dict:
        """What the snapshot being taken holds, for the checkpoint's acknowledgement."""
        return {"expectations": {self.scope: self.report()}}

    def report(self) -> dict:
        return {"records": self.records, "dropped": self.dropped, "quarantined": self.quarantined,
                "rules": {rule.name: {"action": rule.action, "violated": rule.violated} for rule in self.rules}}


def _select(batch: list, timestamps, marks: list[bool]) -> list:
    records = [record for record, mark in zip(batch, marks) if mark]
    if timestamps is None:
        return records
    return TimestampedBatch(records, [stamp for stamp, mark in zip(timestamps, marks) if mark])
