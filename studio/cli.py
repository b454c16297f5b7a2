"""``python -m studio``: the studio's REST API from a shell, for CI jobs, cron and other services.

Talks to a running studio (``--url`` or ``STUDIO_URL``, default http://127.0.0.1:8000)
with an API token (``--token`` or ``STUDIO_TOKEN``; create one in the browser, with
``python -m studio token --username U``, or ``manage.py create_token U``). Prints JSON (``status``:
a summary in a few lines, ``--json`` for all of it);
exits 0 on success, 1 when the studio refused (its ``detail`` on stderr), 2 on usage errors.

    python -m studio pipelines
    python -m studio runs --pipeline 3 --status RUNNING
    python -m studio run 3 --restore-path /data/savepoints/savepoint-7-ab12 --wait RUNNING
    python -m studio savepoint 12 --wait
    python -m studio stop 12 --drain
    python -m studio cancel 12
    python -m studio status 12            # a summary; --json for the whole run
    python -m studio token --username admin --password-file var/admin-password
    python -m studio validate pipelines/  # pipelines as files: validate (offline), pull, diff, push;
                                          # see studio.cli_files
    python -m studio run 3 --environment prod   # environments, promote, approve: see studio.cli_environments
    studio test clicks-per-user --version 3 --junit results.xml   # exit 0: every test case passed
    studio prove clicks-per-user --kills 10 --seed 1234           # exit 0: the proof passed

``test`` and ``prove`` take a pipeline's id or its name. ``test`` runs the version's saved test
cases (the latest version's by default) and exits 1 when one failed or could not run, so a CI
job can gate a deploy on it; ``--junit FILE`` writes the JUnit XML report.
"""
from __future__ import annotations

import argparse
import getpass
import http.cookiejar
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from studio.cli_environments import (ENVIRONMENT_COMMANDS, EnvironmentFileError, add_environment_commands,
                                     run_environment_command)
from studio.cli_files import FILE_COMMANDS, FileCommandError, Report, add_file_commands, run_file_command

TERMINAL = {"FINISHED", "CANCELED", "FAILED"}


class StudioError(Exception):
    """The studio answered with an error; ``status`` and its ``detail``."""

    def __init__(self, status: int, detail: str):
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status


class Studio:
    """A small client of the REST API (urllib only, so it runs wherever the studio's Python does)."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 30):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._cookies = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self._cookies))

    def request(self, method: str, path: str, body: Any = None, params: dict | None = None, *,
                raw: bool = False) -> Any:
        url = f"{self.url}/api/{path.lstrip('/')}"
        if params:
            url += "?" + urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        csrf = next((c.value for c in self._cookies if c.name == "csrftoken"), None)
        if csrf:
            headers["X-CSRFToken"] = csrf
        if raw:
            headers["Accept"] = "*/*"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            try:
                detail = json.loads(error.read() or b"{}").get("detail") or error.reason
            except ValueError:
                detail = error.reason
            raise StudioError(error.code, str(detail)) from None
        if raw:
            return payload.decode()
        return json.loads(payload) if payload else None

    def wait_for(self, describe, done, timeout: float, interval: float = 1.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = describe()
            if done(value):
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"gave up after {timeout:.0f} s; last answer: {json.dumps(value)[:300]}")
            time.sleep(interval)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m studio", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("STUDIO_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("STUDIO_TOKEN"))
    parser.add_argument("--timeout", type=float, default=300, help="seconds --wait waits at most")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("pipelines", help="list pipelines")
    runs = commands.add_parser("runs", help="list runs")
    runs.add_argument("--pipeline", type=int)
    runs.add_argument("--status", help="comma-separated statuses")
    status = commands.add_parser("status", help="a run's summary: status, uptime, restarts, last checkpoint")
    status.add_argument("run", type=int)
    status.add_argument("--json", action="store_true", help="the whole run as JSON instead of the summary")

    run = commands.add_parser("run", help="start a run of a pipeline")
    run.add_argument("pipeline", type=int)
    run.add_argument("--version", type=int)
    run.add_argument("--mode", choices=["streaming", "batch"])
    restore = run.add_mutually_exclusive_group()
    restore.add_argument("--restore-checkpoint", type=int, metavar="ID",
                         help="a checkpoint or savepoint id as the run page shows it (#ID); see --restore-run")
    restore.add_argument("--restore-pk", type=int, metavar="PK", help="a checkpoint or savepoint's row id (pk)")
    restore.add_argument("--restore-path", metavar="DIR", help="a checkpoint or savepoint directory or URL")
    run.add_argument("--restore-run", type=int, metavar="RUN",
                     help="the run whose --restore-checkpoint is meant (needed when several runs have that id)")
    run.add_argument("--allow-non-restored-state", action="store_true")
    run.add_argument("--environment", metavar="NAME", help="run with this environment's parameters")
    run.add_argument("--wait", metavar="STATUS", help="wait until the run reaches STATUS (or ends)")

    savepoint = commands.add_parser("savepoint", help="trigger a savepoint of a running run")
    savepoint.add_argument("run", type=int)
    savepoint.add_argument("--target-directory")
    savepoint.add_argument("--wait", action="store_true", help="wait until it is COMPLETED or FAILED")

    stop = commands.add_parser("stop", help="stop a run with a savepoint (and wait for the savepoint)")
    stop.add_argument("run", type=int)
    stop.add_argument("--drain", action="store_true")
    stop.add_argument("--target-directory")
    stop.add_argument("--no-wait", action="store_true")

    cancel = commands.add_parser("cancel", help="cancel a run")
    cancel.add_argument("run", type=int)

    test = commands.add_parser("test", help="run a pipeline version's test cases; exit 1 unless all passed")
    test.add_argument("pipeline", help="the pipeline's id or name")
    test.add_argument("--version", type=int, help="the version (default: the latest)")
    test.add_argument("--case", action="append", metavar="NAME", help="run only this test case (repeatable)")
    test.add_argument("--environment", metavar="NAME", help="run them with this environment's parameters")
    test.add_argument("--junit", metavar="FILE", help="write the JUnit XML report to FILE")
    test.add_argument("--json", action="store_true", help="print the whole result as JSON instead of the summary")

    prove = commands.add_parser("prove", help="prove a version exactly-once on Spark; exit 1 unless it passed")
    prove.add_argument("pipeline", help="the pipeline's id or name")
    prove.add_argument("--version", type=int, help="the version (default: the latest)")
    prove.add_argument("--case", metavar="NAME", help="the test case whose input it runs (default: the first)")
    prove.add_argument("--kills", type=int, default=10)
    prove.add_argument("--seed", type=int, help="replay a proof: the seed its report names")
    prove.add_argument("--no-rescale", action="store_true", help="never restore at another parallelism")
    prove.add_argument("--json", action="store_true", help="print the whole proof as JSON instead of the summary")

    token = commands.add_parser("token", help="create an API token by logging in with a password",
                                description="The password comes from --password-file, --password-stdin or "
                                            "STUDIO_PASSWORD, else from a prompt on the terminal.")
    token.add_argument("--username", required=True)
    token.add_argument("--name", default="cli")
    password = token.add_mutually_exclusive_group()
    password.add_argument("--password-file", metavar="FILE",
                          help="read the password from FILE (`make up` writes the admin's to var/admin-password)")
    password.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    add_file_commands(commands)
    add_environment_commands(commands)
    return parser


def main(argv: list[str] | None = None, out=sys.stdout) -> int:
    args = _parser().parse_args(argv)
    studio = Studio(args.url, args.token)
    try:
        result = _dispatch(args, studio)
    except StudioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (UsageError, FileCommandError, EnvironmentFileError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (TimeoutError, urllib.error.URLError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if isinstance(result, Report):
        out.write(result.text + "\n")
        return result.exit_code
    if isinstance(result, Verdict):
        out.write(result.text + "\n")
        return 0 if result.passed else 1
    if isinstance(result, RunSummary):
        out.write(result.text + "\n")
        result = result.run
    else:
        json.dump(result, out, indent=2)
        out.write("\n")
    if isinstance(result, dict) and result.get("status") == "FAILED":
        return 1
    return 0


def _dispatch(args, studio: Studio) -> Any:
    if args.command in FILE_COMMANDS:
        return run_file_command(args, studio)
    if args.command in ENVIRONMENT_COMMANDS:
        answer = run_environment_command(args, studio)
        return Report(answer) if args.command != "environments" else answer
    if args.command == "pipelines":
        return studio.request("GET", "pipelines")
    if args.command == "runs":
        return _all_pages(studio, {"pipeline": args.pipeline, "status": args.status})
    if args.command == "status":
        run = studio.request("GET", f"runs/{args.run}")
        if args.json:
            return run
        return RunSummary(run, studio.request("GET", f"runs/{args.run}/checkpoints"))
    if args.command == "cancel":
        return studio.request("POST", f"runs/{args.run}/cancel")
    if args.command == "run":
        return _run(args, studio)
    if args.command == "savepoint":
        body = {"target_directory": args.target_directory} if args.target_directory else {}
        request_id = studio.request("POST", f"runs/{args.run}/savepoints", body)["request_id"]
        return _savepoint_outcome(studio, args.run, request_id, args.timeout) if args.wait else {"request_id": request_id}
    if args.command == "stop":
        body = {"drain": args.drain, **({"target_directory": args.target_directory} if args.target_directory else {})}
        request_id = studio.request("POST", f"runs/{args.run}/stop", body)["request_id"]
        if args.no_wait:
            return {"request_id": request_id}
        return _savepoint_outcome(studio, args.run, request_id, args.timeout)
    if args.command == "test":
        return _test(args, studio)
    if args.command == "prove":
        return _prove(args, studio)
    if args.command == "token":
        password = _password(args)
        studio.request("POST", "auth/login", {"username": args.username, "password": password})
        return studio.request("POST", "auth/tokens", {"name": args.name})
    raise SystemExit(2)


class RunSummary:
    """A run told in a few lines, as ``status`` prints it; ``run`` is the REST answer it was made from."""

    def __init__(self, run: dict, checkpoints: dict, now: float | None = None):
        self.run = run
        self.text = "\n".join(_summary_lines(run, checkpoints, time.time() if now is None else now))


def _summary_lines(run: dict, checkpoints: dict, now: float) -> list[str]:
    lines = [f"run {run['id']} · pipeline {run['pipeline']} \"{run['pipeline_name']}\" · v{run['version']} · "
             f"{run['mode']}"]
    started, ended = _epoch(run.get("started_at")), _epoch(run.get("ended_at"))
    if started is None:
        lines.append(f"status: {run['status']} (not started)")
    else:
        verb = "ran" if ended is not None else "for"
        lines.append(f"status: {run['status']} · {verb} {_duration((ended or now) - started)} since "
                     f"{run['started_at']}")
    restarts = [entry for entry in run.get("status_history") or [] if entry["status"] == "RESTARTING"]
    if restarts:
        cause = restarts[-1].get("cause")
        lines.append(f"restarts: {len(restarts)}" + (f" · last cause: {cause.splitlines()[0]}" if cause else ""))
    else:
        lines.append("restarts: 0")
    latest = (checkpoints.get("latest") or {}).get("completed")
    counts = checkpoints.get("counts") or {}
    if latest:
        age = now - latest["trigger_timestamp"] / 1000
        lines.append(f"last checkpoint: #{latest['id']} {_duration(age)} ago · {latest['state_size']} bytes · "
                     f"{latest.get('end_to_end_duration')} ms · {counts.get('completed', 0)} completed, "
                     f"{counts.get('failed', 0)} failed")
    else:
        lines.append(f"last checkpoint: none yet · {counts.get('failed', 0)} failed")
    for request in (run.get("savepoint_requests") or [])[:1]:
        where = request.get("location") or request.get("failure_cause") or ""
        lines.append(f"last savepoint: {request['status']} {where}".rstrip())
    if run.get("failure_cause"):
        lines.append(f"failure: {run['failure_cause'].splitlines()[0]}")
    return lines


def _epoch(iso: str | None) -> float | None:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() if iso else None


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes}m {seconds}s" if hours else f"{minutes}m {seconds}s" if minutes else f"{seconds}s"


class UsageError(Exception):
    """The command line cannot work as given (exit status 2)."""


def _password(args) -> str:
    """The token command's password: a file, standard input, STUDIO_PASSWORD, or a prompt on a terminal only."""
    if args.password_file:
        return Path(args.password_file).read_text().strip()
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    if os.environ.get("STUDIO_PASSWORD"):
        return os.environ["STUDIO_PASSWORD"]
    if not sys.stdin.isatty():
        raise UsageError("no password: pass --password-file FILE or --password-stdin, or set STUDIO_PASSWORD "
                         "(there is no terminal to ask on)")
    return getpass.getpass(f"password of {args.username}: ")


def _all_pages(studio: Studio, params: dict) -> list:
    results, page = [], 1
    while True:
        answer = studio.request("GET", "runs", params={**params, "page": page, "page_size": 500})
        results.extend(answer["results"])
        if not answer["next"]:
            return results
        page += 1


def _run(args, studio: Studio) -> dict:
    body: dict[str, Any] = {}
    if args.version:
        body["version"] = args.version
    if args.mode:
        body["mode"] = args.mode
    if args.restore_checkpoint:
        body["restore_from"] = {"checkpoint": args.restore_checkpoint,
                                **({"run": args.restore_run} if args.restore_run else {})}
    elif args.restore_pk:
        body["restore_from"] = {"pk": args.restore_pk}
    elif args.restore_path:
        body["restore_from"] = {"path": args.restore_path}
    if args.allow_non_restored_state:
        body["allow_non_restored_state"] = True
    if args.environment:
        body["environment"] = args.environment
    run = studio.request("POST", f"pipelines/{args.pipeline}/runs", body)
    if not args.wait:
        return run
    wanted = args.wait.upper()
    return studio.wait_for(lambda: studio.request("GET", f"runs/{run['id']}"),
                           lambda r: r["status"] == wanted or r["status"] in TERMINAL, args.timeout)


def _savepoint_outcome(studio: Studio, run_id: int, request_id: str, timeout: float) -> dict:
    return studio.wait_for(lambda: studio.request("GET", f"runs/{run_id}/savepoints/{request_id}"),
                           lambda r: r["status"] != "IN_PROGRESS", timeout, interval=0.5)


class Verdict:
    """What ``test`` and ``prove`` print, and whether the command succeeds."""

    def __init__(self, text: str, passed: bool):
        self.text, self.passed = text, passed


def _pipeline_id(studio: Studio, given: str) -> int:
    """A pipeline named by its id or its name (a name two pipelines you see share is a usage error)."""
    if given.isdigit():
        return int(given)
    matches = [pipeline["id"] for pipeline in studio.request("GET", "pipelines") if pipeline["name"] == given]
    if len(matches) != 1:
        raise UsageError(f"no pipeline named {given!r}" if not matches else
                         f"{len(matches)} pipelines are named {given!r} (ids {', '.join(map(str, matches))}): "
                         "give the id")
    return matches[0]


def _test(args, studio: Studio) -> Verdict:
    pipeline = _pipeline_id(studio, args.pipeline)
    body: dict[str, Any] = {}
    if args.version:
        body["version"] = args.version
    if args.case:
        body["cases"] = args.case
    if args.environment:
        body["environment"] = args.environment
    studio.timeout = max(studio.timeout, args.timeout)  # the studio answers when the test cases ended
    run = studio.request("POST", f"pipelines/{pipeline}/test-runs", body)
    if args.junit:
        Path(args.junit).write_text(studio.request("GET", f"pipelines/{pipeline}/test-runs/{run['id']}/junit",
                                                   raw=True))
    if args.json:
        return Verdict(json.dumps(run, indent=2), run["status"] == "passed")
    lines = []
    for result in run["results"]:
        lines.append(f"{result['status'].upper():7} {result['name']} ({result.get('duration_s', 0):.2f} s)")
        lines.extend(f"        {failure}" for failure in result.get("failures") or [])
    if run.get("error"):
        lines.append(f"ERROR   {run['error']}")
    counts = run["counts"]
    lines.append(f"{run['status'].upper()}: {counts['passed']} passed, {counts['failed']} failed, {counts['error']} "
                 f"errors · pipeline {pipeline} v{run['version']}"
                 + (f" · environment {run['environment']}" if run.get("environment") else "")
                 + f" · test run {run['id']}")
    return Verdict("\n".join(lines), run["status"] == "passed")


def _prove(args, studio: Studio) -> Verdict:
    pipeline = _pipeline_id(studio, args.pipeline)
    body: dict[str, Any] = {"kills": args.kills, "rescale": not args.no_rescale}
    for key, value in (("version", args.version), ("test_case", args.case), ("seed", args.seed)):
        if value is not None:
            body[key] = value
    proof = studio.request("POST", f"pipelines/{pipeline}/proofs", body)
    proof = studio.wait_for(lambda: studio.request("GET", f"pipelines/{pipeline}/proofs/{proof['id']}"),
                            lambda p: p["status"] not in ("queued", "running"), args.timeout, interval=2)
    if args.json:
        return Verdict(json.dumps(proof, indent=2), proof["status"] == "passed")
    result = proof["result"] or {}
    lines = [f"{proof['status'].upper()}: {proof['message']}",
             f"pipeline {pipeline} v{proof['version']} · test case {proof['test_case']!r} · seed {proof['seed']} · "
             f"{result.get('kills_fired', 0)} of {proof['kills']} kills fired · proof {proof['id']}"]
    if proof["status"] == "failed":
        lines.append(f"replay: studio prove {pipeline} --version {proof['version']} --case {proof['test_case']!r} "
                     f"--kills {proof['kills']} --seed {proof['seed']}" + ("" if proof["rescale"] else " --no-rescale"))
    return Verdict("\n".join(lines), proof["status"] == "passed")
