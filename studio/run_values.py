"""What a definition's ``${param:name}`` and ``${secret:name}`` stand for wherever it is executed, asked of
the feature that keeps them.

A definition names values instead of holding them (``engine.spec.references``). The core does not
know where they are kept: a provider (:func:`register_values_provider`, filled by the environments
app, ``studio.environments``, in its ``ready()``) answers, and :func:`fill_values` is the one path
that fills them in, for everything that executes a definition:

- a run that starts (:func:`values_for_start`): the environment it is started in gives the
  parameters, filled in and validated then (an unknown name is a problem naming the node and field);
  the secrets it names must be the starting user's, by name only; the provider records what runs
  where (``bind``) in the run's own transaction. A run restored from another run's checkpoint runs
  in that run's environment unless it names one (:func:`environment_of`);
- what the run's plan and the API read (:func:`run_definition`), what the state browser reads a
  snapshot of the run with: the version's definition with the parameters the run was started with;
- inside the run's driver only (:func:`driver_definition`): the secrets' values too, and the mask
  that keeps them out of everything the driver sends out (``studio.secret_masking``);
- a preview, a test case run (in an environment a request names) and a shadow run (in its production
  run's environment): parameters and the user's secrets filled in, the values handed to the process
  that executes it, which masks them in everything it answers and writes (``studio.secret_masking``).

Without a provider a definition may name no parameter and no secret, and a run has no environment.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class ValuesRefused(Exception):
    """The values a run would start with are not there or not the user's; ``problems`` name node and field,
    ``status`` is the HTTP status to answer with."""

    def __init__(self, problems: list[dict], status: int = 400):
        self.problems = problems
        self.status = status
        super().__init__("; ".join(_line(problem) for problem in problems))


def _line(problem: dict) -> str:
    where = f"node {problem['node']!r} " if problem.get("node") else ""
    return f"{where}{problem.get('field') or ''}: {problem['message']}".strip(": ")


@dataclass
class StartValues:
    """What a provider gives a run that starts: its environment's name (None: none) and parameters."""

    environment: str | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    binding: Any = None
    """The provider's own handle (its environment row, say), given back to ``bind``."""


class ValuesProvider(Protocol):
    def for_start(self, user, pipeline, version, environment: str | None) -> StartValues:
        """The values ``user`` executes a definition with in ``environment``: a run of ``version``, or (``version``
        None) a preview, test case or shadow, which write nothing of the environment's and need no promoted
        version. Raises :class:`ValuesRefused` (an unknown environment, one the user may not use, a version not
        promoted to it)."""

    def secret_names(self, user, pipeline=None) -> set[str]:
        """The names of the secrets ``user``'s runs of ``pipeline`` may use (None: a draft, no pipeline yet)."""

    def secret_values(self, user, names: set[str], pipeline=None) -> dict[str, str]:
        """The values of those of ``names`` that ``user`` may use with ``pipeline`` (and that open)."""

    def bind(self, run, values: StartValues) -> None:
        """Record that ``run`` runs with ``values``: called inside the run's creating transaction."""

    def environment_of(self, run) -> str | None:
        """The name of the environment ``run`` was started in (None: none)."""

    def parameters_of(self, run) -> dict[str, Any]:
        """The parameters ``run`` was started with ({} when none)."""

    def environment_usable(self, user, run) -> bool:
        """Whether ``user`` may still use the environment ``run`` was started in with its pipeline (True when it
        was started in none; False once that environment is gone or no longer theirs or their team's)."""


_provider: ValuesProvider | None = None


def register_values_provider(provider: ValuesProvider) -> None:
    """Let ``provider`` answer for environments and secrets. Filled by ``studio.environments`` in its
    ``ready()``; without it a definition's references name nothing."""
    global _provider
    _provider = provider


KEEP, CHECK, FILL = "keep", "check", "fill"
"""What :func:`fill_values` does with secrets: leave them named, check the user has them, fill them in."""


@dataclass
class FilledValues:
    """A definition with its references filled in, the values it got, and the secret values it holds."""

    definition: dict
    values: StartValues
    secrets: list[str] = field(default_factory=list)
    """The values of the secrets filled in: what the process executing ``definition`` masks."""


def fill_values(definition: dict, *, user=None, pipeline=None, environment: str | None = None, run=None,
                version=None, secrets: str = KEEP) -> FilledValues:
    """``definition`` with its ``${param:…}`` filled in, and with ``secrets=FILL`` its ``${secret:…}`` (``user``'s
    secrets); the one path every execution of a definition takes (see the module docstring).

    The parameters are those ``run`` was started with when a run is given (its plan, its driver, a snapshot of it,
    a shadow beside it); else those of ``environment`` for ``user`` (``version``: the version a run starts,
    checked against what is promoted there; None for what writes nothing of the environment's: a preview, test
    cases). ``secrets=CHECK`` only checks that ``user`` has the secrets it names. Raises :class:`ValuesRefused`."""
    from engine.api import fill_parameters, fill_secrets, references_in

    if run is not None:
        values = StartValues(environment_of(run), _provider.parameters_of(run) if _provider is not None else {})
    elif _provider is None:
        if environment:
            raise ValuesRefused([_problem("environment", "environments are not installed in this studio")])
        values = StartValues()
    else:
        values = _provider.for_start(user, pipeline, version, environment)
    if run is not None:  # checked when it started: what it was started with is what it runs with
        filled, problems = (fill_parameters(definition, values.parameters)[0] if values.parameters else definition), []
    else:
        filled, problems = fill_parameters(definition, values.parameters)
    if problems:
        problems = [_missing_in(problem, values) for problem in problems]
    found: list[str] = []
    pipeline = pipeline if pipeline is not None else getattr(run, "pipeline", None)
    whose = "yours or the pipeline's team's" if getattr(pipeline, "team_id", None) else "yours"
    if secrets != KEEP:
        names = {reference.name for reference in references_in(filled) if reference.kind == "secret"}
        if secrets == CHECK:
            known = _provider.secret_names(user, pipeline) if _provider is not None and names else set()
            problems += _unknown_secrets(filled, known, whose)
        elif names:
            given = (_provider.secret_values(user, names, pipeline) if _provider is not None and user is not None
                     else {})
            filled, unknown = fill_secrets(filled, given)
            problems += [{**problem, "message": problem["message"].split(":")[0]
                          + f": no secret of that name is {whose}"} for problem in unknown]
            found = [given[name] for name in sorted(names) if name in given]
    if problems:
        raise ValuesRefused(problems)
    return FilledValues(filled, values, found)


def _missing_in(problem: dict, values: StartValues) -> dict:
    """An unknown parameter's problem saying where it is missing: the environment named (and what it defines), or
    that no environment was named."""
    unknown = problem["message"].split(" (known")[0]
    if not values.environment:
        return {**problem, "message": f"{unknown}: start the run in an environment that defines it"}
    defines = ", ".join(sorted(values.parameters)) or "no parameter"
    return {**problem, "message": f"{unknown}: environment {values.environment!r} does not define it "
                                  f"(it defines {defines})"}


def values_for_start(user, pipeline, version, environment: str | None) -> tuple[dict, StartValues]:
    """The version's definition with its parameters filled in for a run ``user`` starts in ``environment``,
    and the values; :class:`ValuesRefused` for an unknown parameter or secret, an unknown environment."""
    filled = fill_values(version.definition, user=user, pipeline=pipeline, environment=environment, version=version,
                         secrets=CHECK)
    return filled.definition, filled.values


def bind(run, values: StartValues) -> None:
    if _provider is not None:
        _provider.bind(run, values)


def environment_of(run) -> str | None:
    return _provider.environment_of(run) if _provider is not None else None


def run_definition(run) -> dict:
    """``run``'s definition as its plan, the API and a snapshot of it see it: parameters filled in, secrets still
    named."""
    return fill_values(run.version.definition, run=run).definition


def planned_definition(run) -> dict:
    """What ``run``'s plan is made of: its definition with any secret given a stand-in (a plan never
    depends on a secret's value, and never holds one)."""
    from engine.api import references_in, stand_in_references

    definition = run_definition(run)
    return stand_in_references(definition)[0] if references_in(definition) else definition


def driver_definition(run) -> tuple[dict, list[str]]:
    """Inside the run's driver only: the definition with parameters and secrets (its starting user's) filled in,
    and the secret values it holds (for ``studio.secret_masking``). :class:`ValuesRefused` when a secret is gone."""
    filled = fill_values(run.version.definition, user=run.created_by, run=run, secrets=FILL)
    return filled.definition, filled.secrets


def launch_problems(run) -> list[dict]:
    """What of ``run``'s values its owner may no longer use now: the environment it was started in and the secrets
    it names, as :func:`values_for_start` checked them when it was started. Asked when it is launched
    (``studio.runs.admission``): a member removed from a team meanwhile no longer gets the team's."""
    from engine.api import references_in

    user, pipeline = run.created_by, run.pipeline
    problems = []
    environment = environment_of(run)
    if environment and _provider is not None and not _provider.environment_usable(user, run):
        problems.append(_problem("environment", f"environment {environment!r} is no longer one its owner may use "
                                                "with this pipeline"))
    definition = run_definition(run)
    if any(reference.kind == "secret" for reference in references_in(definition)):
        known = _provider.secret_names(user, pipeline) if _provider is not None else set()
        whose = "its owner's or the pipeline's team's" if getattr(pipeline, "team_id", None) else "its owner's"
        problems += _unknown_secrets(definition, known, whose)
    return problems


def uses_secrets(run) -> bool:
    """Whether ``run``'s definition (its parameters included) names a secret."""
    from engine.api import references_in

    return any(reference.kind == "secret" for reference in references_in(run_definition(run)))


def problems_with_references(definition: dict, validate) -> list[dict]:
    """``validate(definition)`` for a definition that may name parameters and secrets: each reference is
    given a value its field takes, and what validation says about those places is left to the moment
    the values are known (a run's start, its driver)."""
    from engine.api import about_places, references_in, stand_in_references

    if not references_in(definition):
        return validate(definition)
    stood_in, places = stand_in_references(definition)
    return [problem for problem in validate(stood_in) if not about_places(problem, places)]


def _unknown_secrets(definition: dict, known: set[str], whose: str) -> list[dict]:
    from engine.api import references_in

    return [{"node": reference.node, "edge": None, "field": reference.field,
             "message": f"unknown secret {reference.name!r}: no secret of that name is {whose}"}
            for reference in references_in(definition) if reference.kind == "secret" and reference.name not in known]


def _problem(field_: str, message: str) -> dict:
    return {"node": None, "edge": None, "field": field_, "message": message}
