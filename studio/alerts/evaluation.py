"""Evaluating alert rules against a run's events, as they are recorded.

``on_run_event`` receives every stored event (``studio.runs.signals.run_event_recorded``), after
it was fanned out, in whichever process recorded it (the run's driver, the studio). It costs one
indexed query when the run's pipeline has no enabled rule.

A rule fires when its condition *starts* to hold for a run (``AlertState``): N failed
checkpoints in a row fire once, not at N+1 again; a completed checkpoint ends the streak.
A backpressure rule holds once a vertex's ``backpressured_ratio`` stayed above the
threshold in every metrics sample for ``duration_s`` seconds; a sample at or below it
ends the streak. Checkpoint durations, failures and restarts are single occurrences. A
violation-rate rule holds for an expectation (per checked node or edge and rule) once the
records violating it are more than ``threshold`` of the records checked, counted since the run
started (at least ``MIN_CHECKED`` of them, so that the first bad record of a run is no rate);
it fires once when it starts to hold, and again only after the rate went back to the threshold.

A rule runs as its author: while the author may not run the pipeline (a share revoked, by
any path, the account deactivated or deleted), the rule is not evaluated at all: nobody is
notified and no webhook is sent on the author's behalf (``AlertRule.suspension``).
"""
from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from studio.alerts.firing import fire
from studio.alerts.models import AlertKind, AlertRule, AlertState
from studio.models import Checkpoint, Run

logger = logging.getLogger(__name__)


def on_run_event(sender, run_id: int, pipeline_id: int, event: dict[str, Any], batch: dict | None = None,
                 **kwargs) -> None:
    """A receiver of ``run_event_recorded``: evaluate the rules against the stored event."""
    on_event(run_id, pipeline_id, event["type"], event["ts"], event["data"], batch)


def on_event(run_id: int, pipeline_id: int, event_type: str, ts: int, data: dict[str, Any],
             batch: dict | None = None) -> None:
    """Evaluate the enabled rules of the run's pipeline against one event; never raises. An event no rule
    looks at (a checkpoint triggered, acknowledged or discarded, a startup) costs no query: a running job
    sends four of those a second. ``batch``: the signal's dict shared by the events of one stored batch, in
    which a pipeline's rules are read once (a session's hundred runs send a metrics event a second each)."""
    if not _may_matter(event_type, data):
        return
    try:
        for rule in _enabled_rules(pipeline_id, batch):
            reason = rule.suspension()
            if reason is None:
                _evaluate(rule, run_id, event_type, ts, data)
            else:
                logger.debug("%s: not evaluated", reason)
    except Exception:
        logger.exception("alert evaluation failed for a %s event of run %s", event_type, run_id)


def _enabled_rules(pipeline_id: int, batch: dict | None) -> list[AlertRule]:
    """The pipeline's enabled rules: with a ``batch``, those of all its pipelines read in one query the first
    time one is asked for, and kept in it for the batch's other events."""
    if batch is None:
        return list(AlertRule.objects.filter(pipeline_id=pipeline_id, enabled=True)
                    .select_related("pipeline", "created_by"))
    rules = batch.get(RULES_KEY)
    if rules is None or pipeline_id not in rules:
        wanted = {pipeline_id, *batch.get("pipelines", ())}
        rules = batch[RULES_KEY] = {wanted_id: [] for wanted_id in wanted}
        for rule in AlertRule.objects.filter(pipeline_id__in=wanted, enabled=True).select_related(
                "pipeline", "created_by").order_by("pk"):
            rules[rule.pipeline_id].append(rule)
    return rules[pipeline_id]


RULES_KEY = "studio.alerts.rules"
"""Where a batch (``studio.runs.signals``) keeps its pipelines' enabled rules."""
MAX_CAUSE = 300
"""Characters of a run's failure cause a notification and its webhook carry."""


def cause_line(cause: str | None) -> str:
    """A failure cause as a notification says it: its first line (the error, naming the operator), at
    most ``MAX_CAUSE`` characters. Never the traceback, nor the record that failed (the lines after it):
    a webhook leaves the studio, and both are in the run's Exceptions tab for whoever may view the run."""
    lines = [line.strip() for line in (cause or "").splitlines() if line.strip()]
    if not lines:
        return "no cause given"
    line = lines[-1] if lines[0].startswith("Traceback (most recent call last)") else lines[0]
    return line if len(line) <= MAX_CAUSE else line[:MAX_CAUSE] + "…"


def _evaluate(rule: AlertRule, run_id: int, event_type: str, ts: int, data: dict[str, Any]) -> None:
    if rule.kind == AlertKind.RUN_FAILED and event_type == "status" and data.get("status") == "FAILED":
        cause = cause_line(data.get("cause"))
        _fire(rule, run_id, f"run {run_id} failed: {cause}", {"status": "FAILED", "cause": cause})
    elif rule.kind == AlertKind.RUN_RESTARTED and event_type == "status" and data.get("status") == "RESTARTING":
        cause = cause_line(data.get("cause"))
        _fire(rule, run_id, f"run {run_id} restarted: {cause}",
              {"status": "RESTARTING", "cause": cause, "regions": data.get("regions")})
    elif event_type == "checkpoint" and (data.get("kind") or "checkpoint") == "checkpoint":
        if rule.kind == AlertKind.CHECKPOINT_FAILURES:
            _checkpoint_failures(rule, run_id, data)
        elif rule.kind == AlertKind.CHECKPOINT_DURATION:
            _checkpoint_duration(rule, run_id, data)
    elif rule.kind == AlertKind.BACKPRESSURE and event_type == "metrics":
        _backpressure(rule, run_id, ts, data.get("vertices") or {})
    elif rule.kind == AlertKind.VIOLATION_RATE and event_type == "metrics" and data.get("expectations"):
        _violation_rate(rule, run_id, data["expectations"])


def _may_matter(event_type: str, data: dict[str, Any]) -> bool:
    """Whether any rule kind looks at such an event (see ``_evaluate``)."""
    if event_type == "checkpoint":
        return data.get("event") in ("completed", "failed")
    return event_type in ("status", "metrics")


MIN_CHECKED = 50
"""Records an expectation must have checked before its violation rate may fire a rule."""


def _violation_rate(rule: AlertRule, run_id: int, expectations: dict[str, dict]) -> None:
    threshold = rule.threshold if rule.threshold is not None else 0.0
    for scope, counts in expectations.items():
        kind, _, name = scope.partition(":")
        if rule.vertex and name != rule.vertex:
            continue
        checked = counts.get("records") or 0
        for expectation, figures in (counts.get("rules") or {}).items():
            violated = figures.get("violated") or 0
            rate = violated / checked if checked else 0.0
            holds = checked >= MIN_CHECKED and rate > threshold
            if _set_state(rule, run_id, f"{scope}/{expectation}"[:200], active=holds) and holds:
                _fire(rule, run_id, f"expectation '{expectation}' of {kind} '{name}' in run {run_id}: {violated:,} of "
                                    f"{checked:,} records violate it ({rate:.1%}, over {threshold:.1%})",
                      {kind: name, "expectation": expectation, "violated": violated, "records": checked,
                       "rate": round(rate, 6), "action": figures.get("action")})


def _checkpoint_failures(rule: AlertRule, run_id: int, data: dict[str, Any]) -> None:
    if data.get("event") == "completed":
        _set_state(rule, run_id, "", active=False)
        return
    if data.get("event") != "failed":
        return
    wanted = max(1, int(rule.threshold or 1))
    latest = list(Checkpoint.objects.filter(run_id=run_id, kind="checkpoint").exclude(status="IN_PROGRESS")
                  .order_by("-checkpoint_id").values_list("status", "checkpoint_id", "failure_message")[:wanted])
    if len(latest) == wanted and all(status == "FAILED" for status, _, _ in latest) \
            and _set_state(rule, run_id, "", active=True):
        reason = cause_line(latest[0][2] or data.get("failure_message"))
        _fire(rule, run_id, f"{wanted} checkpoint(s) of run {run_id} failed in a row; the last, {latest[0][1]}: {reason}",
              {"checkpoints": [checkpoint_id for _, checkpoint_id, _ in latest], "failure_message": reason})


def _checkpoint_duration(rule: AlertRule, run_id: int, data: dict[str, Any]) -> None:
    duration = data.get("end_to_end_duration")
    if data.get("event") != "completed" or duration is None or rule.threshold is None or duration <= rule.threshold:
        return
    _fire(rule, run_id, f"checkpoint {data.get('id')} of run {run_id} took {duration:.0f} ms "
                        f"(over {rule.threshold:.0f} ms)", {"checkpoint": data.get("id"), "duration_ms": duration})


def _backpressure(rule: AlertRule, run_id: int, ts: int, vertices: dict[str, dict]) -> None:
    threshold = rule.threshold if rule.threshold is not None else 0.5
    for vertex, values in vertices.items():
        if rule.vertex and vertex != rule.vertex:
            continue
        ratio = values.get("backpressured_ratio")
        if ratio is None:
            continue
        state, _ = AlertState.objects.get_or_create(rule=rule, run_id=run_id, key=vertex)
        if ratio <= threshold:
            if state.active or state.since is not None:
                AlertState.objects.filter(pk=state.pk).update(active=False, since=None)
            continue
        if state.since is None:
            AlertState.objects.filter(pk=state.pk).update(since=ts)
            state.since = ts
        if not state.active and ts - state.since >= (rule.duration_s or 0) * 1000:
            if AlertState.objects.filter(pk=state.pk, active=False).update(active=True):
                _fire(rule, run_id, f"vertex {vertex} of run {run_id} backpressured {ratio:.0%} "
                                    f"(over {threshold:.0%}) for {(ts - state.since) / 1000:.0f} s",
                      {"vertex": vertex, "backpressured_ratio": ratio, "since": state.since})


def _set_state(rule: AlertRule, run_id: int, key: str, *, active: bool) -> bool:
    """Set the condition's state; True when it changed (so the rule fires on the change to active)."""
    with transaction.atomic():
        state, _ = AlertState.objects.get_or_create(rule=rule, run_id=run_id, key=key)
        return bool(AlertState.objects.filter(pk=state.pk).exclude(active=active).update(active=active))


def _fire(rule: AlertRule, run_id: int, message: str, data: dict[str, Any]) -> None:
    fire(rule, Run.objects.filter(pk=run_id).first(), message, {**data, "run": run_id})
