"""Rescale in one click: stop with savepoint, then start from it at the new parallelism.

``request_rescale`` checks the new parallelism (the whole definition is validated again,
so a forward edge between different parallelisms is a 400 naming the edge), saves it as
a new version of the pipeline ("rescale: ..."), and stops the run with a savepoint
(without drain: the savepoint holds everything in flight). Then the rescale follows the
run's events (``on_run_event``, a receiver of every stored event, ``run_event_recorded``):

    STOPPING ──savepoint completed, run ended──► STARTING ──new run RUNNING──► COMPLETED
       │                                           │
       └─savepoint failed─► FAILED (the run        └─new run failed─► ROLLED_BACK (the old
         goes on at its old parallelism)             version runs again from the same savepoint)

Every transition is a ``rescale`` event of the old run (and of the new one once it
exists), so the run page shows the progress live.

Threading model: whichever process records the events (API or event listener); each
transition re-reads the row under a lock, so two events racing cannot start two runs.
"""
from __future__ import annotations

import copy
import logging

from django.db import transaction

from studio.models import (TERMINAL_STATUSES, Rescale, RescaleStatus, Run, RunStatus, SavepointStatus)

logger = logging.getLogger(__name__)

MAX_PARALLELISM = 1024


class RescaleRefused(Exception):
    """The request cannot be honoured; ``errors`` are validation problems (a 400), else a 409."""

    def __init__(self, message: str, errors: list[dict] | None = None):
        super().__init__(message)
        self.errors = errors or []


def rescaled_definition(definition: dict, parallelism: int | None, nodes: dict[str, int]) -> dict:
    """The definition with the job's and the named nodes' parallelism replaced."""
    result = copy.deepcopy(definition)
    known = {node["id"] for node in result.get("nodes", [])}
    unknown = sorted(set(nodes) - known)
    if unknown:
        raise RescaleRefused("unknown nodes", [{"node": node, "edge": None, "field": f"nodes.{node}",
                                                "message": f"the pipeline has no node '{node}'"} for node in unknown])
    if parallelism is not None:
        result["parallelism"] = parallelism
        for node in result["nodes"]:  # a job-wide rescale moves nodes that followed the job's parallelism
            if node.get("parallelism") == definition.get("parallelism"):
                node.pop("parallelism", None)
    for node in result["nodes"]:
        if node["id"] in nodes:
            node["parallelism"] = nodes[node["id"]]
    return result


def describe(parallelism: int | None, nodes: dict[str, int], before: dict) -> str:
    parts = []
    if parallelism is not None:
        parts.append(f"parallelism {before.get('parallelism', 1)} -> {parallelism}")
    parts += [f"{node} -> {value}" for node, value in sorted(nodes.items())]
    return "rescale: " + ", ".join(parts)


def request_rescale(run: Run, user, parallelism: int | None, nodes: dict[str, int]) -> Rescale:
    """Validate, save the rescaled version, stop the run with a savepoint; the rest follows its events."""
    from studio.locations import policy_for
    from studio.processes.budget import validate_definition
    from studio.runs.control import stop_with_savepoint

    if parallelism is None and not nodes:
        raise RescaleRefused("nothing to change", [{"node": None, "edge": None, "field": "parallelism",
                                                    "message": "give parallelism, nodes, or both"}])
    if run.status != RunStatus.RUNNING:
        raise RescaleRefused(f"run {run.id} is {run.status}; only a RUNNING run can be rescaled")
    if run.rescales.filter(status__in=[RescaleStatus.STOPPING, RescaleStatus.STARTING]).exists():
        raise RescaleRefused(f"run {run.id} is already being rescaled")
    before = run.version.definition
    definition = rescaled_definition(before, parallelism, nodes)
    errors = validate_definition(definition, policy_for(user, run.pipeline))
    if errors:
        raise RescaleRefused("the rescaled definition does not validate", errors)
    message = describe(parallelism, nodes, before)
    with transaction.atomic():
        version = run.pipeline.save_version(definition, message, user)
        request = stop_with_savepoint(run, user, drain=False)
        rescale = Rescale.objects.create(run=run, from_version=run.version, to_version=version, created_by=user,
                                         parallelism={"parallelism": parallelism, "nodes": nodes},
                                         savepoint_request=request, message=message)
        _event(rescale)
    return rescale


def as_dict(rescale: Rescale) -> dict:
    return {"id": rescale.id, "run": rescale.run_id, "status": rescale.status, "message": rescale.message,
            "from_version": rescale.from_version.number, "to_version": rescale.to_version.number,
            "parallelism": rescale.parallelism.get("parallelism"), "nodes": rescale.parallelism.get("nodes") or {},
            "savepoint_request_id": rescale.savepoint_request.request_id if rescale.savepoint_request else None,
            "new_run": rescale.new_run_id, "rollback_run": rescale.rollback_run_id}


def _event(rescale: Rescale) -> None:
    from studio.runs.events import record_event

    data = as_dict(rescale)
    Run.objects.filter(pk=rescale.run_id).update()  # its answer's ended_by names the rescale
    record_event(rescale.run_id, "rescale", data)
    if rescale.new_run_id:
        record_event(rescale.new_run_id, "rescale", data)


def on_run_event(sender, run_id: int, event: dict, **kwargs) -> None:
    """Move the rescales that wait on this run on (see the module docstring); a receiver of
    ``run_event_recorded``."""
    event_type = event["type"]
    if event_type not in ("status", "savepoint"):
        return
    for rescale_id in Rescale.objects.filter(run_id=run_id, status=RescaleStatus.STOPPING).values_list("pk", flat=True):
        _step(rescale_id)
    if event_type == "status":
        for rescale_id in Rescale.objects.filter(new_run_id=run_id, status=RescaleStatus.STARTING).values_list(
                "pk", flat=True):
            _step(rescale_id)


def _step(rescale_id: int) -> None:
    try:
        with transaction.atomic():
            rescale = Rescale.objects.select_for_update().select_related(
                "run", "savepoint_request", "new_run", "to_version", "from_version").get(pk=rescale_id)
            if rescale.status == RescaleStatus.STOPPING:
                _after_stop(rescale)
            elif rescale.status == RescaleStatus.STARTING:
                _after_start(rescale)
    except Exception:  # a rescale must never break the recording of events
        logger.exception("rescale %s could not move on", rescale_id)


def _after_stop(rescale: Rescale) -> None:
    request = rescale.savepoint_request
    if request is None or request.status == SavepointStatus.FAILED:
        rescale.status = RescaleStatus.FAILED
        rescale.message = (f"the savepoint failed ({request.failure_cause if request else 'no request'}): "
                           f"the run goes on at its old parallelism")
        rescale.save(update_fields=["status", "message"])
        _event(rescale)
        return
    if request.status != SavepointStatus.COMPLETED or rescale.run.status not in TERMINAL_STATUSES:
        return  # the savepoint or the end of the run is still to come
    try:
        rescale.new_run = _start_from(rescale, rescale.to_version)
    except Exception as error:
        _roll_back(rescale, f"the rescaled run could not start: {error}")
        return
    rescale.status = RescaleStatus.STARTING
    rescale.save(update_fields=["status", "new_run"])
    _event(rescale)


def _after_start(rescale: Rescale) -> None:
    status = rescale.new_run.status
    if status == RunStatus.RUNNING:
        rescale.status = RescaleStatus.COMPLETED
        rescale.save(update_fields=["status"])
        _event(rescale)
    elif status in TERMINAL_STATUSES or status == RunStatus.FAILING:
        _roll_back(rescale, f"the rescaled run {rescale.new_run_id} ended {status}: "
                            f"{rescale.new_run.failure_cause or 'no cause reported'}")


def _roll_back(rescale: Rescale, cause: str) -> None:
    """Start the old version from the same savepoint: the job goes on at its old parallelism."""
    try:
        rescale.rollback_run = _start_from(rescale, rescale.from_version)
        rescale.status = RescaleStatus.ROLLED_BACK
        rescale.message = f"{cause}; the old parallelism runs again from the same savepoint"
    except Exception as error:
        rescale.status = RescaleStatus.FAILED
        rescale.message = f"{cause}; the rollback could not start either: {error}"
    rescale.save(update_fields=["status", "message", "rollback_run"])
    _event(rescale)


def _start_from(rescale: Rescale, version) -> Run:
    """A run of ``version`` from the rescale's savepoint (its checkpoint row: a snapshot of this
    pipeline, which its user may restore wherever it was written)."""
    from studio.run_values import environment_of
    from studio.runs.start import start_run

    request = rescale.savepoint_request
    restore_from = {"pk": request.checkpoint_id} if request.checkpoint_id else {"path": request.location}
    return start_run(rescale.run.pipeline, version, user=rescale.created_by, restore_from=restore_from,
                     environment=environment_of(rescale.run))  # the rescaled job runs where the old one ran
