"""An exactly-once proof asked for over REST runs for real: a Celery worker starts the prover process,
which kills and restores the version's job on Spark; the verdict, the kills and the seed to replay
them land on the proof, and its files in the pipeline's workspace."""
from __future__ import annotations

import pytest

from tests.support import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark, pytest.mark.timeout(900)]

ROWS = [{"user": i % 5, "n": i} for i in range(300)]


def summing_pipeline() -> dict:
    """clicks -> hash(user) -> running sum -> files in the workspace, at parallelism 2, with one test case."""
    return {"format": 1, "name": "sums", "mode": "streaming", "parallelism": 2,
            "checkpointing": {"interval_ms": 500},
            "nodes": [{"id": "clicks", "type": "source.datagen", "params": {"count": 10}},
                      {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x['n']"}},
                      {"id": "out", "type": "sink.file", "params": {"path": "sums"}}],
            "edges": [{"id": "e1", "from": "clicks", "to": "sum", "partitioning": "hash", "key": "x['user']"},
                      {"id": "e2", "from": "sum", "to": "out"}],
            "tests": [{"name": "sums", "inputs": {"clicks": {"rows": ROWS}},
                       "assertions": [{"node": "out", "expect": "count", "min": 300, "max": 300}]}]}


def test_a_proof_asked_for_over_rest_runs_on_spark_and_reports_its_kills_and_seed(
        celery_worker_process, api, studio_data_dir):
    pipeline = api.post("/api/pipelines", {"name": "sums", "definition": summing_pipeline()}, format="json").json()
    response = api.post(f"/api/pipelines/{pipeline['id']}/proofs", {"kills": 4, "seed": 7}, format="json")
    assert response.status_code == 202, response.content
    url = f"/api/pipelines/{pipeline['id']}/proofs/{response.json()['id']}"
    proof = wait_until(lambda: (lambda p: p if p["status"] not in ("queued", "running") else None)(api.get(url).json()),
                       840, "the proof to end", interval=1)
    assert proof["status"] == "passed", (proof["message"], proof["result"].get("phases"))
    result = proof["result"]
    assert (result["deployment"], result["seed"], result["replay"]) == (
        "spark", 7, {"seed": 7, "kills": 4, "rescale": True, "test_case": "sums"})
    assert [phase["parallelism"] for phase in result["phases"]] == [2, 3]
    assert result["kills_fired"] >= 2 and result["sinks"]["out"]["missing"] == result["sinks"]["out"]["doubled"] == 0
    assert "after" in proof["message"] and proof["finished_at"]
    workdir = studio_data_dir / "workspaces" / f"pipeline-{pipeline['id']}" / "tests" / f"proof-{proof['id']}"
    assert any((workdir / "proof" / "outputs" / "out").rglob("part-*")), "the sink wrote outside the workspace"
    badge = api.get(f"/api/pipelines/{pipeline['id']}/test-badges").json()[0]
    assert (badge["version"], badge["proof"]["status"], badge["proof"]["seed"]) == (1, "passed", 7)
