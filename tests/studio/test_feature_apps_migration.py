"""Alerts, schedules and taps became apps of their own: a studio's existing database migrates into
that without losing a row, on SQLite and on PostgreSQL, and back.

The upgrade runs in a process of its own (``tests/studio/feature_apps_upgrade.py``) on a fresh
database: migrated as the studio had it before, filled, migrated to today's schema, read back.
"""
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def upgrade(database_url: str, data_dir) -> dict:
    env = {**os.environ, "DATABASE_URL": database_url, "STUDIO_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tests.studio.feature_apps_upgrade"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'studio.sqlite3'}"
    return request.getfixturevalue("postgres_dsn")


def test_an_existing_database_migrates_into_the_feature_apps_and_back_without_losing_a_row(database_url, tmp_path):
    seen = upgrade(database_url, tmp_path)
    written, after, back = seen["written"], seen["after"], seen["back"]

    assert after["rule"] == ["late", "run_failed", "ada", written["pipeline"]]
    assert after["state"] == [written["run"], "v", True, 5]
    assert after["notification"] == ["run failed", {"n": 1}]
    assert after["delivery"] == ["https://hooks.example/a", [{"at": 1}]]
    assert after["schedule_requests"] == ["r1"] and after["request_schedule"] == written["schedule"]
    assert after["taps_of_run"] == ["t1"] and after["tap_user"] == "ada"
    # the content type moved with its model: permissions granted on it still hold
    assert after["alertrule_content_type"] == written["alertrule_content_type"]
    assert after["studio_content_types"] == []
    assert after["group_permissions"] == ["alerts.view_alertrule"]
    # deleting runs still cascades into the feature apps' tables (the rule belongs to the pipeline)
    assert after["left_after_deleting_the_runs"] == {"states": 0, "taps": 0, "rules": 1}

    # and back: the studio app's models again, the same rows (less what the deletion above took)
    assert back["rows"] == {"studio_alertrule": 1, "studio_alertstate": 0, "studio_notification": 1,
                            "studio_webhookdelivery": 1, "studio_savepointschedule": 1, "studio_tap": 0}
    assert back["rule"] == "late" and back["alertrule_content_type"] == written["alertrule_content_type"]
