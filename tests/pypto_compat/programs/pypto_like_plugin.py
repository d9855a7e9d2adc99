"""A pytest plugin in the style of a pypto test harness: it imports pypto when it is loaded."""
import pytest
from pypto.runtime import RunConfig


@pytest.fixture
def test_config():
    return RunConfig(platform="a2a3")
