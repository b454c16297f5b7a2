"""Pipelines as files from the shell: validate offline, diff, pull from and push to a studio.

A project folder holds one ``<name>.pipeline.yaml`` per pipeline (``engine.api`` writes and
reads the format: stable key order, comments kept, the editor's layout in a section of its
own). A file stands for the studio's pipeline of the same ``name``.

    python -m studio validate pipelines/                  # no studio needed: for pre-commit hooks and CI
    python -m studio pull pipelines/                       # every pipeline you may see, one file each
    python -m studio diff pipelines/                       # what pushing would change, logic apart from layout
    python -m studio push pipelines/ -m "from CI"          # a new version where a file differs

Nothing is overwritten silently. The folder's ``.studio-files.json`` records, per file, the
pipeline and version it was last pulled or pushed as, and a digest of the text then written:
``pull`` writes over a file only when it is as it was written (or holds the studio's logic
already), and ``push`` refuses a file edited from an older version than the studio's latest
(pull, merge, push; or ``--force``). Pushes write new versions, so the studio keeps every old one.
"""
from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RECORD = ".studio-files.json"


@dataclass
class Report:
    """What a file command prints, and its exit code (1 when a file needs attention)."""

    lines: list[str] = field(default_factory=list)
    exit_code: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class FileCommandError(Exception):
    """A usage error of a file command (a path that holds no pipeline file, say)."""


def add_file_commands(commands) -> None:
    """The file commands' parsers, under ``python -m studio``."""
    validate = commands.add_parser("validate", help="check pipeline files offline (no studio needed)",
                                   description="Checks what the engine checks on save: the format, operators, "
                                               "parameters, edges, cycles, event time. Grants (which paths and "
                                               "hosts a user may use) are the studio's, checked on push.")
    validate.add_argument("paths", nargs="+", help="pipeline files or folders of them")
    validate.add_argument("--environment", metavar="NAME", help=(
        "fill in the ${param:...} of an environment file (NAME.environment.yaml among the paths, or its path) "
        "and check the result; without it, the fields holding references are checked when a run fills them in"))
    pull = commands.add_parser("pull", help="write the studio's pipelines as files into a folder")
    pull.add_argument("folder")
    pull.add_argument("--pipeline", type=int, action="append", help="only these pipeline ids (repeatable)")
    pull.add_argument("--force", action="store_true", help="write over files whose logic differs from the studio's")
    diff = commands.add_parser("diff", help="what pushing these files would change in the studio")
    diff.add_argument("paths", nargs="+")
    diff.add_argument("--exit-code", action="store_true", help="exit 1 when a file's logic differs")
    push = commands.add_parser("push", help="save each file that differs as a new version of its pipeline")
    push.add_argument("paths", nargs="+")
    push.add_argument("-m", "--message", default="", help="the versions' message")
    push.add_argument("--force", action="store_true",
                      help="save files edited from an older version than the studio's latest")


FILE_COMMANDS = {"validate", "pull", "diff", "push"}


def run_file_command(args, studio) -> Report:
    """Carry out ``args.command`` (one of ``FILE_COMMANDS``) with ``studio``, a REST client. Environment files
    (``studio.cli_environments``) among the paths go with the pipelines: pulled, diffed and pushed."""
    from studio.cli_environments import (EnvironmentFileError, diff_environments, environment_files,
                                         pull_environments, push_environments, read_environment)

    try:
        if args.command == "validate":
            environment = read_environment(args.paths, args.environment) if args.environment else None
            return validate_files(pipeline_files(args.paths), environment)
        if args.command == "pull":
            report = pull(studio, Path(args.folder), args.pipeline, args.force)
            if not args.pipeline:
                pull_environments(studio, Path(args.folder), report)
            return report
        environments = environment_files(args.paths)
        pipelines = pipeline_files(args.paths) if not environments or _has_pipeline_files(args.paths) else []
        report = Report()
        if args.command == "diff":
            diff_environments(studio, environments, report, args.exit_code)
            return _joined(report, diff(studio, pipelines, args.exit_code) if pipelines else Report())
        push_environments(studio, environments, report)  # first: a pushed pipeline may run in them
        return _joined(report, push(studio, pipelines, args.message, args.force) if pipelines else Report())
    except EnvironmentFileError as error:
        raise FileCommandError(str(error)) from None


def _has_pipeline_files(paths: list[str]) -> bool:
    try:
        return bool(pipeline_files(paths))
    except FileCommandError:
        return False


def _joined(first: Report, second: Report) -> Report:
    return Report(first.lines + second.lines, max(first.exit_code, second.exit_code))


def pipeline_files(paths: list[str]) -> list[Path]:
    """Every pipeline file the paths name: files as given, folders searched for ``*.pipeline.yaml``."""
    found: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            found.extend(sorted(given.rglob(f"*{_suffix()}")))
        elif given.is_file():
            found.append(given)
        else:
            raise FileCommandError(f"{given}: no such file or folder")
    if not found:
        raise FileCommandError(f"no *{_suffix()} file in {', '.join(paths)}")
    return found


def validate_files(files: list[Path], environment: dict | None = None) -> Report:
    """Each file checked offline; with ``environment`` (an environment file's content), its parameters filled
    in first (an unknown one is a problem naming node and field). A secret is checked by name in the studio
    only: offline its fields are left as they are."""
    from engine.api import PipelineFileError, pipeline_from_text

    report = Report()
    for path in files:
        try:
            problems = _problems_of(pipeline_from_text(path.read_text(encoding="utf-8")), environment)
        except PipelineFileError as error:
            problems = [{"message": str(error)}]
        except (OSError, UnicodeDecodeError) as error:
            problems = [{"message": f"cannot read: {error}"}]
        report.lines.extend(f"{path}: {problem_text(problem)}" for problem in problems)
        if problems:
            report.exit_code = 1
        else:
            report.lines.append(f"{path}: valid")
    return report


def _problems_of(definition: dict, environment: dict | None) -> list[dict]:
    from engine.api import about_places, fill_parameters, stand_in_references, validate_definition

    problems: list[dict] = []
    if environment is not None:
        definition, problems = fill_parameters(definition, environment.get("parameters") or {})
    stood_in, places = stand_in_references(definition)
    return problems + [problem for problem in validate_definition(stood_in) if not about_places(problem, places)]


def pull(studio, folder: Path, only: list[int] | None, force: bool) -> Report:
    from engine.api import logic_of, pipeline_from_text, pipeline_to_text

    folder.mkdir(parents=True, exist_ok=True)
    report, record = Report(), FolderRecord(folder)
    listed = studio.request("GET", "pipelines")
    chosen = [p for p in listed if not only or p["id"] in only]
    for pipeline, path in zip(chosen, _file_names(folder, chosen)):
        definition = _named(studio.request("GET", f"pipelines/{pipeline['id']}")["definition"], pipeline["name"])
        existing = path.read_text(encoding="utf-8") if path.exists() else None
        if existing is not None and not force and _edited(studio, record, path, existing, pipeline, definition):
            report.lines.append(f"{path}: not written, it holds changes not pushed (pushing them would make "
                                f"v{pipeline['version'] + 1}; or pull --force to take the studio's v{pipeline['version']})")
            report.exit_code = 1
            continue
        text = pipeline_to_text(definition, existing=existing)
        record.wrote(path, text, pipeline["id"], pipeline["version"])
        if text == existing:
            report.lines.append(f"{path}: unchanged (v{pipeline['version']})")
            continue
        path.write_text(text, encoding="utf-8")
        report.lines.append(f"{path}: written from v{pipeline['version']}")
    record.save()
    return report


def _edited(studio, record: "FolderRecord", path: Path, text: str, pipeline: dict, latest: dict) -> bool:
    """The file holds a definition neither the studio's latest nor the version it was written from.

    Comments are not changes: writing the file again keeps them."""
    from engine.api import PipelineFileError, pipeline_from_text

    if record.as_written(path, text):
        return False
    try:
        local = pipeline_from_text(text)
    except PipelineFileError:
        return True
    if local == latest:
        return False
    base = record.version_of(path, pipeline["id"])
    if base is None:
        return True
    written = studio.request("GET", f"pipelines/{pipeline['id']}/versions/{base}")["definition"]
    return local != _named(written, pipeline["name"])


def diff(studio, files: list[Path], exit_code: bool) -> Report:
    from engine.api import logic_of, pipeline_to_text

    report = Report()
    for path, definition, pipeline in _matched(studio, files, report):
        if pipeline is None:
            report.lines.append(f"{path}: new pipeline {definition.get('name')!r} (push creates it)")
            report.exit_code = report.exit_code or int(exit_code)
            continue
        current = studio.request("GET", f"pipelines/{pipeline['id']}")["definition"]
        before = pipeline_to_text(logic_of(_named(current, pipeline["name"]))).splitlines()
        after = pipeline_to_text(logic_of(definition)).splitlines()
        changes = list(difflib.unified_diff(before, after, f"studio v{pipeline['version']}", str(path), lineterm=""))
        if changes:
            report.lines.extend(changes)
            report.exit_code = report.exit_code or int(exit_code)
        elif _named(current, pipeline["name"]) != definition:
            report.lines.append(f"{path}: layout only, no logic change against v{pipeline['version']}")
        else:
            report.lines.append(f"{path}: same as v{pipeline['version']}")
    return report


def push(studio, files: list[Path], message: str, force: bool = False) -> Report:
    report = validate_files(files)
    if report.exit_code:
        report.lines.append("nothing pushed: fix the files above first")
        return report
    report = Report()
    records = {folder: FolderRecord(folder) for folder in {path.parent for path in files}}
    for path, definition, pipeline in _matched(studio, files, report):
        record = records[path.parent]
        body = {"definition": definition, "message": message or f"pushed from {path.name}"}
        if pipeline is None:
            created = studio.request("POST", "pipelines", {"name": definition.get("name") or _stem(path),
                                                           **body})
            record.wrote(path, path.read_text(encoding="utf-8"), created["id"], created["version"])
            report.lines.append(f"{path}: created pipeline {created['id']} v{created['version']}")
            continue
        current = studio.request("GET", f"pipelines/{pipeline['id']}")["definition"]
        if _named(current, pipeline["name"]) == definition:
            record.wrote(path, path.read_text(encoding="utf-8"), pipeline["id"], pipeline["version"])
            report.lines.append(f"{path}: unchanged (v{pipeline['version']})")
            continue
        base = record.version_of(path, pipeline["id"])
        if base is not None and base < pipeline["version"] and not force:
            report.lines.append(f"{path}: not pushed, it was edited from v{base} and the studio has "
                                f"v{pipeline['version']} since (pull --force into another folder, merge, push; "
                                "or push --force)")
            report.exit_code = 1
            continue
        saved = studio.request("PUT", f"pipelines/{pipeline['id']}", body)
        record.wrote(path, path.read_text(encoding="utf-8"), pipeline["id"], saved["version"])
        report.lines.append(f"{path}: saved as v{saved['version']} of pipeline {pipeline['id']}")
    for record in records.values():
        record.save()
    return report


class FolderRecord:
    """What was last written to or pushed from each file of a folder: pipeline, version, text digest."""

    def __init__(self, folder: Path):
        self.path = folder / RECORD
        try:
            self.files = json.loads(self.path.read_text(encoding="utf-8"))["files"]
        except (OSError, ValueError, KeyError, TypeError):
            self.files = {}

    def as_written(self, path: Path, text: str) -> bool:
        """The file holds what the last pull or push left in it: writing over it loses nothing."""
        entry = self.files.get(path.name)
        return isinstance(entry, dict) and entry.get("sha256") == _digest(text)

    def version_of(self, path: Path, pipeline_id: int) -> int | None:
        entry = self.files.get(path.name)
        if isinstance(entry, dict) and entry.get("pipeline") == pipeline_id and isinstance(entry.get("version"), int):
            return entry["version"]
        return None

    def wrote(self, path: Path, text: str, pipeline_id: int, version: int) -> None:
        self.files[path.name] = {"pipeline": pipeline_id, "version": version, "sha256": _digest(text)}

    def save(self) -> None:
        self.path.write_text(json.dumps({"files": self.files}, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _matched(studio, files: list[Path], report: Report):
    """Each file with its definition and the studio's pipeline of its name (None: not there yet)."""
    from engine.api import PipelineFileError, pipeline_from_text

    by_name: dict[str, list[dict]] = {}
    for pipeline in studio.request("GET", "pipelines"):
        by_name.setdefault(pipeline["name"], []).append(pipeline)
    for path in files:
        try:
            definition = pipeline_from_text(path.read_text(encoding="utf-8"))
        except PipelineFileError as error:
            report.lines.append(f"{path}: {error}")
            report.exit_code = 1
            continue
        name = definition.get("name") or _stem(path)
        same_name = by_name.get(name, [])
        if len(same_name) > 1:
            ids = ", ".join(str(p["id"]) for p in same_name)
            report.lines.append(f"{path}: several pipelines are named {name!r} ({ids}); rename all but one")
            report.exit_code = 1
            continue
        yield path, definition, (same_name[0] if same_name else None)


def _named(definition: dict[str, Any], name: str) -> dict[str, Any]:
    """The studio's definition under the pipeline's name, as its file holds it."""
    return {**definition, "name": name} if definition.get("name") != name else definition


def _file_names(folder: Path, pipelines: list[dict]) -> list[Path]:
    """One file per pipeline; the id is added where two names would make one file."""
    from engine.api import pipeline_file_name

    names = [pipeline_file_name(p["name"]) for p in pipelines]
    return [folder / (pipeline_file_name(p["name"], str(p["id"])) if names.count(name) > 1 else name)
            for name, p in zip(names, pipelines)]


def _suffix() -> str:
    from engine.api import PIPELINE_FILE_SUFFIX  # imported when used: the REST commands start without the engine

    return PIPELINE_FILE_SUFFIX


def _stem(path: Path) -> str:
    return path.name[:-len(_suffix())]


def problem_text(problem: dict[str, Any]) -> str:
    """A validation problem in one line, where first: ``node m, field params.expression: ...``."""
    where = ", ".join(f"{kind} {problem[kind]}" for kind in ("node", "edge", "field") if problem.get(kind))
    return f"{where}: {problem['message']}" if where else str(problem["message"])
