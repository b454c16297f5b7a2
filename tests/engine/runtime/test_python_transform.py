"""``transform.python``: the hooks, event times, state across a restore at another parallelism, and
streaming and batch mode against a plain-Python reference."""
from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.python_transform import PythonTransformOperator
from engine.spec import validate_definition
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import checkpoint_events
from tests.support import wait_until

RUNNING_TOTAL = textwrap.dedent('''
    def open(context):
        global total, subtask
        subtask = context["subtask"]
        total = globals().get("total", 0)

    def process(records):
        global total
        out = []
        for record in records:
            if record["v"] % 3:
                total += record["v"]
                out.append([record["id"], total, subtask])
        return out

    def snapshot():
        return total

    def restore(states):
        global total
        total = sum(states)
''')


def python_operator(code: str) -> tuple[PythonTransformOperator, list]:
    context = OperatorContext(task=("py", 0), node_id="py", parallelism=1, max_parallelism=8, config={})
    operator = PythonTransformOperator({"id": "py", "type": "transform.python", "params": {"code": code}}, context)
    operator.initialize_state()
    operator.open()
    emitted: list = []
    operator.emit = emitted.append
    return operator, emitted


def test_records_keep_their_event_times_one_to_one_and_take_the_newest_otherwise():
    operator, emitted = python_operator("def process(records):\n    return [r * 10 for r in records]\n")
    operator.process_batch(TimestampedBatch([1, 2], [5, 3]))
    flat, _ = python_operator("def process(records):\n    return [sum(records)]\n")
    flat.emit = emitted.append
    flat.process_batch(TimestampedBatch([1, 2], [5, 3]))
    assert [(list(batch), batch.timestamps) for batch in emitted] == [([10, 20], [5, 3]), ([3], [5])]


def test_the_hooks_run_in_their_order_and_a_snapshot_is_a_copy():
    code = textwrap.dedent('''
        calls = []
        def open(context): calls.append(("open", context["node"], context["subtask"], context["parallelism"]))
        def process(records):
            calls.append(("process", len(records)))
            return records
        def snapshot(): return calls
    ''')
    operator, _ = python_operator(code)
    operator.process_batch([1, 2, 3])
    operator.snapshot_state(1)
    operator.process_batch([4])
    snapshot = operator.context.snapshot_backends().operator
    import pickle
    assert pickle.loads(snapshot["python"][0]) == [("open", "py", 0, 1), ("process", 3)]


def test_the_code_is_validated_by_parsing_naming_the_node_and_field():
    definition = pipeline([node("gen", "source.datagen", count=3),
                           node("py", "transform.python", code="def process(records):\n    return [\n"),
                           node("out", "sink.collect")], [edge("gen", "py"), edge("py", "out")])
    (problem,) = validate_definition(definition)
    assert (problem["node"], problem["field"]) == ("py", "params.code") and problem["message"].startswith("line 2")
    definition["nodes"][1]["params"]["code"] = "import os\nos.remove('/nowhere')  # never run while validating\n"
    (problem,) = validate_definition(definition)
    assert (problem["node"], problem["field"]) == ("py", "params.code") and "process" in problem["message"]


def test_an_exception_in_the_code_fails_the_job_naming_the_node():
    definition = pipeline([node("gen", "source.datagen", count=3),
                           node("py", "transform.python", code="def process(records):\n    return 1 / 0\n"),
                           node("out", "sink.collect")], [edge("gen", "py"), edge("py", "out")])
    result = LocalCluster().run(definition, timeout=60)
    assert result.status == "FAILED" and "operator 'py' (transform.python), subtask 0, failed: ZeroDivisionError" in result.failure


def reference(events: list[dict]) -> list:
    total, out = 0, []
    for event in events:
        if event["v"] % 3:
            total += event["v"]
            out.append([event["id"], total, 0])
    return out


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.integers(-100, 100), max_size=200), batch_size=st.sampled_from([1, 7, 64]),
       timed=st.booleans())
def test_streaming_and_batch_jobs_give_the_references_result(values, batch_size, timed):
    events = [{"id": i, "v": v, "t": (i * 7) % 50} for i, v in enumerate(values)]
    path = Path(tempfile.mkdtemp(prefix="python-")) / "events.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    for mode in ("streaming", "batch"):
        nodes = [node("src", "source.file", path=str(path)),
                 node("py", "transform.python", code=RUNNING_TOTAL), node("out", "sink.collect", max_records=10000)]
        edges = [edge("src", "py"), edge("py", "out")]
        if timed:  # out-of-order event times through the function
            nodes.insert(1, node("time", "transform.watermark", timestamp='x["t"]', max_out_of_orderness_ms=50))
            edges = [edge("src", "time"), edge("time", "py"), edge("py", "out")]
        result = LocalCluster(config={"batch_size": batch_size}).run(pipeline(nodes, edges, mode=mode), timeout=60)
        assert result.status == "FINISHED", result.failure
        assert result.collected.get("out", []) == reference(events), mode


def totals_job(rate: int, parallelism: int) -> dict:
    return pipeline([node("gen", "source.datagen", count=3000, rate=rate, expression='{"id": x, "v": 1}'),
                     node("py", "transform.python", parallelism=parallelism, code=RUNNING_TOTAL),
                     node("out", "sink.collect", parallelism=1, max_records=100000)],
                    [edge("gen", "py", "rebalance"), edge("py", "out", "rebalance")], parallelism=2, interval_ms=100)


@pytest.mark.timeout(200)
def test_state_snapshotted_at_parallelism_2_is_dealt_out_to_3_subtasks_and_nothing_is_counted_twice(
        deployment, tmp_path):
    """Each subtask counts what it saw; after the restore at 3 every old count lives on in exactly one subtask."""
    events: list = []
    handle = deployment.submit(totals_job(rate=1000, parallelism=2), checkpoint_dir=str(tmp_path / "c1"),
                               on_event=events.append)
    wait_until(lambda: len(checkpoint_events(list(events))) >= 3, 120, "three completed checkpoints")
    location = handle.stop_with_savepoint(drain=False).result(60)
    first = handle.wait(60)
    assert first.status == "FINISHED", first.failure
    before = first.collected.get("out", [])
    assert 0 < len(before) < 3000
    second = deployment.run(totals_job(rate=0, parallelism=3), restore=location, checkpoint_dir=str(tmp_path / "c2"))
    assert second.status == "FINISHED", second.failure
    after = second.collected.get("out", [])
    assert sorted(record[0] for record in before + after) == list(range(3000))
    final_totals = {}
    for _, total, subtask in after:
        final_totals[subtask] = max(final_totals.get(subtask, 0), total)
    assert sorted(final_totals) == [0, 1, 2] and sum(final_totals.values()) == 3000
