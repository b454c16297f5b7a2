"""Where a run's job runs: in the studio's shared session, or in a driver and Spark application of its own.

Flink offers both: a session cluster that many jobs share (cheap, quick to start) and an
application cluster per job (isolated). A run goes to the shared session
(``studio.runs.session_driver``) unless one of these keeps it in a driver of its own:

- session mode is off (``settings.SESSION_MODE``);
- its pipeline is marked isolated (``Pipeline.isolated``, a setting its editors change);
- its definition runs user Python code (``transform.python``): that code runs with the
  worker's full rights, so it never shares a process tree with other users' runs;
- no session driver serves now (it died and is started again, or one starting did not serve within
  ``settings.SESSION_START_WAIT_S``: a run started while it starts waits for it, since on a cluster master
  a driver of its own would compete with the starting session for the cluster's cores);
- it needs more slots at once than the session has (its announced slots).

The decision and its reason are stored on the run (``Run.placement``, ``placement_reason``)
and shown on its page.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass

import redis
from django.conf import settings

from studio.models import Run
from studio.run_values import uses_secrets
from studio.runs import session
from studio.trusted_code import code_nodes

SESSION = "session"
OWN_DRIVER = "own_driver"


@dataclass(frozen=True)
class Placement:
    where: str
    """``SESSION`` or ``OWN_DRIVER``."""
    reason: str

    @property
    def in_session(self) -> bool:
        return self.where == SESSION


def place(run, definition: dict) -> Placement:
    """Where ``run`` (its pipeline loaded) with its normalised ``definition`` runs; see the module docstring."""
    kept = kept_out(run, definition)
    if kept is not None:
        return kept
    serving = session.presence() or session.presence_once_started(settings.SESSION_START_WAIT_S)
    if serving is None:
        return Placement(OWN_DRIVER, "no session driver was serving")
    # an elastic session (on a SPARK_MASTER) grows to slots_max executors: a run that fits there waits for them
    return fits(definition, int(serving.get("slots_max") or serving.get("slots") or settings.SESSION_SLOTS))


def kept_out(run, definition: dict) -> Placement | None:
    """The rules that need no plan: the placement in a driver of its own they decide, or None (the session,
    if a session driver serves and the run fits in it)."""
    if not settings.SESSION_MODE:
        return Placement(OWN_DRIVER, "session mode is off")
    if run.pipeline.isolated:
        return Placement(OWN_DRIVER, "its pipeline is marked isolated")
    if uses_secrets(run):  # a shared driver's output and events are other runs' too: no secret goes there
        return Placement(OWN_DRIVER, "it uses secrets: a driver of its own fills them in and masks them")
    code = code_nodes(definition)
    if code:
        names = ", ".join(f"'{node}'" for node in code)
        return Placement(OWN_DRIVER, f"it runs Python code (node {names}): isolated")
    return None


def fits(definition: dict, slots: int) -> Placement:
    """The session when ``definition`` (normalised) needs no more than ``slots`` at once, else a driver of its own."""
    from engine.api import slots_needed

    needed = slots_needed(definition)
    if needed > slots:
        return Placement(OWN_DRIVER, f"it needs {needed} slots at once; the shared session has {slots}")
    return Placement(SESSION, f"no Python code, secrets or isolation; needs {needed} of {slots} slots")


def send_to_session(run, definition: dict) -> bool:
    """Hand a run just created (CREATED, its values bound) straight to the serving session driver, when no rule
    keeps it out: True when it went, False when ``launch_run`` (a Celery worker) is to place and start it.

    Called inside the run's transaction, as the launch it replaces: the session driver waits for the
    commit, then claims the run, plans it, checks that it fits (one that does not goes back to a Celery
    worker, placed in a driver of its own) and starts it. One hop instead of three (the POST, a Celery
    worker, the session driver): ``make bench-runs``' ``queued`` phase."""
    if kept_out(run, definition) is not None or session.presence() is None:
        return False
    token = secrets.token_hex(16)
    Run.objects.filter(pk=run.id).update(driver_token=token, placement=SESSION,
                                         placement_reason="no Python code, secrets or isolation")
    try:
        session.hand_over(run.id, token, launch=True)
    except redis.RedisError:
        Run.objects.filter(pk=run.id).update(placement="", placement_reason="")
        return False
    return True
