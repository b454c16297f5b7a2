"""The suite's own isolation: a test's pipelines get workspaces no other test, test session or studio sees.

Pipeline ids repeat across test sessions (a database each) and, after a rolled-back test, within one: a
workspace named by the id alone (``pipeline-<id>``) would hand one test's files to another, or to the
developer's own studio under ``./var``.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from studio.locations import workspace_of
from studio.models import Pipeline
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
roots_seen: list[str] = []


@pytest.mark.parametrize("attempt", [1, 2])
def test_each_test_has_a_fresh_workspace_root_its_drivers_share(user, studio_data_dir, attempt):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    pipeline.versions.create(number=1, definition=simple_pipeline(), created_by=user)
    workspace = workspace_of(pipeline)
    assert Path(settings.STUDIO_WORKSPACE_ROOT).is_relative_to(studio_data_dir), "not the developer's ./var"
    assert not workspace.exists(), "no earlier test's files"
    assert settings.STUDIO_WORKSPACE_ROOT not in roots_seen, "not the root of the test before"
    roots_seen.append(settings.STUDIO_WORKSPACE_ROOT)
    workspace.mkdir(parents=True)  # as the next test's pipeline of the same id must not find it

    child = subprocess.run(  # a driver or worker this test starts resolves the same root
        [sys.executable, "-c", "import studio.settings as settings; print(settings.STUDIO_WORKSPACE_ROOT)"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=120, check=True)
    assert child.stdout.strip().splitlines()[-1] == settings.STUDIO_WORKSPACE_ROOT
