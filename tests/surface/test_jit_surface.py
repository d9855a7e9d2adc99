"""``@pl.jit`` with pypto's call surface: ``config=RunConfig(...)`` on calls, ``compile`` and
``lower``; ``_cache`` is the in-process cache (listed, counted and cleared by callers)."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import UserError
from ptokit.ir import nodes as N
from ptokit.jit import cache as C
from ptokit.runtime import RunConfig

from . import jprogs as J


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(autouse=True)
def fresh_caches():
    for f in (J.add, J.scaled):
        f._cache.clear()
    yield


def test_call_with_a_config_runs_in_place_on_its_platform():
    a, b = arr(32, 64), arr(32, 64, seed=1)
    out = np.zeros_like(a)
    assert J.add(a, b, out, config=RunConfig(platform="a5sim", aicpu_thread_num=3)) is out
    np.testing.assert_allclose(out, a + b, rtol=1e-6)
    assert J.add.last_compiled.platform == "a5sim"
    (only,) = J.add._cache.values()
    assert only is J.add.last_compiled


def test_compile_returns_the_cached_object():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    cfg = RunConfig(platform="a2a3sim")
    c = J.add.compile(a, b, out, config=cfg)
    assert list(J.add._cache.values()) == [c]
    assert J.add.compile(a, b, out, config=cfg) is c
    J.add(a, b, out, config=cfg)
    assert J.add.last_compiled is c and len(J.add._cache) == 1
    np.testing.assert_allclose(out, a + b, rtol=1e-6)
    # another specialization is another entry
    J.add.compile(arr(32, 64), arr(32, 64), np.zeros((32, 64), np.float32))
    assert len(J.add._cache) == 2
    keys = list(J.add._cache)
    assert {k.args[0].shape for k in keys} == {(16, 64), (32, 64)}


def test_clear_makes_the_next_call_compile_again_from_disk():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    first = J.add.compile(a, b, out)
    J.add._cache.clear()
    assert len(J.add._cache) == 0
    before = dict(C.STATS)
    again = J.add.compile(a, b, out)
    assert again is not first and list(J.add._cache.values()) == [again]
    assert C.STATS["memory_hits"] == before["memory_hits"]
    assert C.STATS["disk_hits"] == before["disk_hits"] + 1
    assert again.output_dir == first.output_dir


def test_removing_one_entry_keeps_the_cache_consistent():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    c = J.add.compile(a, b, out)
    (key,) = list(J.add._cache)
    del J.add._cache[key]
    before = C.STATS["memory_hits"]
    c2 = J.add.compile(a, b, out)
    assert c2 is not c and C.STATS["memory_hits"] == before and len(J.add._cache) == 1
    assert J.add.compile(a, b, out) is c2 and C.STATS["memory_hits"] == before + 1


def test_cache_clear_method_is_the_same():
    J.add.compile(arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32))
    J.add.cache_clear()
    assert len(J.add._cache) == 0 and J.add.cache_info() == {"memory_entries": 0}


def test_lower_returns_the_post_pass_program_which_compiles_as_is(tmp_path):
    a, b, out = arr(16, 64), arr(16, 64, seed=2), np.zeros((16, 64), np.float32)
    prog = J.add.lower(a, b, out, config=RunConfig(platform="a2a3sim"))
    assert prog.lowered and all(isinstance(k, N.GlobalVar) for k in prog.functions)
    assert "add" in [f.name for f in prog.functions.values()]
    assert "class add" in prog.as_python()
    compiled = ptokit.compile(prog, output_dir=tmp_path / "lowered")
    assert not (tmp_path / "lowered" / "passes_dump").exists()
    y = compiled(a, b)                        # outputs left out: allocated and returned
    np.testing.assert_allclose(y, a + b, rtol=1e-6)
    assert len(J.add._cache) == 0            # lower() neither reads nor fills the cache


def test_return_style_call_with_a_config():
    a = arr(16, 64)
    y = J.scaled(a, 2.0, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(y, a * 2.0, rtol=1e-6)


def test_codegen_only_compiles_without_running():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    assert J.add(a, b, out, config=RunConfig(codegen_only=True)) is None
    assert not out.any()
    assert len(J.add._cache) == 1
    # a hardware platform can be compiled for when nothing is run
    c = J.add.compile(a, b, out, config=RunConfig(platform="a2a3", codegen_only=True))
    assert c.platform == "a2a3" and (c.output_dir / "kernel_config.py").is_file()


def test_compile_profiling_writes_the_report_even_on_a_hit():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    J.add.compile(a, b, out)
    c = J.add.compile(a, b, out, config=RunConfig(compile_profiling=True))
    report = c.output_dir / "report" / "pipeline_profile.json"
    assert report.is_file() and '"passes"' in report.read_text()


def test_save_kernels_dir_keeps_the_tree_there(tmp_path):
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    J.add(a, b, out, config=RunConfig(save_kernels_dir=str(tmp_path / "kept")))
    assert (tmp_path / "kept" / "kernel_config.py").is_file()
    c = J.add.compile(a, b, out, config=RunConfig(save_kernels_dir=str(tmp_path / "kept2")))
    assert c.output_dir == (tmp_path / "kept2").resolve()


def test_option_given_twice_is_an_error():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    with pytest.raises(TypeError, match="platform given both as keyword and in config"):
        J.add.compile(a, b, out, platform="a5sim", config=RunConfig(platform="a5sim"))


def test_config_must_be_a_run_config():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    with pytest.raises(TypeError, match="config must be a ptokit.runtime.RunConfig, got dict"):
        J.add(a, b, out, config={"platform": "a5sim"})


def test_distributed_config_is_reported_not_dropped():
    a, b, out = arr(16, 64), arr(16, 64), np.zeros((16, 64), np.float32)
    with pytest.raises(UserError, match="distributed_config.*@pl.jit.host"):
        J.add(a, b, out, config=RunConfig(distributed_config=object()))
