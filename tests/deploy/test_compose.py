"""docker-compose.yml, the Dockerfile and the scripts they share agree (no container engine here).

Before, every container ran ``apt-get install`` and ``make setup`` at start into one
bind-mounted ``.venv``: a race between containers and minutes of start-up. Now one image
holds the built frontend and an installed virtualenv, built by the scripts the tests run on
the host, and each service only runs a command. What cannot run here is checked as data:
the image's build steps, each service's command (its program exists in our venv, its
module imports), its settings (they parse, and point at the services that exist) and its
volumes (every process that reads checkpoints sees the same ``/data``).
"""
from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from engine.cluster.addresses import control_endpoint, data_endpoint, spark_driver_conf
from tests.deploy.test_install import IMAGE_INSTALL

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "pipeline-studio:latest"
STUDIO_IMAGE_SERVICES = {"migrate", "web", "worker", "spark-master", "spark-worker"}
INSTALLERS = re.compile(r"\b(apt-get|apt|pip|npm|make|ensurepip|install_venv|build_frontend)\b")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def dockerfile_runs() -> list[str]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.split(None, 1)[1] for line in text.splitlines() if line.startswith("RUN ")]


def command_of(service: dict) -> list[str]:
    command = service["command"]
    return command if isinstance(command, list) else shlex.split(command)


def test_every_studio_and_spark_service_runs_the_one_image(compose):
    services = compose["services"]
    assert {name for name, service in services.items() if service.get("image") == IMAGE} == STUDIO_IMAGE_SERVICES
    for name in STUDIO_IMAGE_SERVICES:
        assert services[name].get("build") == ".", f"{name} should build the repository's Dockerfile"


def test_nothing_is_installed_when_a_container_starts(compose):
    for name, service in compose["services"].items():
        command = " ".join(command_of(service)) if "command" in service else ""  # else the image's own
        assert not INSTALLERS.search(command), f"{name} installs at start: {command}"
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            assert not source.startswith((".", "/")), f"{name} bind-mounts {source}: the image holds the code"


def test_the_images_build_steps_are_the_scripts_the_host_tests_run(dockerfile_runs):
    scripts = [run for run in dockerfile_runs if "scripts/" in run]
    system = [run for run in dockerfile_runs if "scripts/" not in run]
    assert all(run.startswith("apt-get update") for run in system), system  # Java for Spark: the only other step
    assert [re.search(r"scripts/(\S+)", run).group(1) for run in scripts] == ["build_frontend.sh", "install_venv.sh"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^frontend/dist/index.html:.*\n\tscripts/build_frontend.sh$", makefile, re.M), \
        "`make frontend` (and so `make test`) should build with the image's script"
    install = shlex.split(scripts[1].split("scripts/install_venv.sh", 1)[1])
    assert install == ["/opt/venv", *[arg.format(root="/app") for arg in IMAGE_INSTALL]], \
        "tests/deploy/test_install.py installs what the image installs"
    assert "install_venv.sh" in (ROOT / "tests" / "deploy" / "test_install.py").read_text()


def test_each_command_starts_a_program_of_the_installed_venv(compose):
    bin_dir = Path(sys.executable).parent
    for name in STUDIO_IMAGE_SERVICES:
        program, *args = command_of(compose["services"][name])
        assert program in ("python", "spark-class"), (name, program)
        assert shutil.which(program, path=str(bin_dir)), f"{name}: {program} is not in the venv"
    web = command_of(compose["services"]["web"])
    assert web[1:3] == ["-m", "uvicorn"] and web[3] == "studio.asgi:application"
    worker = command_of(compose["services"]["worker"])
    assert worker[1:5] == ["-m", "celery", "-A", "studio"]
    migrate = command_of(compose["services"]["migrate"])
    assert migrate[1:4] == ["-m", "django", "migrate"]
    assert command_of(compose["services"]["spark-master"])[1] == "org.apache.spark.deploy.master.Master"
    assert command_of(compose["services"]["spark-worker"])[1:3] == ["org.apache.spark.deploy.worker.Worker",
                                                                     compose["services"]["worker"]["environment"]
                                                                     ["SPARK_MASTER"]]


def test_web_and_worker_start_after_the_one_migration(compose):
    services = compose["services"]
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_the_settings_parse_and_point_at_services_that_exist(compose):
    services = compose["services"]
    documented = (ROOT / "docs" / "deployment.md").read_text()
    for name, service in services.items():
        for variable in service.get("environment", {}):
            if variable.startswith(("ENGINE_", "SPARK_DRIVER", "SPARK_BLOCK", "STUDIO_")):
                assert f"`{variable}`" in documented, f"{name}'s {variable} is not in docs/deployment.md"
    worker = {key: str(value) for key, value in services["worker"]["environment"].items()}
    control = control_endpoint(worker)
    assert control.advertised_host == "worker" and control.bind_host == "0.0.0.0" and len(control.ports) >= 64
    assert spark_driver_conf(worker)["spark.driver.host"] == "worker"
    master = command_of(services["spark-master"])
    assert worker["SPARK_MASTER"] == f"spark://{master[master.index('--host') + 1]}:{master[master.index('--port') + 1]}"
    assert "@postgres:" in worker["DATABASE_URL"] and "//redis:" in worker["REDIS_URL"]
    slots = data_endpoint({key: str(value) for key, value in services["spark-worker"]["environment"].items()})
    cores = int(command_of(services["spark-worker"])[command_of(services["spark-worker"]).index("--cores") + 1])
    assert slots.bind_host == "0.0.0.0" and len(slots.ports) >= cores, "a data port per slot the worker runs"


def test_every_process_that_reads_checkpoints_mounts_the_same_data_volume(compose):
    services = compose["services"]
    data_dir = services["worker"]["environment"]["STUDIO_DATA_DIR"]
    for name in ("web", "worker", "spark-worker", "migrate"):
        assert f"studio-data:{data_dir}" in services[name]["volumes"], name
        assert f"slot-cpus:{services['worker']['environment']['ENGINE_CPU_LOCK_DIR']}" in services[name]["volumes"]
    assert set(compose["volumes"]) == {"studio-data", "slot-cpus", "postgres-data", "kafka-data"}


def test_the_kafka_broker_advertises_the_address_pipelines_are_granted(compose):
    """KRaft, one node its own controller; clients reach what it advertises, kafka:9092."""
    kafka = compose["services"]["kafka"]["environment"]
    assert kafka["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert kafka["KAFKA_ADVERTISED_LISTENERS"] == "PLAINTEXT://kafka:9092"
    assert kafka["KAFKA_CONTROLLER_QUORUM_VOTERS"] == f"{kafka['KAFKA_NODE_ID']}@kafka:9093"
    assert int(kafka["KAFKA_TRANSACTION_MAX_TIMEOUT_MS"]) >= 900_000, "the sinks' default transaction timeout"


def test_the_multihost_harness_runs_the_compose_commands_and_settings():
    """tests/multihost starts Spark and the driver from this file: the same commands and
    settings, with the service names replaced by the hosts' addresses."""
    from tests.multihost.hosts import compose_command, compose_environment

    addresses = {"spark-master": "10.9.9.2", "worker": "10.9.9.3"}
    master = compose_command("spark-master", addresses)
    assert master[0] == str(Path(sys.executable).parent / "spark-class")
    assert master[1:] == ["org.apache.spark.deploy.master.Master", "--host", "10.9.9.2", "--port", "7077",
                          "--webui-port", "8080"]
    worker = compose_command("spark-worker", addresses)
    assert worker[1:3] == ["org.apache.spark.deploy.worker.Worker", "spark://10.9.9.2:7077"]
    driver = compose_environment("worker", addresses)
    assert driver["ENGINE_CONTROL_ADVERTISED_HOST"] == driver["SPARK_DRIVER_HOST"] == "10.9.9.3"
    assert driver["ENGINE_CONTROL_PORTS"] == "41000-41099"
    assert compose_environment("spark-worker", addresses)["ENGINE_DATA_PORTS"] == "42000-42031"
    harness = (ROOT / "tests" / "multihost" / "test_cluster.py").read_text()
    for service in ("spark-master", "spark-worker"):
        assert f'compose_command("{service}"' in harness
    for service in ("spark-worker", "worker"):
        assert f'compose_environment("{service}"' in harness
