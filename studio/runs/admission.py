"""The launch's last word: may a queued run still start, with its owner's access as it is now?

A run is checked when it is started (``studio.runs.start``) and may wait a while before it is
launched (a busy worker, a session driver starting). Meanwhile its owner may be removed from the
pipeline's team, lose a grant, or a team's secret or environment may stop being theirs. The launch
asks :func:`why_not_admitted` once, when it claims the run (``studio.runs.tasks.claim``, CREATED to
SCHEDULING), whichever way the run is placed: a Celery worker's ``launch_run`` and the session driver's
launch of a run its start handed straight to it both claim through it. A run refused there is FAILED
with the reason as its cause (the run page and ``GET /api/runs/{id}`` show it) and never gets a driver,
a Spark session, a secret or a grant.

What is checked is what the run would get, as its owner holds it now:

- the pipeline's *run* permission (``studio.access``: the team's role, a share, ownership);
- the values it was started with (``studio.run_values.launch_problems``): the environment it was bound to
  is still one its owner may use with the pipeline, and each secret it names is still theirs or the team's;
- every location its definition reaches, against the owner's grants now (``studio.locations``).

A run that goes on after its driver died (a session driver taking its runs back, ``resume_cause``) is
asked again by the driver that takes it (``studio.runs.driver.run_driver``): it would get its secrets and
grants anew. The run's driver checks locations and secrets again as it opens them.
"""
from __future__ import annotations

from studio.access import RUN, why_owner_may_not
from studio.location_policy import check_definition
from studio.locations import policy_for
from studio.run_values import (
    ValuesRefused,
    launch_problems,
    problems_with_references,
    run_definition,
)

NOT_STARTED = "not started: its owner's access was checked again at launch"
NOT_RESUMED = "not resumed: its owner's access was checked again when its driver took it back"


def why_not_admitted(run, moment: str = NOT_STARTED) -> str | None:
    """Why ``run`` (its pipeline, version and owner loaded or loadable) may not start now; None when it may.
    ``moment``: what the reason begins with (a launch's, or a driver taking back a run whose driver died)."""
    owner, pipeline = run.created_by, run.pipeline
    refused = why_owner_may_not(owner, RUN, pipeline)
    if refused is not None:
        return f"{moment}: {refused} ({pipeline.name!r})"
    try:
        problems = launch_problems(run)
    except ValuesRefused as values:
        problems = values.problems
    policy = policy_for(owner, pipeline)
    problems += problems_with_references(run_definition(run), lambda definition: check_definition(definition, policy)[0])
    if problems:
        return f"{moment}: " + "; ".join(_line(problem) for problem in problems)
    return None


def _line(problem: dict) -> str:
    where = f"node {problem['node']!r} " if problem.get("node") else ""
    field = f"{problem['field']}: " if problem.get("field") else ""
    return f"{where}{field}{problem['message']}"
