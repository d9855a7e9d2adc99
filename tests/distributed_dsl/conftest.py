import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "distributed"))

import ptokit  # noqa: E402
from dist_util import my_segments  # noqa: E402
from ptokit.distributed.launcher import chip_images  # noqa: E402
from ptokit.distributed.session import Session  # noqa: E402
from ptokit.distributed.transport.shm import ShmTransport  # noqa: E402
from ptokit.runtime.config import RunConfig  # noqa: E402


@pytest.fixture(scope="session")
def dsl_images(tmp_path_factory):
    """The chip programs of dsl_programs.py, compiled from the DSL once."""
    import dsl_programs as progs
    base = tmp_path_factory.mktemp("dsl_chips")
    dirs = {name: ptokit.compile(getattr(progs, name), output_dir=base / name).output_dir
            for name in progs.CHIPS}
    return chip_images(dirs, 2, "a2a3sim", quiet=True)


@pytest.fixture(scope="module", params=[2, 4], ids=lambda w: f"W{w}")
def session(request, dsl_images):
    s = Session(device_ids=list(range(request.param)), config=RunConfig(clusters=2, timeout=20.0),
                chips=dsl_images, entry=None, transport=ShmTransport()).start()
    yield s
    s.close()
    assert not my_segments(), "segments left after the session closed"
