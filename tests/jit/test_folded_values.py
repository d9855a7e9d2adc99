"""Values a @pl.jit program folds from its module are in the compile cache key (issue 31, finding 2):
dict items, list items past the short-list limit, attributes and items of attributes.  A change in
the process is a memory miss, a change between processes a disk miss; a container the key cannot
cover is refused where it is indexed."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ptokit.errors import CompileError
from ptokit.jit import cache as C
from source_modules import import_source

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]

TEMPLATE = '''\
import types
import ptokit.language as pl

CFG = {{"scale": {scale}, "unused": 1}}
TABLE = [float(i) for i in range(100)]          # longer than a short list: keyed by digest
OBJ = types.SimpleNamespace(tiles={{"bias": 0.5}})
MIXED = {{"shift": 0.25, "act": print}}          # cannot be keyed whole: its items are


@pl.jit
def prog(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.muls(a, CFG["scale"])
        t = pl.adds(t, TABLE[{index}])
        t = pl.adds(t, OBJ.tiles["bias"])
        c[:] = pl.adds(t, MIXED["shift"])
    return c
'''


def load(folder, name, scale=2.0, index=3):
    return import_source(folder / f"{name}.py", name, TEMPLATE.format(scale=scale, index=index))


@pytest.fixture
def env(tmp_path, monkeypatch):
    # the session's cache (shared kernels, one simulator build): every test has its own module name
    monkeypatch.delenv("PTOKIT_CACHE", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    C.reset_stats()
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("jitfold_")]:
        del sys.modules[name]


def expect(a, scale, table, bias, shift):
    return (a * np.float32(scale) + np.float32(table) + np.float32(bias) + np.float32(shift)).astype(np.float32)


def run(mod, a, runtime):
    from ptokit.runtime import RunConfig
    c = np.zeros_like(a)
    mod.prog(a, c, config=RunConfig(runtime=runtime))
    return c


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_changed_items_and_attributes_recompile_in_process(env, runtime):
    mod = load(env, f"jitfold_a_{runtime}")
    a = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32)
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 2.0, 3.0, 0.5, 0.25), rtol=1e-6)
    assert C.STATS["misses"] == 1
    run(mod, a, runtime)
    assert C.STATS["memory_hits"] == 1 and C.STATS["misses"] == 1
    mod.CFG["scale"] = 3.0                      # a dict item
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 3.0, 3.0, 0.5, 0.25), rtol=1e-6)
    mod.TABLE[3] = 7.0                          # an item of a long list
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 3.0, 7.0, 0.5, 0.25), rtol=1e-6)
    mod.OBJ.tiles["bias"] = -1.0                # an item of an attribute
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 3.0, 7.0, -1.0, 0.25), rtol=1e-6)
    mod.MIXED["shift"] = 4.0                    # an item of a dict that cannot be keyed whole
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 3.0, 7.0, -1.0, 4.0), rtol=1e-6)
    assert C.STATS["misses"] == 5 and C.STATS["disk_hits"] == 0
    mod.CFG["scale"] = 2.0                      # back to the first values: the first entry, from memory
    mod.TABLE[3], mod.OBJ.tiles["bias"], mod.MIXED["shift"] = 3.0, 0.5, 0.25
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 2.0, 3.0, 0.5, 0.25), rtol=1e-6)
    assert C.STATS["misses"] == 5 and C.STATS["memory_hits"] == 2


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_changed_module_constant_recompiles_in_a_new_process(env, runtime):
    name = f"jitfold_b_{runtime}"
    mod = load(env, name)
    a = np.ones((64, 64), np.float32)
    np.testing.assert_allclose(run(mod, a, runtime), expect(a, 2.0, 3.0, 0.5, 0.25))
    load(env, name, scale=5.0)                  # the file now says CFG = {"scale": 5.0, ...}
    code = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        sys.path.insert(0, {str(env)!r})
        import {name} as mod
        from ptokit.jit import cache
        from ptokit.runtime import RunConfig
        c = np.zeros((64, 64), np.float32)
        mod.prog(np.ones((64, 64), np.float32), c, config=RunConfig(runtime={runtime!r}))
        print(json.dumps({{"stats": cache.STATS, "c": float(c[0, 0])}}))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["stats"]["misses"] == 1 and res["stats"]["disk_hits"] == 0, res
    assert res["c"] == pytest.approx(5.0 + 3.0 + 0.5 + 0.25)


def test_unkeyable_container_indexed_by_a_computed_value_is_refused(env):
    path = env / "jitfold_c.py"
    mod = import_source(path, "jitfold_c", textwrap.dedent('''\
        import ptokit.language as pl

        K = "shift"
        MIXED = {"shift": 0.25, "act": print}


        @pl.jit
        def prog(a: pl.Tensor, c: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                c[:] = pl.adds(a, MIXED[K])
            return c
        '''))
    with pytest.raises(CompileError) as ei:
        mod.prog.compile(np.ones((64, 64), np.float32), np.zeros((64, 64), np.float32))
    msg = str(ei.value)
    assert f"{path}:10:" in msg and "MIXED[K]" in msg and "^" in msg
    assert "index it with a literal" in msg and C.STATS["codegen_runs"] == 0
