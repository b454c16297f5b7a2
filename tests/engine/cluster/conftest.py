import pytest


@pytest.fixture(scope="session")
def spark_session():
    """One local Spark session per test process: starting one costs seconds."""
    from engine.cluster.spark_session import create_spark_session

    session = create_spark_session("engine-tests", "local[4]")
    yield session
    session.stop()
