"""Environments from the shell and in a project folder: files beside the pipelines, promote, approve.

An environment is kept as ``<name>.environment.yaml`` next to the ``*.pipeline.yaml`` files::

    name: prod
    position: 1                 # promoted into from the environment before it (dev: 0)
    requires_approval: true
    approval_role: operator    # decided by an operator (or admin) of the pipeline's team, never who asked
    parameters:
      out_dir: /data/prod/out
      parallelism: 4
      db: postgresql://app:${secret:pg_password}@db.prod/shop   # a secret is named, never written

``pull`` writes the environments you own, ``push`` creates or changes them from their files, ``diff``
says which differ, and ``validate --environment prod`` checks pipeline files with prod's parameters
filled in, offline. A secret's value is in no file: the studio keeps it (``/api/secrets``).

    python -m studio promote 7 --version 3 --to prod -m "release 12"   # PENDING when prod asks an approver
    python -m studio approve 15 --comment "checked the diff"            # as an approver of prod
    python -m studio run 7 --environment prod
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

SUFFIX = ".environment.yaml"
KEYS = ("name", "position", "description", "requires_approval", "approval_role", "parameters")


class EnvironmentFileError(ValueError):
    """A file that is not an environment (the message names the file and the key), or a name that is none."""


def add_environment_commands(commands) -> None:
    commands.add_parser("environments", help="list your environments and those you approve for")
    promote = commands.add_parser("promote", help="promote a pipeline's version into an environment")
    promote.add_argument("pipeline", type=int)
    promote.add_argument("--version", type=int, required=True)
    promote.add_argument("--to", required=True, metavar="ENVIRONMENT", help="the target environment's name")
    promote.add_argument("-m", "--message", default="")
    for name, verb in (("approve", "approve (and apply)"), ("reject", "reject")):
        decision = commands.add_parser(name, help=f"{verb} a pending promotion, as a user holding its environment's approval role on the pipeline")
        decision.add_argument("promotion", type=int)
        decision.add_argument("--comment", default="")


ENVIRONMENT_COMMANDS = {"environments", "promote", "approve", "reject"}


def run_environment_command(args, studio) -> Any:
    """The command's answer: the environments as JSON, or a promotion's lines."""
    if args.command == "environments":
        return studio.request("GET", "environments")
    if args.command == "promote":
        target = environment_named(studio, args.to)
        promotion = studio.request("POST", "promotions", {"pipeline": args.pipeline, "version": args.version,
                                                           "environment": target["id"], "message": args.message})
        return promotion_text(promotion)
    promotion = studio.request("POST", f"promotions/{args.promotion}/{args.command}", {"comment": args.comment})
    return promotion_text(promotion)


def environment_named(studio, name: str) -> dict:
    for environment in studio.request("GET", "environments"):
        if environment["name"] == name and environment["mine"]:
            return environment
    raise EnvironmentFileError(f"no environment named {name!r} of yours")


def promotion_text(promotion: dict) -> list[str]:
    """A promotion told in lines: where, its state, and the parameters that differ."""
    lines = [f"promotion {promotion['id']}: {promotion['pipeline_name']} v{promotion['version']} "
             f"{promotion['source'] or '(new)'} -> {promotion['target']}: {promotion['status']}"]
    if promotion["status"] == "PENDING":
        lines.append(f"  waits for a user holding the {promotion['approval_role']} role on the pipeline")
    if promotion.get("decided_by"):
        lines.append(f"  decided by {promotion['decided_by']}" + (f": {promotion['comment']}" if promotion["comment"]
                                                                  else ""))
    for change in promotion["diff"]["parameters"]:
        if change["changes"]:
            lines.append(f"  ${{param:{change['name']}}}: {change['source']!r} -> {change['target']!r}")
    return lines


# --- files ------------------------------------------------------------------------------------


def environment_files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            found.extend(sorted(given.rglob(f"*{SUFFIX}")))
        elif given.is_file() and given.name.endswith(SUFFIX):
            found.append(given)
    return found


def environment_to_text(environment: dict) -> str:
    from ruamel.yaml import YAML

    document = {key: environment[key] for key in KEYS if key in environment and environment[key] not in ("", None)}
    yaml = YAML()
    yaml.default_flow_style = False
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()


def environment_from_text(text: str, where: str) -> dict:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        loaded = YAML(typ="safe").load(text)
    except YAMLError as error:
        raise EnvironmentFileError(f"{where}: {error}") from None
    if not isinstance(loaded, dict) or not isinstance(loaded.get("name"), str):
        raise EnvironmentFileError(f"{where}: an environment file is a mapping with a name")
    unknown = sorted(set(loaded) - set(KEYS))
    if unknown:
        raise EnvironmentFileError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    if not isinstance(loaded.get("parameters", {}), dict):
        raise EnvironmentFileError(f"{where}: parameters is a mapping of names to values")
    return {"parameters": {}, **loaded}


def read_environment(paths: list[str], name: str) -> dict:
    """The environment ``name`` (a file's path, or the name of an ``*.environment.yaml`` among ``paths``)."""
    given = Path(name)
    if given.is_file():
        return environment_from_text(given.read_text(encoding="utf-8"), str(given))
    for path in environment_files(paths):
        environment = environment_from_text(path.read_text(encoding="utf-8"), str(path))
        if environment["name"] == name:
            return environment
    raise EnvironmentFileError(f"no {name}{SUFFIX} (nor an environment file named {name!r}) in {', '.join(paths)}")


def pull_environments(studio, folder: Path, report) -> None:
    for environment in studio.request("GET", "environments"):
        if not environment["mine"]:
            continue
        path = folder / f"{environment['name']}{SUFFIX}"
        text = environment_to_text(environment)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            report.lines.append(f"{path}: unchanged")
            continue
        path.write_text(text, encoding="utf-8")
        report.lines.append(f"{path}: written")


def diff_environments(studio, files: list[Path], report, exit_code: bool) -> None:
    current = {environment["name"]: environment for environment in studio.request("GET", "environments")
               if environment["mine"]}
    for path in files:
        wanted = environment_from_text(path.read_text(encoding="utf-8"), str(path))
        have = current.get(wanted["name"])
        changes = _changes(have, wanted)
        if not changes:
            report.lines.append(f"{path}: no change")
            continue
        report.lines.append(f"{path}: " + ("new environment" if have is None else "; ".join(changes)))
        if exit_code:
            report.exit_code = 1


def push_environments(studio, files: list[Path], report) -> None:
    current = {environment["name"]: environment for environment in studio.request("GET", "environments")
               if environment["mine"]}
    for path in files:
        wanted = environment_from_text(path.read_text(encoding="utf-8"), str(path))
        have = current.get(wanted["name"])
        if have is None:
            studio.request("POST", "environments", wanted)
            report.lines.append(f"{path}: created environment {wanted['name']!r}")
        elif _changes(have, wanted):
            studio.request("PATCH", f"environments/{have['id']}", wanted)
            report.lines.append(f"{path}: changed environment {wanted['name']!r}: {'; '.join(_changes(have, wanted))}")
        else:
            report.lines.append(f"{path}: unchanged")


def _changes(have: dict | None, wanted: dict) -> list[str]:
    if have is None:
        return ["new"]
    changes = [f"{key}: {have.get(key)!r} -> {wanted[key]!r}" for key in KEYS
               if key in wanted and key != "parameters" and have.get(key) != wanted[key]]
    before, after = have.get("parameters") or {}, wanted.get("parameters") or {}
    changes += [f"${{param:{name}}}: {before.get(name)!r} -> {after.get(name)!r}"
                for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
    return changes
