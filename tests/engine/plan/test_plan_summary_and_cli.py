"""The plan as JSON data for the studio, and the ``plan`` command that prints it."""
from __future__ import annotations

import json

import pytest

from engine.plan import expand_region_ids, expand_subtasks, plan_pipeline
from engine.cli.plan import main

CLICKS = {
    "format": 1,
    "name": "clicks-per-user",
    "parallelism": 2,
    "nodes": [
        {"id": "clicks", "type": "source.datagen"},
        {"id": "parse", "type": "transform.map", "params": {"expression": "x"}},
        {"id": "count", "type": "aggregate.reduce", "params": {}},
        {"id": "out", "type": "sink.collect", "parallelism": 1},
    ],
    "edges": [
        {"id": "e1", "from": "clicks", "to": "parse"},
        {"id": "e2", "from": "parse", "to": "count", "partitioning": "hash", "key": "x"},
        {"id": "e3", "from": "count", "to": "out", "partitioning": "rebalance", "exchange": "blocking"},
    ],
}


def test_summary_lists_vertices_edges_regions_and_schedule_as_json_data():
    summary = plan_pipeline(CLICKS)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["job_vertices"] == [
        {"id": "clicks", "name": "clicks -> parse", "operators": ["clicks", "parse"], "chain_inputs": [-1, 0], "parallelism": 2,
         "max_parallelism": 128, "is_source": True},
        {"id": "count", "name": "count", "operators": ["count"], "chain_inputs": [-1], "parallelism": 2,
         "max_parallelism": 128, "is_source": False},
        {"id": "out", "name": "out", "operators": ["out"], "chain_inputs": [-1], "parallelism": 1,
         "max_parallelism": 128, "is_source": False},
    ]
    assert [(e["id"], e["source"], e["target"], e["distribution"], e["result_type"], e["partitioning"])
            for e in summary["job_edges"]] == [
        ("e2", "clicks", "count", "ALL_TO_ALL", "PIPELINED", "hash"),
        ("e3", "count", "out", "ALL_TO_ALL", "BLOCKING", "rebalance"),
    ]
    assert summary["regions"] == [
        {"id": "r0", "vertices": {"clicks": [0, 1], "count": [0, 1]}, "job_vertices": ["clicks", "count"],
         "depends_on": [], "size": 4},
        {"id": "r1", "vertices": {"out": [0]}, "job_vertices": ["out"], "depends_on": ["r0"], "size": 1},
    ]
    assert summary["node_regions"] == {"clicks": ["r0"], "parse": ["r0"], "count": ["r0"], "out": ["r1"]}
    assert summary["schedule"] == ["r0", "r1"]
    assert summary["counts"] == {"job_vertices": 3, "job_edges": 2, "execution_vertices": 5, "regions": 2}


def test_a_fan_out_chain_is_summarised_with_the_operator_that_feeds_each():
    fan_out = {"format": 1, "name": "fan-out", "parallelism": 2,
               "nodes": [{"id": "events", "type": "source.datagen"},
                         {"id": "clicks", "type": "transform.filter", "params": {"predicate": "x > 0"}},
                         {"id": "purchases", "type": "transform.filter", "params": {"predicate": "x < 0"}},
                         {"id": "big", "type": "transform.filter", "params": {"predicate": "x > 9"}}],
               "edges": [{"id": "c", "from": "events", "to": "clicks"},
                         {"id": "p", "from": "events", "to": "purchases"},
                         {"id": "b", "from": "clicks", "to": "big"}]}
    [vertex] = plan_pipeline(fan_out)["job_vertices"]
    assert vertex["operators"] == ["events", "clicks", "big", "purchases"]
    assert vertex["chain_inputs"] == [-1, 0, 1, 0]  # purchases is fed by events, not by big


def test_huge_parallelisms_are_summarised_as_ranges():
    summary = plan_pipeline(
        {
            "format": 1,
            "max_parallelism": 4096,
            "nodes": [
                {"id": "a", "type": "source.datagen", "parallelism": 1000},
                {"id": "b", "type": "sink.collect", "parallelism": 1000},
                {"id": "c", "type": "sink.collect", "parallelism": 500},
            ],
            "edges": [
                {"id": "ab", "from": "a", "to": "b", "partitioning": "hash", "key": "x", "exchange": "blocking"},
                {"id": "ac", "from": "a", "to": "c", "partitioning": "rescale"},
            ],
        }
    )
    regions = summary["regions"]
    assert len(regions) == 1500
    assert regions[0]["vertices"] == {"a": [0, 1], "c": [0]}
    consumer = regions[-1]
    assert consumer["vertices"] == {"b": [999]}
    assert consumer["depends_on"] == {"count": 500, "ranges": [[0, 500]]}
    assert expand_region_ids(consumer["depends_on"]) == [f"r{number}" for number in range(500)]
    assert summary["node_regions"]["b"] == {"count": 1000, "ranges": [[500, 1500]]}
    assert len(json.dumps(summary)) < 1000 * 1500  # no region lists every producer


def test_expanding_either_form_of_a_list():
    assert expand_subtasks([0, 2]) == [0, 2]
    assert expand_subtasks({"count": 3, "ranges": [[0, 2], [5, 6]]}) == [0, 1, 5]
    assert expand_region_ids(["r1"]) == ["r1"]
    assert expand_region_ids({"count": 2, "ranges": [[3, 5]]}) == ["r3", "r4"]


@pytest.fixture
def pipeline_file(tmp_path):
    path = tmp_path / "pipeline.json"
    path.write_text(json.dumps(CLICKS))
    return path


def test_cli_prints_chains_regions_and_schedule(pipeline_file, capsys):
    assert main([str(pipeline_file)]) == 0
    out = capsys.readouterr().out
    assert "Plan of 'clicks-per-user': 3 job vertices, 5 subtasks, 2 pipelined regions" in out
    assert "clicks -> parse  parallelism 2 (max 128)  source" in out
    assert "e3: count -> out  rebalance  ALL_TO_ALL  BLOCKING" in out
    assert "r0  4 subtasks: clicks[0..1], count[0..1]" in out
    assert "r1  1 subtask: out[0]  after r0" in out
    assert out.rstrip().endswith("Schedule: r0 -> r1")


def test_cli_prints_json_on_request(pipeline_file, capsys):
    assert main([str(pipeline_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["schedule"] == ["r0", "r1"]


def test_cli_limits_the_regions_it_lists(tmp_path, capsys):
    definition = {**CLICKS, "mode": "batch"}
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(definition))
    assert main([str(path), "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "... 3 more regions" in out  # clicks -> parse chained: 2 + 2 + 1 regions
    assert "Schedule: r0 -> r1 -> ... (3 more)" in out


def test_cli_reports_invalid_definitions_and_unreadable_files(tmp_path, capsys):
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps({**CLICKS, "nodes": CLICKS["nodes"][:1] + [{"id": "x", "type": "nope"}]}))
    assert main([str(invalid)]) == 2
    assert "The pipeline definition is invalid" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert main([str(broken)]) == 2
    assert "Cannot plan the pipeline" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "No such file" in capsys.readouterr().err
