"""@pl.jit programs run on the CPU simulator and match numpy."""
import json
import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

from ptokit.jit import cache as C

from . import progs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("jitrun") / "cache"
    old = os.environ.get("PTOKIT_CACHE_DIR")
    os.environ["PTOKIT_CACHE_DIR"] = str(d)
    yield d
    if old is None:
        os.environ.pop("PTOKIT_CACHE_DIR", None)
    else:
        os.environ["PTOKIT_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(7)


def test_hello_world(cache_dir, rng):
    a = rng.standard_normal((64, 64), dtype=np.float32)
    b = rng.standard_normal((64, 64), dtype=np.float32)
    c = np.zeros_like(a)
    r = progs.tile_add(a, b, c)
    assert r is c
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    # a second call with new data hits the in-process cache and still computes
    C.reset_stats()
    a2 = a * 3
    progs.tile_add(a2, b, c)
    assert C.STATS["memory_hits"] == 1 and C.STATS["codegen_runs"] == 0
    np.testing.assert_allclose(c, a2 + b, rtol=1e-6)


def test_multi_helper(cache_dir, rng):
    a = rng.standard_normal((64, 64), dtype=np.float32)
    b = rng.standard_normal((64, 64), dtype=np.float32)
    y = np.zeros_like(a)
    progs.multi(a, b, 0.5, 2, y)
    np.testing.assert_allclose(y, (a * 2 + b) * 0.5 + 1, rtol=1e-5, atol=1e-6)


def test_return_style_and_tensor_ops(cache_dir, rng):
    x = rng.standard_normal((64, 64), dtype=np.float32)
    y = rng.standard_normal((64, 64), dtype=np.float32)
    z = progs.tensor_ops(x, y)
    assert isinstance(z, np.ndarray) and z.shape == (64, 64)
    np.testing.assert_allclose(z, np.exp(x - y), rtol=1e-5)


def test_loop_of_tasks_and_inout(cache_dir, rng):
    x = rng.standard_normal((64, 64), dtype=np.float32)
    out = progs.rowwise(x)
    np.testing.assert_allclose(out, np.maximum(x, 0))
    v = x.copy()
    progs.inplace_scale(v, 3.0)
    np.testing.assert_allclose(v, x * 3, rtol=1e-6)


def test_bf16_and_host_build_graph(cache_dir, rng):
    bf = ml_dtypes.bfloat16
    a = rng.standard_normal((64, 64)).astype(bf)
    b = rng.standard_normal((64, 64)).astype(bf)
    c = np.zeros((64, 64), bf)
    progs.tile_add.compile(a, b, c, platform="a5sim")(a, b, c)     # a2a3 adds no bf16 tiles (pto.tadd's types)
    ref = (a.astype(np.float32) + b.astype(np.float32)).astype(bf).astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    a32 = rng.standard_normal((64, 64), dtype=np.float32)
    c32 = np.zeros_like(a32)
    compiled = progs.tile_add.compile(a32, a32, c32, runtime="host_build_graph")
    assert compiled.config.runtime.value == "host_build_graph"
    compiled(a32, a32, c32)
    np.testing.assert_allclose(c32, 2 * a32, rtol=1e-6)


def test_new_process_runs_from_disk_cache(cache_dir, rng):
    a = rng.standard_normal((64, 64), dtype=np.float32)
    # ptokit's own code is part of the key: recompute its hash now (other work may edit the package)
    C.ptokit_identity.cache_clear()
    progs.tile_add.cache_clear()
    progs.tile_add(a, a, np.zeros_like(a))          # make sure the entry and the objects exist
    # the simulator's runtime library is loaded once per process, possibly from another test's
    # cache: build it into this cache too, so the child finds everything already built
    from ptokit.runtime.sim import driver
    driver.library_path()
    # the folder from which progs imports under the same module name as here (it is part of the key)
    base = os.path.dirname(os.path.abspath(progs.__file__))
    for _ in progs.__name__.split(".")[:-1]:
        base = os.path.dirname(base)
    code = textwrap.dedent("""
        import json, subprocess, sys
        import numpy as np
        from ptokit.jit import cache
        import importlib
        sys.path.insert(0, {base!r})
        progs = importlib.import_module({name!r})
        calls = []
        real = subprocess.run
        def spy(cmd, *a, **k):
            if cmd and "--version" not in cmd and "-dumpmachine" not in cmd:
                calls.append(cmd[0])
            return real(cmd, *a, **k)
        subprocess.run = spy
        x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
        c = np.zeros_like(x)
        progs.tile_add(x, x, c)
        print(json.dumps({{"stats": cache.STATS, "ok": bool(np.array_equal(c, 2 * x)), "gxx": calls}}))
    """).format(base=base, name=progs.__name__)
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PTOKIT_CACHE_DIR": str(cache_dir), "PTOKIT_EXPLAIN_CACHE": "1"})
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout.strip().splitlines()[-1])
    assert res["ok"]
    assert res["stats"]["disk_hits"] == 1 and res["stats"]["codegen_runs"] == 0, p.stderr
    assert res["gxx"] == []                              # objects came from the build cache


def test_dynamic_dim_compiles_once(cache_dir, rng):
    C.reset_stats()
    for rows in (64, 32):
        x = rng.standard_normal((rows, 64), dtype=np.float32)
        np.testing.assert_allclose(progs.dyn_relu(x), np.maximum(x, 0))
    assert C.STATS["codegen_runs"] <= 1 and C.STATS["memory_hits"] == 1


def test_explicit_deps(cache_dir, rng):
    x = rng.standard_normal((64, 64), dtype=np.float32)
    np.testing.assert_allclose(progs.chain(x), np.maximum(x, 0) + 1, rtol=1e-6)
    orch = (progs.chain.last_compiled.output_dir / "orchestration" / "chain.cpp").read_text()
    assert "add_dep(t0)" in orch
