"""A pipeline's environments as files beside its own (``<name>.environment.yaml``, the CLI's format): a hook.

The Git store (``studio.gitstore``) commits these files with the pipeline's file and brings their changes
made in Git back; the environments app (``studio.environments``) keeps the environments and fills the hook
in its ``ready()`` (:func:`register_environment_files`). Without it a pipeline carries no environment file.

A file holds an environment's parameters as the studio keeps them: a secret is named there
(``${secret:name}``), its value is in no file. What comes back from Git is the parameters (and the
description) of an environment the acting user may change; who approves promotions into it, whether one
must, and its place in the promotion order are changed in the studio only, never by a commit.
"""
from __future__ import annotations

from typing import Protocol

SUFFIX = ".environment.yaml"
"""How an environment's file is named: ``dev.environment.yaml``."""


class EnvironmentFileRefused(Exception):
    """A file that is not an environment, or whose parameters are not valid; the message says which."""


class NotAnEnvironmentOfYours(EnvironmentFileRefused):
    """A file of an environment the user has none of (or may not change): left alone, not an error of the file."""


class EnvironmentFiles(Protocol):
    def files_of(self, user) -> dict[str, str]:
        """``{file name: text}`` of the environments ``user`` may change, as the files carry them."""

    def take(self, user, text: str, where: str, *, apply: bool) -> str | None:
        """Check the file ``text`` (found at ``where``) against ``user``'s environment of its name and, with
        ``apply``, change that environment's parameters and description to the file's: a line saying what
        changed, None when nothing did. Raises :class:`EnvironmentFileRefused`."""


_provider: EnvironmentFiles | None = None


def register_environment_files(provider: EnvironmentFiles) -> None:
    """Let ``provider`` answer for environment files (the environments app, in its ``ready()``)."""
    global _provider
    _provider = provider


def environment_files_of(user) -> dict[str, str]:
    """The files of ``user``'s environments (none without a provider, or for nobody)."""
    return _provider.files_of(user) if _provider is not None and user is not None else {}


def take_environment_file(user, text: str, where: str, *, apply: bool = True) -> str | None:
    """See :meth:`EnvironmentFiles.take`; without a provider every file is refused."""
    if _provider is None:
        raise EnvironmentFileRefused(f"{where}: this studio keeps no environments")
    return _provider.take(user, text, where, apply=apply)
