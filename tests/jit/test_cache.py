"""The @pl.jit compile cache: key components, explain log, disk hits across processes,
atomic publication under concurrency, corruption recovery, dumps on hits."""
import json
import logging
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from ptokit.jit import cache as C
from source_modules import import_source

TEMPLATE = '''\
import ptokit.language as pl

N = 64
SCALE = {scale}


@pl.jit.incore
def helper(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out[:] = {expr}


@pl.jit
def prog(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    helper(a, c)
    return c
'''


def write_module(folder, name, scale=2.0, expr="pl.muls(x, SCALE)"):
    return import_source(folder / f"{name}.py", name, TEMPLATE.format(scale=scale, expr=expr))


@pytest.fixture
def env(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PTOKIT_EXPLAIN_CACHE", "1")
    monkeypatch.delenv("PTOKIT_CACHE", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    caplog.set_level(logging.INFO, logger="ptokit.jit")
    C.reset_stats()
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("jitcache_")]:
        del sys.modules[name]


def arrays(dtype=np.float32):
    return np.ones((64, 64), dtype), np.zeros((64, 64), dtype)


def explained(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "ptokit.jit"]


def entries(tmp_path):
    root = tmp_path / "cache" / "jit"
    return [e for g in root.iterdir() for e in g.iterdir() if e.is_dir() and not e.name.startswith(".")]


def test_memory_hit_then_miss_reasons(env, caplog, capsys):
    mod = write_module(env, "jitcache_a")
    c1 = mod.prog.compile(*arrays())
    assert C.STATS["misses"] == 1 and C.STATS["codegen_runs"] == 1
    assert any("no earlier entry" in m for m in explained(caplog))
    assert "[ptokit.jit] cache miss for prog" in capsys.readouterr().err
    c2 = mod.prog.compile(*arrays())
    assert c2.output_dir == c1.output_dir and C.STATS["memory_hits"] == 1 and C.STATS["codegen_runs"] == 1

    caplog.clear()
    mod.prog.compile(*arrays(), runtime="host_build_graph")
    assert any("runtime kind changed: tensormap_and_ringbuffer -> host_build_graph" in m for m in explained(caplog))

    caplog.clear()
    mod.prog.compile(*arrays(), platform="a5sim")
    assert any("platform changed: a2a3sim -> a5sim" in m for m in explained(caplog))

    caplog.clear()
    mod.prog.compile(*arrays(np.float16))
    msgs = [m for m in explained(caplog) if "cache miss" in m]
    assert msgs and "a: tensor[64, 64] FP32 row_major -> a: tensor[64, 64] FP16 row_major" in msgs[0]

    caplog.clear()
    mod.SCALE = 3.0                      # a folded module constant changes in-process
    mod.prog.compile(*arrays())
    assert any("module constant jitcache_a.SCALE changed: float:2.0 -> float:3.0" in m for m in explained(caplog))
    assert C.STATS["codegen_runs"] == 5
    assert len(entries(env)) == 5


def test_changed_helper_source_is_a_miss(env, caplog):
    mod = write_module(env, "jitcache_b")
    first = mod.prog.compile(*arrays())
    time.sleep(0.01)
    mod2 = write_module(env, "jitcache_b", expr="pl.adds(pl.exp(x), SCALE)")
    caplog.clear()
    second = mod2.prog.compile(*arrays())
    msgs = [m for m in explained(caplog) if "cache miss" in m]
    assert msgs and "source of helper jitcache_b.helper changed" in msgs[0]
    assert "source of the @pl.jit function" not in msgs[0]
    assert first.output_dir != second.output_dir
    assert "texp" in (second.output_dir / "ptoas" / "helper.pto").read_text()


def _run_child(env_dir, modname, extra_env=None, start_at=None):
    code = textwrap.dedent(f"""
        import json, sys, time
        import numpy as np
        sys.path.insert(0, {str(env_dir)!r})
        start = {start_at!r}
        if start:
            while time.time() < start:
                time.sleep(0.001)
        import {modname} as mod
        from ptokit.jit import cache
        c = mod.prog.compile(np.ones((64, 64), np.float32), np.zeros((64, 64), np.float32))
        print(json.dumps({{"stats": cache.STATS, "dir": str(c.output_dir)}}))
    """)
    e = dict(os.environ)
    e.update(extra_env or {})
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e)


def _result(p):
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1]), err


def test_second_process_hits_disk_cache(env):
    mod = write_module(env, "jitcache_c")
    C.ptokit_identity.cache_clear()      # ptokit's code is in the key; others may be editing it
    c = mod.prog.compile(*arrays())
    res, err = _result(_run_child(env, "jitcache_c"))
    assert res["stats"]["disk_hits"] == 1, err
    assert res["stats"]["codegen_runs"] == 0 and res["stats"]["misses"] == 0
    assert res["dir"] == str(c.output_dir)
    assert "disk hit for prog" in err


def test_two_processes_compile_same_program_at_once(env):
    write_module(env, "jitcache_d")
    start = time.time() + 1.0
    procs = [_run_child(env, "jitcache_d", start_at=start) for _ in range(2)]
    results = [_result(p)[0] for p in procs]
    assert results[0]["dir"] == results[1]["dir"]
    assert sum(r["stats"]["codegen_runs"] for r in results) >= 1
    [entry] = entries(env)
    ok, why = C.validate_entry(entry, entry.name)
    assert ok, why
    leftovers = [p.name for p in entry.parent.iterdir() if p.name.startswith((".tmp", ".trash"))]
    assert leftovers == []


@pytest.mark.parametrize("victim", ["kernel", "manifest"])
def test_truncated_entry_is_rebuilt(env, caplog, victim):
    mod = write_module(env, f"jitcache_e_{victim}")
    c = mod.prog.compile(*arrays())
    target = (c.output_dir / "kernels" / "aiv" / "helper.cpp") if victim == "kernel" \
        else (c.output_dir / C.MANIFEST)
    good = target.read_bytes()
    target.write_bytes(good[: len(good) // 2])
    assert not C.validate_entry(c.output_dir, c.output_dir.name)[0]
    mod.prog.cache_clear()               # forget the in-process entry: look at the disk again
    caplog.clear()
    c2 = mod.prog.compile(*arrays())
    assert C.STATS["corrupt_rebuilt"] == 1
    assert any("is corrupt" in m for m in explained(caplog))
    assert c2.output_dir == c.output_dir
    assert C.validate_entry(c2.output_dir, c2.output_dir.name)[0]
    if victim == "kernel":
        assert target.read_bytes() == good


def test_dump_passes_on_a_hit_is_not_skipped(env):
    mod = write_module(env, "jitcache_f")
    c = mod.prog.compile(*arrays())
    assert not (c.output_dir / "passes_dump").exists()
    c2 = mod.prog.compile(*arrays(), dump_passes=True)
    assert c2.output_dir == c.output_dir
    dumps = sorted(p.name for p in (c2.output_dir / "passes_dump").iterdir())
    assert dumps[0] == "00_frontend.py" and any("after_PlanMemory" in d for d in dumps)
    assert C.validate_entry(c2.output_dir, c2.output_dir.name)[0]      # dumps do not break the entry


def test_cache_disabled(env, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE", "0")
    mod = write_module(env, "jitcache_g")
    c1 = mod.prog.compile(*arrays())
    c2 = mod.prog.compile(*arrays())
    assert c1.output_dir != c2.output_dir and C.STATS["codegen_runs"] == 2
    assert not (env / "cache" / "jit").exists()


def test_stat_and_clear(env):
    mod = write_module(env, "jitcache_h")
    mod.prog.compile(*arrays())
    mod.prog.compile(*arrays(np.float16))
    st = C.jit_cache_stat()
    assert st["path"] == str(env / "cache" / "jit")
    assert st["entries"] == 2 and st["functions"] == 1 and st["bytes"] > 0
    assert all(i["function"] == "jitcache_h.prog" for i in st["items"])
    assert C.jit_cache_clear() == 2
    assert C.jit_cache_stat()["entries"] == 0


def test_key_covers_ptokit_identity_and_compiler():
    ident = C.ptokit_identity()
    import ptokit
    assert ident.startswith(ptokit.__version__ + "+")
    a = {"ptokit": ident, "compiler": "g++ 12"}
    assert C.key_hash(a) != C.key_hash({**a, "ptokit": ident + "x"})
    assert C.diff_components(a, {**a, "compiler": "g++ 13"}) == ["C++ compiler identity changed: g++ 12 -> g++ 13"]
