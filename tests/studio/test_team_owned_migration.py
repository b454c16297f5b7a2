"""Team grants, team environments and team secrets migrate in and back out, on SQLite and on PostgreSQL
(``tests/studio/team_owned_migration.py`` runs in a process of its own on a fresh database)."""
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'studio.sqlite3'}"
    return request.getfixturevalue("postgres_dsn")


def test_team_owned_rows_migrate_back_without_breaking_the_old_constraints_and_forward_again(database_url, tmp_path):
    env = {**os.environ, "DATABASE_URL": database_url, "STUDIO_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tests.studio.team_owned_migration"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # back: the team's grant and secret are gone (the old schema has no owner for them); the team's environments
    # go back to who made them, renamed where the name was taken
    assert seen["back"] == {"grants": [[True, False]],
                            "environments": [["prod", {"mine": 1}], ["prod-team-1", {"team": 1}], ["staging", {}]],
                            "secrets": ["personal"]}
    assert seen["forward"] == {"environments": [["prod", None], ["prod-team-1", None], ["staging", None]],
                               "team_grants": 0}
