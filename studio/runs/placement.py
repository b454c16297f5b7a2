"""Where a run's job runs: in the studio's shared session, or in a driver and Spark application of its own.

Flink offers both: a session cluster that many jobs share (cheap, quick to start) and an
application cluster per job (isolated). A run goes to the shared session
(``studio.runs.session_driver``) unless one of these keeps it in a driver of its own:

- session mode is off (``settings.SESSION_MODE``);
- its pipeline is marked isolated (``Pipeline.isolated``, a setting its editors change);
- its definition runs user Python code (``transform.python``): that code runs with the
  worker's full rights, so it never shares a process tree with other users' runs;
- no session driver serves now (it is starting, or it died and is started again);
- it needs more slots at once than the session has (its announced slots).

The decision and its reason are stored on the run (``Run.placement``, ``placement_reason``)
and shown on its page.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

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
    serving = session.presence()
    if serving is None:
        return Placement(OWN_DRIVER, "no session driver was serving")
    from engine.api import slots_needed

    needed, slots = slots_needed(definition), int(serving.get("slots") or settings.SESSION_SLOTS)
    if needed > slots:
        return Placement(OWN_DRIVER, f"it needs {needed} slots at once; the shared session has {slots}")
    return Placement(SESSION, f"no Python code, secrets or isolation; needs {needed} of {slots} slots")
