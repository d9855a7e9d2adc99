import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dist_util import CHIPS, my_segments, write_chip  # noqa: E402

from ptokit.distributed.launcher import chip_images  # noqa: E402
from ptokit.distributed.session import Session  # noqa: E402
from ptokit.distributed.transport.shm import ShmTransport  # noqa: E402
from ptokit.runtime.config import RunConfig  # noqa: E402

TEST_CHIPS = [c for c in CHIPS if c not in ("putbw", "barriers", "allreduce_big")]


@pytest.fixture(scope="session")
def chip_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("chips")
    return {name: write_chip(base / name, name) for name in TEST_CHIPS}


@pytest.fixture(scope="session")
def images(chip_dirs):
    return chip_images(chip_dirs, 2, "a2a3sim", quiet=True)


def make_session(images, world_size, **config) -> Session:
    config.setdefault("clusters", 2)
    config.setdefault("timeout", 20.0)
    return Session(device_ids=list(range(world_size)), config=RunConfig(**config), chips=images, entry=None,
                   transport=ShmTransport()).start()


@pytest.fixture(scope="module", params=[2, 4], ids=lambda w: f"W{w}")
def session(request, images):
    s = make_session(images, request.param)
    yield s
    s.close()
    assert not my_segments(), "segments left after the session closed"
