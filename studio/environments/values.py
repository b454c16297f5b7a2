"""The environments app's answers to the core's questions about a run's values (``studio.run_values``)."""
from __future__ import annotations

from typing import Any

from studio.environments.access import environment_for, secrets_usable_by
from studio.environments.models import EnvironmentRun, PromotedVersion
from studio.run_values import StartValues, ValuesRefused
from studio.secret_box import seal, unseal

SECRETS = "studio.environments.secrets"
"""The purpose secrets are sealed for (``studio.secret_box``)."""


def seal_secret(value: str) -> str:
    return seal(value, SECRETS)


class EnvironmentValues:
    """``studio.run_values.ValuesProvider`` over environments, promoted versions and secrets."""

    def for_start(self, user, pipeline, version, environment: str | None) -> StartValues:
        if not environment:
            return StartValues()
        found = environment_for(user, pipeline, environment)
        if found is None:
            team_owned = getattr(pipeline, "team_id", None) is not None
            whose = " or of the pipeline's team that your role lets you use" if team_owned else ""
            raise ValuesRefused([_problem(f"no environment {environment!r} of yours{whose}")], status=404)
        if found.requires_approval and version is not None:  # what runs there; a preview or test writes nothing
            promoted = PromotedVersion.objects.filter(environment=found, pipeline=pipeline).first()
            if promoted is None or promoted.version_id != version.pk:
                has = f"it has version {promoted.version.number}" if promoted else "no version is promoted to it"
                raise ValuesRefused([_problem(
                    f"version {version.number} is not promoted to {found.name!r} ({has}); only an approved "
                    "version runs in an environment that requires approval")], status=409)
        return StartValues(found.name, dict(found.parameters), found)

    def secret_names(self, user, pipeline=None) -> set[str]:
        return set(secrets_usable_by(user, pipeline))

    def bind(self, run, values: StartValues) -> None:
        if values.environment:
            EnvironmentRun.objects.create(run=run, environment=values.binding, environment_name=values.environment,
                                          parameters=values.parameters)

    def environment_of(self, run) -> str | None:
        return EnvironmentRun.objects.filter(run=run).values_list("environment_name", flat=True).first()

    def parameters_of(self, run) -> dict[str, Any]:
        return EnvironmentRun.objects.filter(run=run).values_list("parameters", flat=True).first() or {}

    def environment_usable(self, user, run) -> bool:
        bound = EnvironmentRun.objects.filter(run=run).values_list("environment_id", "environment_name").first()
        if bound is None:
            return True
        environment_id, name = bound
        found = environment_for(user, run.pipeline, name)  # on a team's pipeline the team's before one's own
        return found is not None and found.pk == environment_id

    def secret_values(self, user, names: set[str], pipeline=None) -> dict[str, str]:
        """The values of ``names`` among the secrets ``user`` may use with ``pipeline`` (their own, the team's on a
        team's pipeline) that open (one sealed under another key is left out)."""
        usable = secrets_usable_by(user, pipeline)
        values = {name: unseal(usable[name].sealed, SECRETS) for name in names if name in usable}
        return {name: value for name, value in values.items() if value}


def _problem(message: str) -> dict:
    return {"node": None, "edge": None, "field": "environment", "message": message}
