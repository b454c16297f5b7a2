"""Emit delay: windows and window joins say how long after their windows' ends (on the clock) their results
left, per node; bounded by the clock readings around the job, never by a sleep."""
from __future__ import annotations

import time

from tests.builders import edge, node, pipeline

RECORDS = 600
STEP_MS = 10
WINDOW_MS = 1000
HOUR_MS = 3_600_000


def past_start() -> int:
    """Event times an hour ago, on a window boundary: every window ended an hour before the job runs."""
    now = int(time.time() * 1000)
    return now - HOUR_MS - now % WINDOW_MS


def timed_numbers(node_id: str, base: int, **params) -> list[dict]:
    """A datagen of ``{"k", "ts"}`` records ``STEP_MS`` apart from ``base``, and its watermark assigner."""
    return [node(node_id, "source.datagen", count=RECORDS,
                 expression=f"{{'k': x % 3, 'ts': {base} + x * {STEP_MS}}}", **params),
            node(f"{node_id}-time", "transform.watermark", timestamp="x['ts']")]


def final_figures(handle, node_id: str) -> list[dict]:
    return [report["operators"][node_id] for report in handle.metrics().values()
            if node_id in (report.get("operators") or {})]


def test_a_window_reports_how_long_after_its_end_each_result_left(deployment, tmp_path):
    base = past_start()
    definition = pipeline(
        [*timed_numbers("gen", base), node("window", "window.tumbling", size_ms=WINDOW_MS, function="count"),
         node("out", "sink.collect", max_records=10_000)],
        [edge("gen", "gen-time"), edge("gen-time", "window", "hash", "x['k']"), edge("window", "out")],
        parallelism=2)
    before = time.time() * 1000
    handle = deployment.submit(definition, checkpoint_dir=str(tmp_path))
    result = handle.wait(120)
    after = time.time() * 1000
    assert result.status == "FINISHED", result.failure
    ends = [record[1] for record in result.collected["out"]]
    figures = final_figures(handle, "window")
    assert sum(figure["emit_delay_results"] for figure in figures) == len(ends) == 3 * RECORDS * STEP_MS // WINDOW_MS
    for figure in figures:
        assert before - max(ends) <= figure["emit_delay_ms"] <= figure["emit_delay_max_ms"] <= after - min(ends)
        assert figure["emit_delay_max_ms"] >= before - min(ends) > HOUR_MS - RECORDS * STEP_MS
    assert all("emit_delay_ms" not in figure for figure in final_figures(handle, "gen")), "a source fires no windows"


def test_a_window_join_reports_its_emit_delay_and_plain_number_times_have_none(deployment, tmp_path):
    base = past_start()
    definition = pipeline(
        [*timed_numbers("left", base), *timed_numbers("right", base),
         node("join", "join.window", size_ms=WINDOW_MS, output="[left['k'], left['ts'], right['ts']]"),
         node("out", "sink.collect", max_records=100_000),
         node("plain", "source.datagen", count=100), node("plain-time", "transform.watermark", timestamp="x"),
         node("plain-window", "window.tumbling", size_ms=10, function="count"), node("plain-out", "sink.collect")],
        [edge("left", "left-time"), edge("right", "right-time"),
         edge("left-time", "join", "hash", "x['k']", side="left"),
         edge("right-time", "join", "hash", "x['k']", side="right"), edge("join", "out"),
         edge("plain", "plain-time"), edge("plain-time", "plain-window", "hash", "x % 2"),
         edge("plain-window", "plain-out")])
    before = time.time() * 1000
    handle = deployment.submit(definition, checkpoint_dir=str(tmp_path))
    result = handle.wait(120)
    after = time.time() * 1000
    assert result.status == "FINISHED", result.failure
    pairs = result.collected["out"]
    (figure,) = final_figures(handle, "join")
    assert figure["emit_delay_results"] == len(pairs) > 0
    window_ends = [ts - ts % WINDOW_MS + WINDOW_MS for _, ts, _ in pairs]
    assert before - max(window_ends) <= figure["emit_delay_ms"] <= after - min(window_ends)
    (plain,) = final_figures(handle, "plain-window")
    assert "emit_delay_ms" not in plain, "event times that are not epoch milliseconds have no emit delay"
