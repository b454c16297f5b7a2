"""Trusted code: who may save or run a pipeline whose definition brings its own Python.

``transform.python`` runs the code of the definition with the worker's full rights (no
expression language, no budget), so only users holding the dedicated Django permission
``studio.run_python_code`` may save a version containing one, start a run of one or
preview one; everyone else gets a 403 that names every such node (``errors``, located like
validation problems, so the editor marks the nodes). Reading, validating and diffing stay
open: they never run the code (validation only parses it).

Grant it as any Django permission: ``user.user_permissions.add(...)``, a group, or the admin.
"""
from __future__ import annotations

PERMISSION = "studio.run_python_code"
"""``app_label.codename`` of the permission (declared on ``Pipeline.Meta.permissions``)."""
CODE_TYPES = ("transform.python",)


class TrustedCodeRefused(Exception):
    """The nodes with code the user may not save or run: ``errors`` locates each (the API answers 403)."""

    def __init__(self, errors: list[dict], detail: str):
        super().__init__(detail)
        self.errors = errors
        self.detail = detail


def code_nodes(definition) -> list[str]:
    """The ids of the nodes of ``definition`` that run their own code."""
    nodes = definition.get("nodes") if isinstance(definition, dict) else None
    return [node.get("id") for node in nodes or () if isinstance(node, dict) and node.get("type") in CODE_TYPES]


def require_code_permission(user, definition, action: str = "save or run") -> None:
    """Raise :class:`TrustedCodeRefused` when ``definition`` has code nodes and ``user`` lacks the permission."""
    nodes = code_nodes(definition)
    if not nodes or user.has_perm(PERMISSION):
        return
    rule = f"only users with the permission to run Python code ({PERMISSION}) may {action} a pipeline with one"
    errors = [{"node": node, "edge": None, "field": "type", "message": f"node '{node}' runs Python code: {rule}"}
              for node in nodes]
    names = ", ".join(f"'{node}'" for node in nodes)
    raise TrustedCodeRefused(errors, detail=f"node {names} runs Python code (transform.python): {rule}")
