"""Whether a file source's path matches a file now: a warning in the editor, checked within the validation budget.

Not an error: the files may arrive before the run starts (the run then fails naming the
node if they did not). But a typo in a path shows here, in the editor, instead of as a
FAILED run minutes later. Remote paths are not listed: a slow object store must not hold
up validation. A local path is work too (a glob with a dozen ``**`` walks every directory a
dozen times over), so this runs in the budgeted worker that validates the definition
(``studio.processes.budgeted_worker``), inside the same budget, reporting which node and
field it is checking: one that overruns the budget is stopped, and says so as a warning.

Django-free, as ``studio.location_policy``: the worker runs it with the policy it is handed.
"""
from __future__ import annotations

import glob
import json
import os
from typing import Any, Callable

from studio.location_policy import PATH, LocationRefused, Policy, engine_grants, location_fields, resolve

Report = Callable[[str], None]


def source_warnings(definition: Any, policy: Policy, report: Report = lambda where: None) -> list[dict]:
    """A warning for each local file source whose path matches no file now; ``report`` hears where
    (node and field) each check is, before it starts."""
    from engine.api import operator_spec

    warnings, grants = [], engine_grants(policy)
    nodes = definition.get("nodes") if isinstance(definition, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        spec = operator_spec(node.get("type")) if isinstance(node, dict) and isinstance(node.get("type"), str) else None
        if not spec or not spec["source"]:
            continue
        params = node.get("params") if isinstance(node.get("params"), dict) else {}
        for name, kind in location_fields(spec):
            if kind != PATH or not isinstance(params.get(name), str) or not params[name]:
                continue
            try:
                use = resolve(kind, params[name], policy, node_id=str(node.get("id")), field_=name)
            except LocationRefused:
                continue  # an error already
            if not use.local:
                continue
            report(json.dumps({"node": use.node, "field": f"params.{name}", "check": "files"}))
            if not matches_a_file(use.value, grants):
                warnings.append({"node": use.node, "edge": None, "field": f"params.{name}",
                                 "message": f"no file matches {params[name]} (yet): a run would fail unless "
                                            "files arrive there before it starts"})
    return warnings


def overrun_warning(where: dict, seconds: float) -> dict:
    """The warning for a file check stopped at the validation budget (``where``: its last report)."""
    return {"node": where.get("node"), "edge": None, "field": where.get("field"),
            "message": f"checking which files match this path took longer than the {seconds:g} s validation "
                       "budget and was stopped: a run would list them too; name the files more narrowly"}


def matches_a_file(path: str, grants=None) -> bool:
    """Whether a local file source over ``path`` (a file, a directory or a glob) would read a file.

    The file source's rule (``engine``'s ``list_files``): a directory is read recursively, a glob
    reads the files it matches (not the directories), and names starting with ``.`` or ``_``
    (hidden, or a writer's temporary files) are not data. With ``grants`` (``engine.api.Grants``) a
    file counts only when its real path lies inside them, as a run reads it: so the answer is the
    same whether a link to a file outside them leads anywhere or not. Stops at the first file it finds."""
    def readable(file: str) -> bool:
        return _is_data(file) and os.path.isfile(file) and (grants is None or grants.may_read(os.path.realpath(file)))

    if set("*?[") & set(path):  # a glob names files; the directories it matches are not read
        return any(readable(match) for match in glob.iglob(path, recursive=True))
    if os.path.isdir(path):
        return any(any(readable(os.path.join(directory, name)) for name in files)
                   for directory, _subdirectories, files in os.walk(path))
    return readable(path)


def _is_data(name: str) -> bool:
    return not os.path.basename(name).startswith((".", "_"))
