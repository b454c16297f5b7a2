"""``python -m engine plan pipeline.json``: print a pipeline's plan readably.

Shows the job vertices with their chained operators, the job edges, the pipelined regions
in schedule order with what each waits for, and the schedule. ``--json`` prints the
:func:`~engine.plan.plan_summary.plan_pipeline` data instead. ``main`` takes the arguments
after the ``plan`` subcommand and returns the exit status: 0, or 2 for a file that cannot
be read, validated or planned (the reasons go to stderr).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from engine.plan.job_graph import PlanError
from engine.plan.plan_summary import expand_region_ids, plan_pipeline
from engine.spec import ValidationError, normalise_definition

DEFAULT_REGION_LIMIT = 50


def main(argv: list[str]) -> int:
    """Run the ``plan`` command with ``argv`` (the arguments after ``plan``)."""
    arguments = _parser().parse_args(argv)
    try:
        definition = _read_definition(arguments.pipeline)
        summary = plan_pipeline(normalise_definition(definition))
    except (OSError, ValueError) as error:
        _report(error)
        return 2
    if arguments.json:
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_plan(summary, definition.get("name", arguments.pipeline), arguments.limit, sys.stdout)
    return 0


def print_plan(summary: dict[str, Any], name: str, region_limit: int, out: TextIO) -> None:
    """Write a plan summary as text: vertices, edges, regions, schedule."""
    counts = summary["counts"]
    out.write(
        f"Plan of '{name}': {counts['job_vertices']} job vertices, "
        f"{counts['execution_vertices']} subtasks, {counts['regions']} pipelined regions\n\n"
    )
    out.write("Job vertices (chained operators, topological order)\n")
    width = max(len(vertex["name"]) for vertex in summary["job_vertices"])
    for vertex in summary["job_vertices"]:
        source = "  source" if vertex["is_source"] else ""
        out.write(
            f"  {vertex['name']:<{width}}  parallelism {vertex['parallelism']} "
            f"(max {vertex['max_parallelism']}){source}\n"
        )
    out.write("\nJob edges\n")
    if not summary["job_edges"]:
        out.write("  (none)\n")
    for edge in summary["job_edges"]:
        key = f"({edge['key']})" if edge.get("key") else ""
        out.write(
            f"  {edge['id']}: {edge['source_node']} -> {edge['target_node']}  {edge['partitioning']}{key}  "
            f"{edge['distribution']}  {edge['result_type']}\n"
        )
    out.write("\nPipelined regions (schedule order)\n")
    for region in summary["regions"][:region_limit]:
        subtasks = "subtask" if region["size"] == 1 else "subtasks"
        out.write(f"  {region['id']}  {region['size']} {subtasks}: {_describe_vertices(region['vertices'])}")
        out.write(f"  after {_describe_region_ids(region['depends_on'])}\n" if region["depends_on"] else "\n")
    hidden = len(summary["regions"]) - region_limit
    if hidden > 0:
        out.write(f"  ... {hidden} more regions\n")
    out.write(f"\nSchedule: {_describe_schedule(summary['schedule'], region_limit)}\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine plan", description="Print the plan of a pipeline.")
    parser.add_argument("pipeline", help="a pipeline definition (JSON file)")
    parser.add_argument("--json", action="store_true", help="print the plan summary as JSON")
    parser.add_argument("--limit", type=int, default=DEFAULT_REGION_LIMIT, help="regions to list (default 50)")
    return parser


def _read_definition(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as file:
        definition = json.load(file)
    if not isinstance(definition, dict):
        raise PlanError(f"{path} does not hold a JSON object")
    return definition


def _report(error: Exception) -> None:
    if isinstance(error, ValidationError):
        sys.stderr.write("The pipeline definition is invalid:\n")
        for problem in error.errors:
            where = ", ".join(f"{kind} '{problem[kind]}'" for kind in ("node", "edge", "field") if problem.get(kind))
            sys.stderr.write(f"  {where + ': ' if where else ''}{problem['message']}\n")
    else:
        sys.stderr.write(f"Cannot plan the pipeline: {error}\n")


def _describe_vertices(vertices: dict[str, Any]) -> str:
    return ", ".join(f"{vertex_id}{_describe_subtasks(subtasks)}" for vertex_id, subtasks in vertices.items())


def _describe_subtasks(subtasks: list[int] | dict) -> str:
    if isinstance(subtasks, dict):
        return "[" + ",".join(f"{start}..{stop - 1}" for start, stop in subtasks["ranges"]) + "]"
    runs: list[list[int]] = []
    for index in subtasks:
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return "[" + ",".join(str(a) if a == b else f"{a}..{b}" for a, b in runs) + "]"


def _describe_region_ids(region_ids: list[str] | dict) -> str:
    if isinstance(region_ids, dict):
        return ", ".join(f"r{start}..r{stop - 1}" for start, stop in region_ids["ranges"])
    return ", ".join(expand_region_ids(region_ids))


def _describe_schedule(schedule: list[str], limit: int) -> str:
    shown = " -> ".join(schedule[:limit])
    return shown + (f" -> ... ({len(schedule) - limit} more)" if len(schedule) > limit else "")
