"""POST /api/preview: a bounded in-process run with the records after every node; nothing written anywhere."""
import pytest

from studio.preview import preview_pipeline
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def test_preview_shows_the_first_records_after_every_node(api):
    definition = simple_pipeline(count=None, rate=5, parallelism=2)  # unbounded and slow: capped, unthrottled
    response = api.post("/api/preview", {"definition": definition, "limit": 5}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "FINISHED" and "failure" not in body
    assert body["nodes"] == {"gen": {"records": [0, 1, 2, 3, 4], "count": 5},
                             "double": {"records": [0, 2, 4, 6, 8], "count": 5},
                             "out": {"records": [0, 2, 4, 6, 8], "count": 5}}


def test_preview_of_filters_keyed_aggregates_and_file_sinks_writes_nothing(api, granted_tmp_path):
    definition = {
        "format": 1, "name": "agg", "parallelism": 2,
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 1000}},
                  {"id": "odd", "type": "transform.filter", "params": {"predicate": "x % 2 == 1"}},
                  {"id": "sum", "type": "aggregate.reduce", "params": {"function": "count"}},
                  {"id": "files", "type": "sink.file", "params": {"path": str(granted_tmp_path / "out")}}],
        "edges": [{"id": "a", "from": "gen", "to": "odd"},
                  {"id": "b", "from": "odd", "to": "sum", "partitioning": "hash", "key": "x % 3"},
                  {"id": "c", "from": "sum", "to": "files"}]}
    body = api.post("/api/preview", {"definition": definition, "limit": 4}, format="json").json()
    assert body["status"] == "FINISHED", body
    assert body["nodes"]["gen"] == {"records": [0, 1, 2, 3], "count": 4}
    assert body["nodes"]["odd"] == {"records": [1, 3], "count": 2}
    assert body["nodes"]["sum"]["count"] == 2 and body["nodes"]["files"]["count"] == 2
    assert not (granted_tmp_path / "out").exists()


def test_preview_of_session_windows_count_windows_and_deduplication_with_a_late_edge(api):
    """The preview runs in batch mode: sessions and TTLs end per key, nothing is late, the late edge's sink is empty."""
    definition = {
        "format": 1, "name": "keyed", "parallelism": 2,
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 60}},
                  {"id": "time", "type": "transform.watermark", "params": {"timestamp": "x * 10 + x // 20 * 1000"}},
                  {"id": "sessions", "type": "window.session", "params": {"gap_ms": 100, "function": "count"}},
                  {"id": "late", "type": "sink.collect"},
                  {"id": "counts", "type": "window.count", "params": {"size": 10, "function": "count"}},
                  {"id": "dedup", "type": "transform.deduplicate", "params": {"ttl_ms": 1000}},
                  {"id": "out", "type": "sink.collect"}, {"id": "out2", "type": "sink.collect"},
                  {"id": "out3", "type": "sink.collect"}],
        "edges": [{"id": "a", "from": "gen", "to": "time"},
                  {"id": "b", "from": "time", "to": "sessions", "partitioning": "hash", "key": "x % 2"},
                  {"id": "c", "from": "sessions", "to": "out"},
                  {"id": "d", "from": "sessions", "from_port": "late", "to": "late"},
                  {"id": "e", "from": "time", "to": "counts", "partitioning": "hash", "key": "x % 2"},
                  {"id": "f", "from": "counts", "to": "out2"},
                  {"id": "g", "from": "time", "to": "dedup", "partitioning": "hash", "key": "x % 2"},
                  {"id": "h", "from": "dedup", "to": "out3"}]}
    body = api.post("/api/preview", {"definition": definition, "limit": 100}, format="json").json()
    assert body["status"] == "FINISHED", body
    def time(x):
        return x * 10 + x // 20 * 1000

    blocks = [[x for x in range(b * 20, b * 20 + 20) if x % 2 == k] for k in (0, 1) for b in range(3)]
    assert sorted(body["nodes"]["sessions"]["records"]) == sorted(
        [xs[0] % 2, time(xs[0]), time(xs[-1]) + 100, 10] for xs in blocks)
    assert body["nodes"]["late"] == {"records": [], "count": 0}
    assert sorted(body["nodes"]["counts"]["records"]) == sorted([k, 10] for k in (0, 1) for _ in range(3))
    assert sorted(body["nodes"]["dedup"]["records"]) == [0, 1, 20, 21, 40, 41]


def test_preview_reports_a_failing_expression_and_refuses_invalid_definitions(api):
    failing = api.post("/api/preview", {"definition": simple_pipeline(count=3, expression="1 / (x - 1)")},
                       format="json").json()
    assert failing["status"] == "FAILED" and "division" in failing["failure"].lower()
    invalid = api.post("/api/preview", {"definition": simple_pipeline(expression="import os")}, format="json")
    assert invalid.status_code == 400 and invalid.json()["errors"][0]["node"] == "double"
    assert api.post("/api/preview", {"definition": simple_pipeline(), "limit": 0}, format="json").status_code == 400


def test_preview_rewrite_caps_sources_taps_nodes_and_replaces_sinks():
    prepared, taps = preview_pipeline(simple_pipeline(count=None, rate=100, parallelism=3), limit=7)
    nodes = {node["id"]: node for node in prepared["nodes"]}
    assert prepared["mode"] == "batch" and prepared["checkpointing"]["enabled"] is False
    assert nodes["gen"]["params"]["count"] == 7 and nodes["gen"]["params"]["rate"] == 0
    assert {node["parallelism"] for node in prepared["nodes"]} == {1}
    assert taps == {"gen": "__preview__gen", "double": "__preview__double", "out": "out"}
    assert nodes["__preview__gen"]["type"] == "sink.collect"


def test_previews_are_throttled_per_user(api, settings):
    settings.STUDIO_THROTTLE_RATES = {**settings.STUDIO_THROTTLE_RATES, "preview": "1/min"}
    assert api.post("/api/preview", {"definition": simple_pipeline(count=1)}, format="json").status_code == 200
    assert api.post("/api/preview", {"definition": simple_pipeline(count=1)}, format="json").status_code == 429


def test_preview_of_a_cdc_source_reads_the_table_without_a_slot_and_a_postgres_sink_writes_nothing(
        api, user, grant, postgres_dsn, settings):
    import psycopg

    grant(user, postgres_dsn, kind="postgres")
    settings.STUDIO_PREVIEW_BUDGET_S = 30  # two PostgreSQL connections from a niced worker on a loaded machine

    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE items (id integer PRIMARY KEY, v integer)")
        connection.execute("INSERT INTO items SELECT i, i * 10 FROM generate_series(1, 3) i")
        connection.execute("CREATE TABLE copy (id integer, v integer)")
    definition = {
        "format": 1, "name": "cdc preview",
        "nodes": [{"id": "cdc", "type": "source.postgres_cdc",
                   "params": {"url": postgres_dsn, "tables": ["items"], "slot": "preview_slot"}},
                  {"id": "row", "type": "transform.map", "params": {"expression": 'x["values"]'}},
                  {"id": "pg", "type": "sink.postgres", "params": {"url": postgres_dsn, "table": "copy"}}],
        "edges": [{"id": "a", "from": "cdc", "to": "row"}, {"id": "b", "from": "row", "to": "pg"}]}
    response = api.post("/api/preview", {"definition": definition, "limit": 10}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "FINISHED", body
    assert sorted(r["id"] for r in body["nodes"]["pg"]["records"]) == [1, 2, 3]
    assert {r["op"] for r in body["nodes"]["cdc"]["records"]} == {"snapshot"}
    with psycopg.connect(postgres_dsn) as connection:
        assert connection.execute("SELECT count(*) FROM pg_replication_slots "
                                  "WHERE database = current_database()").fetchone()[0] == 0
        assert connection.execute("SELECT count(*) FROM copy").fetchone()[0] == 0


def test_preview_of_an_interval_join_shows_its_pairs_and_unmatched_lefts(api):
    definition = {
        "format": 1, "name": "join", "parallelism": 2,
        "nodes": [{"id": "orders", "type": "source.datagen",
                   "params": {"count": 6, "expression": '{"user": x % 3, "t": x * 10, "order": x}'}},
                  {"id": "clicks", "type": "source.datagen",
                   "params": {"count": 2, "expression": '{"user": x, "t": x * 10 + 5, "page": x}'}},
                  {"id": "ot", "type": "transform.watermark", "params": {"timestamp": 'x["t"]'}},
                  {"id": "ct", "type": "transform.watermark", "params": {"timestamp": 'x["t"]'}},
                  {"id": "join", "type": "join.interval",
                   "params": {"lower_ms": 0, "upper_ms": 10, "join_type": "left_outer",
                              "output": '[left["order"], right["page"] if right else None]'}},
                  {"id": "out", "type": "sink.collect"}],
        "edges": [{"id": "a", "from": "orders", "to": "ot"}, {"id": "b", "from": "clicks", "to": "ct"},
                  {"id": "l", "from": "ot", "to": "join", "partitioning": "hash", "key": 'x["user"]',
                   "side": "left"},
                  {"id": "r", "from": "ct", "to": "join", "partitioning": "hash", "key": 'x["user"]',
                   "side": "right"},
                  {"id": "o", "from": "join", "to": "out"}]}
    body = api.post("/api/preview", {"definition": definition, "limit": 10}, format="json").json()
    assert body["status"] == "FINISHED", body
    assert sorted(body["nodes"]["join"]["records"], key=str) == sorted(
        [[0, 0], [1, 1], [2, None], [3, None], [4, None], [5, None]], key=str)
