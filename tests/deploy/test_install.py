"""``pip install .`` gives an engine that runs outside the repository, without the studio's stack.

Before, ``python -m engine`` worked only from the repository root. The test installs the
project with ``scripts/install_venv.sh`` (the Docker image's step) into a fresh virtualenv
in a temporary directory, offline: the wheel is built from here by ``scripts/wheel_backend.py``
(standard library only) and the dependencies come from the project's virtualenv, but only
the engine's: a directory links exactly the distributions the engine's requirements need,
so ``pip check`` and an ``import django`` that fails prove the engine installs without the
``studio`` extra. Then the console commands plan and run a pipeline (local Spark) from a
directory outside the repository.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
IMAGE_INSTALL = ["-e", "{root}[studio]"]
"""What the Dockerfile passes to ``scripts/install_venv.sh`` (``tests/deploy/test_compose.py``
checks it does); the studio test installs the same, offline."""
SITE = "lib/python{}.{}/site-packages".format(*sys.version_info[:2])


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


def requirement_closure(requirements: list[str]) -> set[str]:
    """Names of the installed distributions ``requirements`` need, transitively (markers
    evaluated for this interpreter and the extras asked for)."""
    needed: set[str] = set()
    todo = [(Requirement(text), "") for text in requirements]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        try:
            found = distribution(requirement.name)
        except PackageNotFoundError:
            continue  # an optional dependency not installed here: pip check would say if it were needed
        key = found.metadata["Name"].lower()
        extras = set(requirement.extras)
        if key in needed and not extras:
            continue
        needed.add(key)
        for text in found.requires or []:
            for asked in extras or {""}:
                todo.append((Requirement(text), asked))
    return needed


def link_distributions(names: set[str], target: Path) -> None:
    """Symlink the top-level files of each installed distribution (packages, modules,
    dist-info) into ``target``: a site directory with these distributions only."""
    target.mkdir()
    for name in names:
        found = distribution(name)
        site = Path(found.locate_file(""))
        for top in {file.parts[0] for file in found.files or [] if file.parts[0] != ".."}:
            if not (target / top).exists() and (site / top).exists():
                (target / top).symlink_to(site / top)


def fresh_install(work: Path, spec: str | list[str], requirements: list[str]) -> Path:
    """``scripts/install_venv.sh`` into ``work``/venv (offline), the dependencies linked from
    this interpreter's: only the distributions ``requirements`` need."""
    venv = work / "venv"
    specs = [spec] if isinstance(spec, str) else spec
    subprocess.run(["sh", str(ROOT / "scripts" / "install_venv.sh"), str(venv), "--no-deps", "--no-index", *specs],
                   cwd=work, env={**os.environ, "PYTHON": sys.executable}, check=True, timeout=300)
    link_distributions(requirement_closure(requirements), work / "dependencies")
    (venv / SITE / "dependencies.pth").write_text(f"{work / 'dependencies'}\n")
    return venv


@pytest.fixture(scope="module")
def engine_venv(tmp_path_factory) -> Path:
    """A fresh virtualenv outside the repository with the project installed (no extras) and
    the engine's dependencies only."""
    return fresh_install(tmp_path_factory.mktemp("engine-only"), str(ROOT), pyproject()["project"]["dependencies"])


def clean_env(**extra) -> dict:
    """This environment without anything that points into the repository or its venv."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV",
                          "DJANGO_SETTINGS_MODULE")}
    return {**env, **extra}


def in_venv(venv: Path, *args, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], cwd=cwd, env=clean_env(), capture_output=True,
                          text=True, timeout=timeout)


def test_the_packaged_pins_are_requirements_txt_pins():
    """One set of versions: what CI tests is what ``pip install .`` installs."""
    project = pyproject()["project"]
    packaged = {*project["dependencies"], *project["optional-dependencies"]["studio"]}
    runtime = (ROOT / "requirements.txt").read_text().split("# Tests")[0]
    pinned = {line.strip() for line in runtime.splitlines() if line.strip() and not line.startswith("#")}
    assert packaged == pinned


def test_the_engine_installs_without_the_studio_dependencies(engine_venv, tmp_path):
    done = in_venv(engine_venv, "python", "-c", "import engine, engine.api; print(engine.__file__)",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(engine_venv / SITE / "engine" / "__init__.py")
    missing = in_venv(engine_venv, "python", "-c", "import django", cwd=tmp_path)
    assert "No module named 'django'" in missing.stderr
    check = subprocess.run([sys.executable, "-m", "pip", "--python", str(engine_venv / "bin" / "python"), "check"],
                           cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_studio_extra_carries_the_web_stack(engine_venv):
    metadata = next((engine_venv / SITE).glob("pipeline_studio-*.dist-info")).joinpath("METADATA").read_text()
    studio_only = re.findall(r'^Requires-Dist: (\S+); extra == "studio"$', metadata, re.M)
    assert "Django==5.2.19" in studio_only and "celery==5.7.0" in studio_only
    unconditional = re.findall(r"^Requires-Dist: ([^;\s]+)$", metadata, re.M)
    assert "pyspark==4.3.0" in unconditional and not {"Django==5.2.19", "celery==5.7.0"} & set(unconditional)
    assert (engine_venv / "bin" / "studio-server").exists()


def test_installed_as_the_image_installs_it_the_studio_commands_run(tmp_path_factory, tmp_path):
    """Editable with the studio extra, as the Dockerfile installs it: the studio's processes
    import the tree that holds the built frontend."""
    project = pyproject()["project"]
    venv = fresh_install(tmp_path_factory.mktemp("with-studio"), [arg.format(root=ROOT) for arg in IMAGE_INSTALL],
                         [*project["dependencies"], *project["optional-dependencies"]["studio"]])
    client = in_venv(venv, "studio", "--help", cwd=tmp_path)
    assert client.returncode == 0 and "pipelines" in client.stdout, client.stderr
    server = in_venv(venv, "studio-server", "--help", cwd=tmp_path)
    assert server.returncode == 0 and "STUDIO_ADVERTISED_URL" in server.stdout, server.stderr
    settings = in_venv(venv, "python", "-c", "import django; from django.conf import settings; "
                       "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'studio.settings'; django.setup(); "
                       "print(settings.INSTALLED_APPS[-1])", cwd=tmp_path)
    assert settings.returncode == 0, settings.stderr
    frontend = in_venv(venv, "python", "-c", "import studio.settings as s; print(s.FRONTEND_DIST)", cwd=tmp_path)
    assert frontend.stdout.strip() == str(ROOT / "frontend" / "dist"), frontend.stderr


@pytest.mark.spark
def test_the_console_commands_plan_and_run_a_pipeline_outside_the_repository(engine_venv, tmp_path):
    definition = {
        "format": 1, "name": "installed", "parallelism": 2, "checkpointing": {"interval_ms": 200},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 500}},
                  {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
                  {"id": "out", "type": "sink.file", "params": {"path": str(tmp_path / "out")}}],
        "edges": [{"id": "e1", "from": "gen", "to": "double", "partitioning": "hash", "key": "x % 7"},
                  {"id": "e2", "from": "double", "to": "out"}],
    }
    (tmp_path / "pipeline.json").write_text(json.dumps(definition))

    plan = in_venv(engine_venv, "engine", "plan", "pipeline.json", "--json", cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert len(json.loads(plan.stdout)["regions"]) == 1

    run = in_venv(engine_venv, "engine", "run", "pipeline.json", "--checkpoint-dir", str(tmp_path / "checkpoints"),
                  cwd=tmp_path, timeout=240)
    statuses = [event["status"] for event in map(json.loads, run.stdout.splitlines()) if event["type"] == "status"]
    assert run.returncode == 0 and statuses == ["RUNNING", "FINISHED"], run.stderr[-3000:]
    written = sorted(json.loads(line) for part in (tmp_path / "out").glob("part-*")
                     for line in part.read_text().splitlines())
    assert written == sorted(x * 2 for x in range(500))
