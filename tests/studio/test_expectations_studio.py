"""Expectation counts in the studio: a run's metrics carry them (REST), and an alert rule fires when an
expectation's violation rate goes over its threshold, once per streak."""
from __future__ import annotations

import pytest

from studio.alerts import evaluation
from studio.alerts.models import Notification
from studio.runs.events import record_event
from tests.studio.test_alerts_api import messages, problems, rule, running_run

pytestmark = pytest.mark.django_db(transaction=True)


def counts(records: int, violated: int, dropped: int = 0) -> dict:
    return {"records": records, "dropped": dropped, "quarantined": 0,
            "rules": {"positive": {"action": "drop", "violated": violated}}}


def test_a_runs_metrics_carry_the_counts_of_its_expectations(api, user):
    run = running_run(user)
    record_event(run.id, "metrics", {"vertices": {}, "nodes": {}, "expectations": {"node:double": counts(100, 7, 7)}})
    body = api.get(f"/api/runs/{run.id}/metrics").json()
    assert body["expectations"] == {"node:double": counts(100, 7, 7)}


def test_another_users_run_metrics_are_not_found(api, user, django_user_model):
    other = django_user_model.objects.create_user("mallory", password="x")
    run = running_run(other)
    record_event(run.id, "metrics", {"expectations": {"node:double": counts(100, 7)}})
    assert api.get(f"/api/runs/{run.id}/metrics").status_code == 404


def test_violation_rate_fires_when_the_rate_goes_over_and_again_after_it_came_back(api, user):
    run = running_run(user)
    created = rule(api, run, kind="violation_rate", threshold=0.1, vertex="double")

    def sample(records, violated, scope="node:double"):
        evaluation.on_event(run.id, run.pipeline_id, "metrics", 0, {"expectations": {scope: counts(records, violated)}})

    sample(10, 9)  # too few records to speak of a rate
    sample(1000, 900, scope="edge:elsewhere")  # the rule watches "double" only
    assert messages(user) == []
    sample(100, 11)
    assert messages(user) == [f"expectation 'positive' of node 'double' in run {run.id}: 11 of 100 records violate it "
                              "(11.0%, over 10.0%)"]
    sample(200, 30)
    assert len(messages(user)) == 1  # still the same streak
    sample(400, 30)
    sample(500, 80)
    assert len(messages(user)) == 2
    data = Notification.objects.filter(rule_id=created["id"]).order_by("id").last().data
    assert (data["node"], data["expectation"], data["violated"], data["records"]) == ("double", "positive", 80, 500)


def test_a_violation_rate_rule_needs_a_ratio(api, user):
    run = running_run(user)
    response = api.post("/api/alerts/rules", {"pipeline": run.pipeline_id, "name": "r", "kind": "violation_rate",
                                              "threshold": 3}, format="json")
    assert response.status_code == 400
    assert "between 0 and 1" in problems(response, "threshold")
