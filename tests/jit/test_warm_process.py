"""A warm @pl.jit call in a new process: no codegen, no compiler process, no compiler imports;
and the stat-keyed store (runtime.statcache) that lets it skip re-hashing unchanged files."""
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from ptokit.runtime import statcache

MODULE = '''\
import ptokit.language as pl


@pl.jit
def warm_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.add(a, b)
    return c
'''

CHILD = textwrap.dedent('''
    import json, subprocess, sys
    import numpy as np
    sys.path.insert(0, {folder!r})
    calls = []
    _run, _popen = subprocess.run, subprocess.Popen
    def run(*a, **k):
        calls.append(str(a[0] if a else k.get("args")))
        return _run(*a, **k)
    class Popen(_popen):
        def __init__(self, *a, **k):
            calls.append(str(a[0] if a else k.get("args")))
            super().__init__(*a, **k)
    subprocess.run, subprocess.Popen = run, Popen
    FRONT_END = ("ptokit.language.parser", "ptokit.ir.printer")
    # the op table, the build pool, the IR's node and value classes, the dialect's type classes,
    # the program-unit front end, logging, the run summary and the trace writer (a run asking for
    # neither): a warm process needs none of them
    UNNEEDED = ("ptokit.ir.ops", "ptokit.pto.dialect", "ptokit.language.ops", "concurrent.futures",
                "ptokit.ir.nodes", "ptokit.ir.types", "ptokit.pto.types", "ptokit.language.units", "logging",
                "ptokit.runtime.summary", "ptokit.runtime.trace")
    import warmprog
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64); c = np.zeros_like(a)
    before = set(sys.modules)
    warmprog.warm_add(a, a, c)
    new = set(sys.modules) - before
    from ptokit.jit import cache
    from ptokit.runtime import statcache
    print(json.dumps({{"ok": bool((c == a + a).all()), "jit": cache.STATS, "stat": statcache.STATS,
                      "subprocesses": calls,
                      "compiler_modules": sorted(m for m in new if m in (
                          "ptokit.toolchain", "ptokit.jit.frontend", "ptokit.passes.classify",
                          "ptokit.passes.manager", "ptokit.backend.generate", "ptokit.codegen.pto")),
                      "front_end_modules": sorted(m for m in sys.modules if m in FRONT_END),
                      "unneeded_modules": sorted(m for m in sys.modules if m in UNNEEDED)}}))
''')


def _child(folder, env):
    p = subprocess.run([sys.executable, "-c", CHILD.format(folder=str(folder))], capture_output=True, text=True,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_warm_call_in_a_new_process_does_not_compile(tmp_path):
    (tmp_path / "warmprog.py").write_text(MODULE)
    env = dict(os.environ, PTOKIT_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PTOKIT_CACHE", None)
    env.pop("PTOKIT_STAT_CACHE", None)
    first = _child(tmp_path, env)                    # cold: codegen + g++
    assert first["ok"] and first["jit"]["codegen_runs"] == 1
    assert any("g++" in c or "clang" in c or "++" in c for c in first["subprocesses"]), first
    # the build keys of the tree's sources, written less than statcache.SETTLE_S before the cold
    # process scanned them, are remembered by the first process that scans them after that
    time.sleep(statcache.SETTLE_S)
    settle = _child(tmp_path, env)
    assert settle["ok"] and settle["jit"]["codegen_runs"] == 0 and settle["subprocesses"] == []
    warm = _child(tmp_path, env)
    assert warm["ok"]
    assert warm["jit"]["disk_hits"] == 1 and warm["jit"]["codegen_runs"] == 0 and warm["jit"]["misses"] == 0
    assert warm["subprocesses"] == [], "a warm call ran a process (compiler or its identity)"
    assert warm["compiler_modules"] == [], "a warm call imported the compiler"
    assert "ptokit.toolchain" in first["compiler_modules"]   # the check can fail
    # nor the front end: neither the import of ptokit.language nor the warm call parses or prints
    assert warm["front_end_modules"] == [], "a warm process imported the parser or printer"
    assert "ptokit.language.parser" in first["front_end_modules"]   # the check can fail
    # nor the op table (ptokit.language loads it on first use of an op name) or the build pool
    assert warm["unneeded_modules"] == [], "a warm process imported modules only compiling needs"
    assert set(first["unneeded_modules"]) >= {"ptokit.ir.ops", "concurrent.futures", "ptokit.ir.nodes",
                                              "ptokit.ir.types", "ptokit.pto.types", "ptokit.language.units"}
    assert warm["stat"]["computes"] == 0 and warm["stat"]["reads"] >= 3, warm["stat"]
    # with the store off, the same call still hits the caches (it only hashes again)
    off = _child(tmp_path, dict(env, PTOKIT_STAT_CACHE="0"))
    assert off["ok"] and off["jit"]["codegen_runs"] == 0 and off["stat"]["reads"] == 0


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PTOKIT_STAT_CACHE", raising=False)
    files = []
    for i in range(3):
        f = tmp_path / f"f{i}.txt"
        f.write_text(f"content {i}")
        files.append(f)
    return files


def _counting(value):
    calls = []

    def compute():
        calls.append(1)
        return value
    return compute, calls


def test_statcache_reuses_until_a_file_changes(store):
    compute, calls = _counting("v1")
    assert statcache.remembered("t", store, compute) == "v1"
    assert statcache.remembered("t", store, compute) == "v1"
    assert len(calls) == 1                         # second time read from the record
    time.sleep(0.002)
    store[1].write_text("content 1")               # same size and text: still a new ctime/mtime
    compute2, calls2 = _counting("v2")
    assert statcache.remembered("t", store, compute2) == "v2" and len(calls2) == 1
    os.utime(store[1], ns=(0, 0))                  # mtime set back: the ctime still moved
    compute3, calls3 = _counting("v3")
    assert statcache.remembered("t", store, compute3) == "v3" and len(calls3) == 1


def test_statcache_sees_added_removed_and_kind(store, tmp_path):
    compute, calls = _counting("a")
    statcache.remembered("t", store, compute)
    statcache.remembered("t", store[:2], compute)               # a file fewer
    statcache.remembered("t", store + [tmp_path / "new"], compute)   # a missing one more
    statcache.remembered("other", store, compute)               # another kind
    assert len(calls) == 4


def test_statcache_ignores_a_foreign_or_broken_record(store):
    compute, calls = _counting("good")
    statcache.remembered("t", store, compute)
    rec = next((store[0].parent / "cache" / "stat").glob("t-*.json"))
    m = json.loads(rec.read_text())
    m["value"] = "forged"
    rec.write_text(json.dumps(m))
    os.chmod(rec, 0o666)                            # writable by others: not trusted
    assert statcache.remembered("t", store, compute) == "good" and len(calls) == 2
    rec.write_text("{not json")
    os.chmod(rec, 0o600)
    assert statcache.remembered("t", store, compute) == "good" and len(calls) == 3
    assert statcache.remembered("t", store, compute) == "good" and len(calls) == 3   # rewritten


def test_statcache_off_computes_every_time(store, monkeypatch):
    monkeypatch.setenv("PTOKIT_STAT_CACHE", "0")
    compute, calls = _counting("x")
    for _ in range(3):
        statcache.remembered("t", store, compute)
    assert len(calls) == 3
    assert not (store[0].parent / "cache" / "stat").exists()


def test_statcache_remembered_reads(store, monkeypatch, tmp_path):
    # a value whose inputs are known once computed: the record keeps the paths read, missing ones too
    monkeypatch.setattr(statcache, "SETTLE_S", -3600.0)    # every file counts as settled
    missing = tmp_path / "later.txt"
    calls = []

    def compute():
        calls.append(1)
        return f"v{len(calls)}", [str(store[0]), str(missing)]
    assert statcache.remembered_reads("r", store[0], compute) == "v1"
    assert statcache.remembered_reads("r", store[0], compute) == "v1" and len(calls) == 1
    missing.write_text("now here")                        # a path looked for appears
    assert statcache.remembered_reads("r", store[0], compute) == "v2"
    store[0].write_text("changed")
    assert statcache.remembered_reads("r", store[0], compute) == "v3"
    assert statcache.remembered_reads("r", store[0], compute) == "v3" and len(calls) == 3


def test_statcache_remembered_reads_waits_for_files_to_settle(store):
    calls = []

    def compute():
        calls.append(1)
        return "x", [str(p) for p in store]
    statcache.remembered_reads("r", store[0], compute)
    statcache.remembered_reads("r", store[0], compute)     # written just now: not stored
    assert len(calls) == 2
