import pytest

from tests.engine.async_io.support import FakeService


@pytest.fixture(scope="module")
def service_module():
    service = FakeService()
    yield service
    service.close()


@pytest.fixture
def service(service_module):
    """The fake HTTP service, reset before each test."""
    service_module.reset()
    yield service_module
    service_module.reset()
