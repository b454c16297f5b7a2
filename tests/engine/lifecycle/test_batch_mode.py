"""Batch mode on the in-process cluster: regions stage by stage, sorted keyed input, region failover.

The property at the end is the point of stream/batch unification (seed 002): the same
pipeline on the same bounded input gives the same *final* result in both modes. Windows
emit the same records; a rolling aggregate (``aggregate.reduce``) is not rolling in batch
mode (Flink's batch semantics): it emits each key's final aggregate once, which is
streaming's last record of that key.
"""
from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.runtime.io.external_sort import KeyGroupingSorter, key_groups_in_pieces
from engine.runtime.operators.base import compile_expression_function
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import KillOnce, committed, final_per_key


def keyed_sum(mode: str, count: int = 2000, parallelism: int = 2, sink=None) -> dict:
    """datagen -> hash(x % 14) -> running sum: with two sources each key comes from one of them, in order."""
    sink = sink or node("out", "sink.collect", max_records=100000)
    return pipeline([node("gen", "source.datagen", count=count), node("sum", "aggregate.reduce", function="sum"),
                     sink], [edge("gen", "sum", "hash", "x % 14"), edge("sum", sink["id"])],
                    parallelism=parallelism, mode=mode)


def canonical(records) -> Counter:
    return Counter(json.dumps(record, sort_keys=True) for record in records)


def test_regions_run_stage_by_stage_without_checkpoints(tmp_path):
    result = LocalCluster(config={"batch_size": 64}).run(keyed_sum("batch"), timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    streaming = LocalCluster(config={"batch_size": 64}).run(keyed_sum("streaming"), timeout=60)
    assert canonical(result.collected["out"]) == canonical(final_per_key(streaming.collected["out"]))
    assert not [e for e in result.events if e["type"] == "checkpoint"], "batch mode takes no checkpoints"
    regions = [(e["event"], e["region"], tuple(e.get("vertices", {}))) for e in result.events if e["type"] == "region"]
    started = {region: vertices for event, region, vertices in regions if event == "scheduled"}
    finished_at = {region: i for i, (event, region, _) in enumerate(regions) if event == "finished"}
    scheduled_at = {region: i for i, (event, region, _) in enumerate(regions) if event == "scheduled"}
    sources = [r for r, vertices in started.items() if vertices == ("gen",)]
    sums = [r for r, vertices in started.items() if vertices == ("sum",)]
    assert len(sources) == 2 and len(sums) == 2, "batch mode chains nothing: one region per subtask here"
    assert all(scheduled_at[s] > finished_at[g] for s in sums for g in sources), \
        "a consumer region starts once all its blocking inputs are complete"


def test_keyed_input_is_processed_key_group_by_key_group_and_spills(tmp_path):
    definition = pipeline([node("gen", "source.datagen", count=5000),
                           node("sum", "aggregate.reduce", function="sum", parallelism=1),
                           node("out", "sink.collect", max_records=100000, parallelism=1)],
                          [edge("gen", "sum", "hash", "x % 1000"), edge("sum", "out")], parallelism=2, mode="batch")
    handle = LocalCluster(config={"batch_size": 50, "sort_buffer_records": 700, "spill_directory": str(tmp_path),
                                  "batch_aggregation": "sort"}  # an aggregation hashes by default
                          ).submit(definition, checkpoint_dir=str(tmp_path / "c"))
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    metrics = handle.metrics()["sum#0"]
    assert metrics["sorted_records"] == 5000 and metrics["spilled_runs"] >= 5, metrics
    assert not list(tmp_path.glob("*.spill")), "runs are deleted once merged"
    final_sums_per_key(result.collected["out"])


def test_sorter_keeps_each_keys_arrival_order_across_spills_and_bounds_pieces():
    sorter = KeyGroupingSorter(lambda x: x[0], memory_records=5, spill_directory=tempfile.mkdtemp())
    records = [("a", i) if i % 3 else ("b", i) for i in range(40)]
    for start in range(0, 40, 4):
        sorter.add(records[start:start + 4])
    assert sorter.spilled_runs == 5  # every 8 records (two batches of 4 reach the limit of 5)
    pieces = list(key_groups_in_pieces(sorter.sorted_entries(), 6))
    sorter.close()
    flat = [record for piece, _, _ in pieces for record in piece]
    assert [r for r in flat if r[0] == "a"] == [r for r in records if r[0] == "a"]
    assert [r for r in flat if r[0] == "b"] == [r for r in records if r[0] == "b"]
    assert all(len(piece) <= 6 for piece, _, _ in pieces)
    for position, (piece, _, ends_keys) in enumerate(pieces):
        later = {record[0] for later_piece, _, _ in pieces[position + 1:] for record in later_piece}
        if ends_keys:
            assert not later & {record[0] for record in piece}, "state is dropped only where its keys end"
    assert pieces[-1][2] is True


def test_windows_in_batch_mode_fire_per_key_and_match_streaming(tmp_path):
    def definition(mode):
        return pipeline([node("gen", "source.datagen", count=3000),
                         node("time", "transform.watermark", timestamp="x * 7"),
                         node("window", "window.sliding", size_ms=500, slide_ms=200, function="max", parallelism=2),
                         node("out", "sink.collect", max_records=100000, parallelism=2)],
                        [edge("gen", "time"), edge("time", "window", "hash", "x % 5"), edge("window", "out")],
                        mode=mode)
    batch = LocalCluster(config={"batch_size": 100}).run(definition("batch"), timeout=60)
    streaming = LocalCluster(config={"batch_size": 100}).run(definition("streaming"), timeout=60)
    assert batch.status == streaming.status == "FINISHED"
    assert canonical(batch.collected["out"]) == canonical(streaming.collected["out"])


def test_two_phase_commit_sink_commits_at_the_end_of_a_batch_job(tmp_path):
    sink = node("files", "sink.file", path=str(tmp_path / "out"))
    result = LocalCluster().run(keyed_sum("batch", count=500, sink=sink), timeout=60,
                                checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    streaming = LocalCluster().run(keyed_sum("streaming", count=500), timeout=60)
    assert canonical(committed(tmp_path / "out")) == canonical(final_per_key(streaming.collected["out"]))


def test_failover_reruns_only_the_failed_region_from_its_blocking_inputs(tmp_path):
    kill = KillOnce("process", ("sum", 1), lambda info: info["records_in"] > 300)
    definition = keyed_sum("batch", count=3000)
    definition["restart"] = {"strategy": "fixed_delay", "attempts": 1, "delay_ms": 0}
    result = LocalCluster(config={"batch_size": 50}).run(definition, kill_hook=kill, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert kill.fired and result.restarts == 1
    streaming = LocalCluster().run(keyed_sum("streaming", count=3000), timeout=60)
    assert canonical(result.collected["out"]) == canonical(final_per_key(streaming.collected["out"]))
    scheduled = Counter(tuple(e["vertices"].items())[0][0] + f"#{tuple(e['vertices'].values())[0][0]}"
                        for e in result.events if e["type"] == "region" and e["event"] == "scheduled")
    assert scheduled["gen#0"] == scheduled["gen#1"] == 1, "the producers' partitions were read again, not rebuilt"
    assert scheduled["sum#1"] == 2 and scheduled["sum#0"] == 1
    statuses = [e["status"] for e in result.events if e["type"] == "status"]
    assert statuses == ["RUNNING", "RESTARTING", "RUNNING", "FINISHED"]


# -- the same result in streaming and batch mode ------------------------------------------------

MAPS = ["x * 2", "x + 7", "x // 3", "-x", "x % 50", "x * x % 97"]
FILTERS = ["x % 3 != 0", "x > 10", "x % 2 == 0", "x < 150"]
FLAT_MAPS = ["[x, x + 1]", "[x] * (x % 3)"]
AFTER_KEYED = [("transform.filter", "predicate", "x[-1] % 2 == 0"), ("transform.map", "expression", "[x[0], x[-1] * 10]"),
               ("transform.flat_map", "expression", "[x, [x[0], -x[-1]]]")]


@st.composite
def pipelines(draw):
    """A random pipeline from the catalog whose result does not depend on thread timing.

    The input is a datagen sequence or a file of random numbers. The source and what
    precedes the keyed operator run at parallelism 1, so each key's records reach it in
    one order in both modes (a running aggregate's outputs depend on it); event time grows
    with the input, so streaming drops no late record. A running aggregate also feeds a
    second sink, ``final``, over a forward edge: each key's records reach it in order.
    """
    windowed = draw(st.booleans())
    if draw(st.booleans()):
        nodes = [node("src", "source.datagen", count=draw(st.integers(0, 400)), start=draw(st.integers(-50, 50)))]
    else:  # random numbers from a file; sorted when event time comes from them (no late records)
        values = draw(st.lists(st.integers(-1000, 1000), max_size=300))
        path = Path(tempfile.mkdtemp(prefix="property-")) / "input.jsonl"
        path.write_text("".join(f"{value}\n" for value in (sorted(values) if windowed else values)))
        nodes = [node("src", "source.file", path=str(path))]
    edges = []
    previous = "src"
    if windowed:
        nodes.append(node("time", "transform.watermark", timestamp=f"x * {draw(st.sampled_from([1, 7, 10]))}"))
        edges.append(edge(previous, "time"))
        previous = "time"
    for index in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["map", "filter", "flat_map"]))
        param, choices = {"map": ("expression", MAPS), "filter": ("predicate", FILTERS),
                          "flat_map": ("expression", FLAT_MAPS)}[kind]
        nodes.append(node(f"t{index}", f"transform.{kind}", **{param: draw(st.sampled_from(choices))}))
        edges.append(edge(previous, f"t{index}"))
        previous = f"t{index}"
    keyed_parallelism = draw(st.integers(1, 2))
    key = f"x % {draw(st.sampled_from([1, 3, 10, 1000]))}"
    function = draw(st.sampled_from(["sum", "count", "min", "max"]))
    if windowed:
        size = draw(st.sampled_from([50, 300, 1000]))
        kind = draw(st.sampled_from(["tumbling", "sliding"]))
        params = {"size_ms": size, "function": function, **({"slide_ms": size // 2} if kind == "sliding" else {})}
        nodes.append(node("keyed", f"window.{kind}", parallelism=keyed_parallelism, **params))
    else:
        nodes.append(node("keyed", "aggregate.reduce", parallelism=keyed_parallelism, function=function))
    edges.append(edge(previous, "keyed", "hash", key))
    previous = "keyed"
    after = [draw(st.sampled_from(AFTER_KEYED)) for _ in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):
        after.append(("transform.map", "expression", "x[-1]"))  # the aggregates alone
    for index, (type_, param, expression) in enumerate(after):
        nodes.append(node(f"a{index}", type_, parallelism=keyed_parallelism, **{param: expression}))
        edges.append(edge(previous, f"a{index}"))
        previous = f"a{index}"
    sink_parallelism = draw(st.integers(1, 2))
    nodes.append(node("out", "sink.collect", parallelism=sink_parallelism, max_records=100000))
    edges.append(edge(previous, "out", "forward" if sink_parallelism == keyed_parallelism else "rebalance"))
    if not windowed:
        nodes.append(node("final", "sink.collect", parallelism=keyed_parallelism, max_records=100000))
        edges.append(edge("keyed", "final"))
    return pipeline(nodes, edges, parallelism=1)


def after_keyed(definition: dict, records: list) -> list:
    """What the record-wise steps between ``keyed`` and ``out`` make of ``records``."""
    following = {e["from"]: e["to"] for e in definition["edges"] if e["to"] != "final"}
    by_id = {n["id"]: n for n in definition["nodes"]}
    step = following["keyed"]
    while step != "out":
        operator = by_id[step]
        kind, params = operator["type"], operator["params"]
        if kind == "transform.filter":
            keep = compile_expression_function(params["predicate"])
            records = [record for record in records if keep(record)]
        elif kind == "transform.map":
            records = list(map(compile_expression_function(params["expression"]), records))
        else:
            elements = compile_expression_function(params["expression"])
            records = [element for record in records for element in elements(record)]
        step = following[step]
    return records


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(definition=pipelines(), batch_size=st.sampled_from([1, 7, 64]), sort_buffer=st.sampled_from([5, 100000]),
       aggregation=st.sampled_from([{}, {"hash_aggregate_keys": 2}, {"batch_aggregation": "sort"}]))
def test_streaming_and_batch_mode_give_the_same_result(definition, batch_size, sort_buffer, aggregation):
    """Windows: the same records. A running aggregate: batch mode emits streaming's last record of
    each key, once, and what follows it sees only those. ``aggregation``: an aggregation hashes
    (by default), falls back to sorting after 2 keys, or sorts."""
    results = {}
    for mode in ("streaming", "batch"):
        cluster = LocalCluster(config={"batch_size": batch_size, "sort_buffer_records": sort_buffer, **aggregation})
        result = cluster.run({**definition, "mode": mode}, timeout=60)
        assert result.status == "FINISHED", (mode, result.failure, definition)
        results[mode] = result.collected
    streaming, batch = results["streaming"], results["batch"]
    if "final" not in streaming:  # windows
        assert canonical(batch.get("out", [])) == canonical(streaming.get("out", [])), definition
        return
    finals = final_per_key(streaming["final"])
    assert canonical(batch["final"]) == canonical(finals), definition
    assert len(batch["final"]) == len({json.dumps(k) for k, _ in batch["final"]}), "one record per key"
    assert canonical(batch.get("out", [])) == canonical(after_keyed(definition, finals)), definition


# -- aggregations hash instead of sorting ----------------------------------------------------------

def thousand_keys(**config):
    """5,000 numbers over 1,000 keys into one sum subtask; the cluster's metrics and result."""
    definition = pipeline([node("gen", "source.datagen", count=5000),
                           node("sum", "aggregate.reduce", function="sum", parallelism=1),
                           node("out", "sink.collect", max_records=100000, parallelism=1)],
                          [edge("gen", "sum", "hash", "x % 1000"), edge("sum", "out")], parallelism=2, mode="batch")
    handle = LocalCluster(config={"batch_size": 50, **config}).submit(definition)
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    return handle.metrics()["sum#0"], result.collected["out"]


def final_sums_per_key(output) -> None:
    """Each of the 1,000 keys once, with the sum of its five numbers k, k + 1000, ..., k + 4000."""
    assert sorted(output) == [[key, sum(range(key, 5000, 1000))] for key in range(1000)]


def test_an_aggregation_folds_its_input_into_a_hash_table_without_sorting(tmp_path):
    metrics, output = thousand_keys(sort_buffer_records=700, spill_directory=str(tmp_path))
    assert metrics["hash_aggregated_records"] == 5000 and metrics["hash_table_keys"] == 1000, metrics
    assert metrics["sorted_records"] == 0 and metrics["spilled_runs"] == 0, metrics
    final_sums_per_key(output)


def test_a_hash_aggregate_past_its_key_limit_sorts_the_rest_and_continues_each_key(tmp_path):
    metrics, output = thousand_keys(hash_aggregate_keys=100, sort_buffer_records=700, spill_directory=str(tmp_path))
    assert 0 < metrics["hash_aggregated_records"] < 5000, metrics
    assert metrics["hash_aggregated_records"] + metrics["sorted_records"] == 5000, metrics
    assert metrics["hash_table_keys"] > 100 and metrics["spilled_runs"] >= 3, metrics
    assert not list(tmp_path.glob("*.spill")), "runs are deleted once merged"
    final_sums_per_key(output)  # a key hashed first continues from its carried aggregate in the sorted rest
    streaming = LocalCluster(config={"batch_size": 50}).run(
        {**keyed_sum("streaming", count=3000), "parallelism": 1}, timeout=60)
    batch = LocalCluster(config={"batch_size": 50, "hash_aggregate_keys": 3, "sort_buffer_records": 100}).run(
        {**keyed_sum("batch", count=3000), "parallelism": 1}, timeout=60)
    assert canonical(batch.collected["out"]) == canonical(final_per_key(streaming.collected["out"]))


def test_keys_carried_out_of_the_hash_table_that_the_sorted_rest_never_names_are_emitted_too():
    """x // 10 over 0..1999 in order: the keys hashed before the table overflowed do not come again."""
    definition = pipeline([node("gen", "source.datagen", count=2000), node("sum", "aggregate.reduce", function="count"),
                           node("out", "sink.collect", max_records=100000)],
                          [edge("gen", "sum", "hash", "x // 10"), edge("sum", "out")], parallelism=1, mode="batch")
    handle = LocalCluster(config={"batch_size": 50, "hash_aggregate_keys": 20, "sort_buffer_records": 100}).submit(
        definition)
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    assert handle.metrics()["sum#0"]["hash_table_keys"] > 20 and handle.metrics()["sum#0"]["sorted_records"] > 0
    assert sorted(result.collected["out"]) == [[key, 10] for key in range(200)]


def test_a_final_aggregate_carries_the_time_of_its_keys_latest_record():
    """Batch mode: key k's last record is 90 + k at time 90 + k, so its final count falls into the
    window [50, 100) downstream, as streaming's last count of k does."""
    def definition(mode):
        return pipeline([node("gen", "source.datagen", count=100), node("time", "transform.watermark", timestamp="x"),
                         node("count", "aggregate.reduce", function="count"),
                         node("window", "window.tumbling", size_ms=50, function="max", value="x[1]"),
                         node("out", "sink.collect", max_records=100000)],
                        [edge("gen", "time"), edge("time", "count", "hash", "x % 10"),
                         edge("count", "window", "hash", "x[0]"), edge("window", "out")], parallelism=1, mode=mode)
    batch = LocalCluster(config={"batch_size": 16}).run(definition("batch"), timeout=60)
    assert batch.status == "FINISHED", batch.failure
    assert sorted(batch.collected["out"]) == [[key, 100, 10] for key in range(10)]
    streaming = LocalCluster(config={"batch_size": 16}).run(definition("streaming"), timeout=60)
    assert sorted(record for record in streaming.collected["out"] if record[1] == 100) == sorted(batch.collected["out"])


def test_a_state_ttl_keeps_the_sorted_path(tmp_path):
    definition = pipeline([node("gen", "source.datagen", count=600), node("time", "transform.watermark", timestamp="x"),
                           node("sum", "aggregate.reduce", function="count", state_ttl_ms=50),
                           node("out", "sink.collect", max_records=100000)],
                          [edge("gen", "time"), edge("time", "sum", "hash", "x % 7"), edge("sum", "out")],
                          parallelism=1, mode="batch")
    handle = LocalCluster(config={"batch_size": 64}).submit(definition)
    assert handle.wait(60).status == "FINISHED"
    metrics = handle.metrics()["sum#0"]
    assert metrics["sorted_records"] == 600 and "hash_aggregated_records" not in metrics, metrics


# -- integer records folded a whole array at a time ------------------------------------------------

def integer_sums(mode: str, function: str, value: str = "x", start: int = 0, count: int = 150_000) -> dict:
    """datagen -> x * 2 (int64 arrays on the columnar path) -> hash(x % 1000) -> running aggregate."""
    return pipeline([node("gen", "source.datagen", count=count, start=start), node("double", expression="x * 2"),
                     node("agg", "aggregate.reduce", function=function, value=value),
                     node("out", "sink.collect", max_records=100_000)],
                    [edge("gen", "double"), edge("double", "agg", "hash", "x % 1000"), edge("agg", "out")],
                    parallelism=2, mode=mode)


def batch_against_streaming(definition: dict, **config) -> tuple[int, int]:
    """Run ``definition`` in both modes; assert batch gives streaming's last record per key; the records the
    aggregates folded as arrays and as a whole."""
    streaming = LocalCluster(config={"batch_size": 1024}).run({**definition, "mode": "streaming"}, timeout=60)
    handle = LocalCluster(config={"batch_size": 1024, **config}).submit({**definition, "mode": "batch"})
    batch = handle.wait(60)
    assert streaming.status == batch.status == "FINISHED", (streaming.failure, batch.failure)
    assert canonical(batch.collected["out"]) == canonical(final_per_key(streaming.collected["out"]))
    aggregates = [figures for task, figures in handle.metrics().items() if task.startswith("agg#")]
    return sum(m["columnar_folded_records"] for m in aggregates), sum(m["records_in"] for m in aggregates)


def test_integer_records_are_folded_as_arrays_with_streamings_final_result():
    for function, value in [("sum", "x"), ("count", "x"), ("min", "x * 3 - 7"), ("max", "-x")]:
        folded, read = batch_against_streaming(integer_sums("batch", function, value))
        assert folded == read == 150_000, (function, folded, read)
    folded, _ = batch_against_streaming(integer_sums("batch", "sum", "x / 2"))
    assert folded == 0, "a float value is folded record by record"


def test_a_sum_that_could_leave_int64_is_folded_record_by_record():
    folded, read = batch_against_streaming(integer_sums("batch", "sum", "x * 64", start=2**52, count=20_000))
    assert read == 20_000 and folded == 0, "values near 2**59 times 10,000 records could leave int64: exact lists"


def test_integer_records_past_the_key_limit_are_sorted_and_continue_each_key(tmp_path):
    folded, read = batch_against_streaming(integer_sums("batch", "sum"), hash_aggregate_keys=100,
                                           sort_buffer_records=5000, spill_directory=str(tmp_path))
    assert 0 < folded < read == 150_000
