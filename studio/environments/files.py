"""The environments app's answer to the core's environment files (``studio.environment_files``): the files of a
user's environments, and a file from Git taken back into the environment of its name."""
from __future__ import annotations

from studio.cli_environments import EnvironmentFileError, environment_from_text, environment_to_text
from studio.environment_files import SUFFIX, EnvironmentFileRefused, NotAnEnvironmentOfYours
from studio.environments.access import environments_usable_by
from studio.environments.models import Environment

KEPT_IN_THE_STUDIO = ("position", "requires_approval", "approval_role")
"""What a file says but a commit does not change: who approves and in which order versions are promoted."""


def as_file(environment: Environment) -> dict:
    return {"name": environment.name, "position": environment.position, "description": environment.description,
            "requires_approval": environment.requires_approval,
            "approval_role": environment.approval_role,
            "parameters": dict(sorted(environment.parameters.items()))}


class EnvironmentFiles:
    """``studio.environment_files.EnvironmentFiles`` over the environments a user owns."""

    def files_of(self, user) -> dict[str, str]:
        return {f"{environment.name}{SUFFIX}": environment_to_text(as_file(environment))
                for environment in environments_usable_by(user)}

    def take(self, user, text: str, where: str, *, apply: bool) -> str | None:
        from studio.api.exceptions import InvalidDefinition  # what the serializer's checks raise
        from studio.environments.api import EnvironmentSerializer

        try:
            wanted = environment_from_text(text, where)
        except EnvironmentFileError as error:
            raise EnvironmentFileRefused(str(error)) from None
        environment = environments_usable_by(user).filter(name=wanted["name"]).first()
        if environment is None:
            raise NotAnEnvironmentOfYours(f"{where}: no environment {wanted['name']!r} of yours (make it in the "
                                         "studio first; a commit does not create one)")
        try:
            parameters = EnvironmentSerializer().validate_parameters(wanted.get("parameters") or {})
        except InvalidDefinition as error:
            raise EnvironmentFileRefused(f"{where}: {error.detail}") from None
        description = wanted.get("description", environment.description) or ""
        if not isinstance(description, str) or len(description) > 500:
            raise EnvironmentFileRefused(f"{where}: description is a text of at most 500 characters")
        changed = sorted(name for name in set(parameters) | set(environment.parameters)
                         if parameters.get(name) != environment.parameters.get(name))
        if description != environment.description:
            changed.append("description")
        ignored = [key for key in KEPT_IN_THE_STUDIO if key in wanted and wanted[key] != as_file(environment)[key]]
        if not changed and not ignored:
            return None
        if apply and changed:
            environment.parameters, environment.description = parameters, description
            environment.save(update_fields=["parameters", "description", "updated_at"])
        line = f"environment {environment.name}: " + (f"{', '.join(changed)} from Git" if changed else "unchanged")
        if ignored:
            line += f" ({', '.join(ignored)} changed in the studio only, not by a commit)"
        return line
