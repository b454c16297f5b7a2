"""The generated client as a user gets it: built from ``clients/python`` and installed into a fresh
virtualenv (offline, its dependencies linked from the project's), then the README's example run as
the README writes it, against a live studio (uvicorn, the Celery worker, runs on Spark), printing what
the README says it prints; and the same story over the run's WebSockets from a script
(``clients/python/examples/story_over_websockets.py``: token auth, no ``Origin``)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from studio.asgi import application
from tests.conftest import ROOT
from tests.deploy.test_install import clean_env, fresh_install
from tests.support import ThreadedAsgiServer, token_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark, pytest.mark.timeout(900)]

CLIENT = ROOT / "clients" / "python"


def readme_block(marker: str) -> str:
    """The fenced block right after ``<!-- marker -->`` in README.md, without its fences."""
    after = (ROOT / "README.md").read_text().split(f"<!-- {marker} -->\n", 1)[1]
    assert after.startswith("```"), f"README.md: no fenced block right after <!-- {marker} -->"
    return after.split("\n", 1)[1].split("\n```\n", 1)[0] + "\n"


@pytest.fixture(scope="module")
def client_venv(tmp_path_factory) -> Path:
    """A fresh virtualenv with the client installed from a wheel built here (flit_core, offline) and only
    its dependencies, and websockets for the socket story."""
    work = tmp_path_factory.mktemp("client")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "--no-build-isolation",
                    "--wheel-dir", str(work / "dist"), str(CLIENT)], check=True, timeout=300)
    [wheel] = (work / "dist").glob("pipeline_studio_client-*.whl")
    return fresh_install(work, str(wheel), ["httpx", "attrs", "websockets"])


def run_script(venv: Path, args: list[str], url: str, token: str, cwd: Path) -> str:
    done = subprocess.run([str(venv / "bin" / "python"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=800, env=clean_env(STUDIO_URL=url, STUDIO_TOKEN=token))
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    return done.stdout


def test_the_installed_client_is_the_generated_package(client_venv, tmp_path):
    found = run_script(client_venv, ["-c", "import studio_client, httpx; print(studio_client.__file__)"], "", "",
                       tmp_path)
    assert found.strip().startswith(str(client_venv)) and "clients" not in found


def test_the_readme_client_example_tells_the_rest_story(client_venv, celery_worker_process, user, tmp_path):
    example, expected = readme_block("client-example"), readme_block("client-example-output")
    (tmp_path / "example.py").write_text(example)
    with ThreadedAsgiServer(application) as server:
        printed = run_script(client_venv, ["example.py"], f"http://127.0.0.1:{server.port}",
                             token_client(user).token_key, tmp_path)
    assert printed == expected


def test_the_same_story_over_websockets_from_a_script(client_venv, celery_worker_process, user, tmp_path):
    with ThreadedAsgiServer(application) as server:
        printed = run_script(client_venv, [str(CLIENT / "examples" / "story_over_websockets.py")],
                             f"http://127.0.0.1:{server.port}", token_client(user).token_key, tmp_path)
    assert printed.splitlines() == [
        "run RUNNING", "checkpoint completed", "savepoint COMPLETED", "stopped with savepoint COMPLETED FINISHED",
        "restored RUNNING", "rescaled to 2 COMPLETED", "the rescaled run RUNNING checkpoint completed",
        "canceled CANCELED"]
