import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dist_util import CHIPS, make_session, my_segments, write_chip  # noqa: E402

from ptokit.distributed.launcher import chip_images  # noqa: E402

TEST_CHIPS = [c for c in CHIPS if c not in ("putbw", "barriers", "allreduce_big")]


@pytest.fixture(scope="session")
def chip_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("chips")
    return {name: write_chip(base / name, name) for name in TEST_CHIPS}


@pytest.fixture(scope="session")
def images(chip_dirs):
    return chip_images(chip_dirs, 2, "a2a3sim", quiet=True)


@pytest.fixture(scope="module", params=[2, 4], ids=lambda w: f"W{w}")
def session(request, images):
    s = make_session(images, request.param)
    yield s
    s.close()
    assert not my_segments(), "segments left after the session closed"
