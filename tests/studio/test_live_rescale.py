"""Rescale in one click, for real: REST -> Celery -> a driver on local Spark, 2 -> 3 -> 2, output exact.

The pipeline is keyed running sums into a two-phase-commit file sink, so every committed line
is fixed by the input (see ``tests.engine.cluster.test_failover``): a lost or doubled record
across either rescale shows as a wrong line.
"""
import pytest

from studio.models import Rescale, Run
from tests.engine.cluster.test_failover import committed_lines, expected_lines, keyed_sums
from tests.studio.test_live_run import RUN_START_TIMEOUT, create_pipeline, status_of
from tests.support import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]

COUNT = 24_000


def rescale(api, run_id: int, parallelism: int) -> int:
    """Rescale ``run_id`` once it checkpointed; return the run at the new parallelism once RUNNING."""
    wait_until(lambda: api.get(f"/api/runs/{run_id}/checkpoints").json()["counts"]["completed"] >= 1,
               RUN_START_TIMEOUT, f"a completed checkpoint of run {run_id}")
    response = api.post(f"/api/runs/{run_id}/rescale", {"parallelism": parallelism}, format="json")
    assert response.status_code == 202, response.content
    done = wait_until(lambda: Rescale.objects.filter(pk=response.json()["id"],
                                                     status__in=["COMPLETED", "ROLLED_BACK", "FAILED"]).first(),
                      RUN_START_TIMEOUT, f"the rescale of run {run_id} to {parallelism}")
    assert done.status == "COMPLETED", done.message
    assert status_of(run_id) == "FINISHED"
    assert done.to_version.definition["parallelism"] == parallelism
    return done.new_run_id


def test_rescale_2_to_3_and_back_keeps_the_output_exact(celery_worker_process, api, granted_tmp_path):
    output = granted_tmp_path / "out"
    pipeline_id = create_pipeline(api, keyed_sums(output, parallelism=2, count=COUNT, rate=250))
    first = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()["id"]
    wait_until(lambda: status_of(first) == "RUNNING", RUN_START_TIMEOUT, "the first run to be RUNNING")
    second = rescale(api, first, 3)
    third = rescale(api, second, 2)
    assert Run.objects.get(pk=third).restore_path
    wait_until(lambda: status_of(third) in ("FINISHED", "FAILED", "CANCELED"), 300, "the last run to finish")
    assert status_of(third) == "FINISHED", Run.objects.get(pk=third).failure_cause
    lines = committed_lines(output)
    missing, doubled = expected_lines(COUNT) - lines, lines - expected_lines(COUNT)
    assert not missing and not doubled, f"{sum(missing.values())} lost, {sum(doubled.values())} doubled"
