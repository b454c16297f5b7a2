"""Fixtures of every engine test: one Spark session per test process, and the two deployments."""
from __future__ import annotations

import pytest

from tests.engine.deployers import InProcessDeployment, SparkDeployment


@pytest.fixture(scope="session")
def spark_session():
    """One local Spark session per test process: starting one costs seconds."""
    from engine.cluster.spark_session import create_spark_session

    session = create_spark_session("engine-tests", "local[4]")
    yield session
    session.stop()


@pytest.fixture(params=["inprocess", pytest.param("spark", marks=pytest.mark.spark)])
def deployment(request):
    """The test runs twice: on threads in this process (``inprocess``) and on Spark (``spark``).

    See ``tests/engine/deployers.py`` for what a deployment offers (run, submit, kill)."""
    if request.param == "spark":
        return SparkDeployment(request.getfixturevalue("spark_session"))
    return InProcessDeployment()
