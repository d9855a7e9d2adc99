"""A sync-start task asks all its blocks to start together (issue 29): when RunConfig leaves
``clusters`` unset the simulated device is as large as the program's sync-start tasks need
(recorded at compile time in kernel_config.py, the platform's count when a block count is known only
at run time); an explicit ``clusters`` is honoured and too few is the runtime's error."""
import numpy as np
import pytest

import ptokit
from ptokit.artifacts.kernel_config import read_kernel_config
from ptokit.errors import RuntimeFailure, UserError
from ptokit.runtime import RunConfig

from . import scope_programs as S

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def _x(blocks):
    return np.random.default_rng(blocks).standard_normal((blocks * 8, 64)).astype(np.float32)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_48_vector_blocks_start_together_on_a2a3(tmp_path, runtime):
    compiled = ptokit.compile(S.sync_start_rows(48), output_dir=tmp_path / "o", runtime=runtime)
    assert read_kernel_config(compiled.output_dir).sync_start_clusters == 24     # 48 AIV = 24 clusters x 2
    x = _x(48)
    y = np.zeros_like(x)
    result = compiled(x, y)
    np.testing.assert_allclose(y, x * 10, rtol=1e-6)
    assert result.clusters == 24


def test_default_size_when_sync_start_needs_fewer(tmp_path):
    compiled = ptokit.compile(S.sync_start_rows(6), output_dir=tmp_path / "o")
    assert read_kernel_config(compiled.output_dir).sync_start_clusters == 3
    x = _x(6)
    y = np.zeros_like(x)
    assert compiled(x, y).clusters == 8
    np.testing.assert_allclose(y, x * 10, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_run_time_block_count_sizes_to_the_platform(tmp_path, runtime):
    compiled = ptokit.compile(S.SyncStartRunTimeBlocks, output_dir=tmp_path / "o", runtime=runtime)
    assert read_kernel_config(compiled.output_dir).sync_start_clusters == 24
    x = _x(48)
    y = np.zeros_like(x)
    assert compiled(x, 40, y).clusters == 24
    want = np.zeros_like(x)
    want[:320] = x[:320] * 10
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_explicit_clusters_is_honoured_and_too_few_is_an_error(tmp_path):
    compiled = ptokit.compile(S.sync_start_rows(48), output_dir=tmp_path / "o")
    x = _x(48)
    y = np.zeros_like(x)
    with pytest.raises(RuntimeFailure, match="invalid sync-start: task 0 asks 48 blocks to start together but "
                                             "only 16 cores of its type are simulated"):
        compiled(x, y, config=RunConfig(clusters=8))
    y[:] = 0
    assert compiled(x, y, config=RunConfig(clusters=24)).clusters == 24
    np.testing.assert_allclose(y, x * 10, rtol=1e-6)


def test_more_blocks_than_the_platform_has_is_still_refused(tmp_path):
    compiled = ptokit.compile(S.sync_start_rows(49), output_dir=tmp_path / "o")
    assert read_kernel_config(compiled.output_dir).sync_start_clusters == 24     # capped by the platform
    x = _x(49)
    with pytest.raises(RuntimeFailure, match="asks 49 blocks to start together but only 48 cores of its type"):
        compiled(x, np.zeros_like(x))


def test_clusters_values(tmp_path):
    assert RunConfig().clusters is None
    with pytest.raises(ValueError, match=r"clusters=25 is not valid on a2a3sim; valid values are 1\.\.24 \(None: 8, "
                                         r"or as many as the program's sync-start tasks need\)"):
        RunConfig(clusters=25)
    compiled = ptokit.compile(S.sync_start_rows(6), output_dir=tmp_path / "o")
    cfg = compiled.output_dir / "kernel_config.py"
    text = cfg.read_text()
    assert '\t"sync_start_clusters": 3,' in text
    cfg.write_text(text.replace('"sync_start_clusters": 3', '"sync_start_clusters": -1'))
    with pytest.raises(UserError, match=r"RUNTIME_CONFIG\['sync_start_clusters'\]: expected a non-negative int, "
                                        r"got -1"):
        read_kernel_config(cfg)
