"""The compile cache of ``ptokit.compile`` (jit/program_cache.py): a program whose source, scope
values and options did not change is taken from the cache, in a new process without importing
the compiler; any change of them is a miss; a damaged entry is never used."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import ptokit
from ptokit.jit import cache as C
from ptokit.jit import program_cache as PC
from ptokit.passes.context import resolve_context

PROGRAM = '''\
import ptokit.language as pl

SCALE = {scale}


@pl.function(type=pl.FunctionType.InCore)
def helper(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
    out = pl.store(pl.muls(pl.load(a, [0, 0], [64, 64]), {helper_factor}), [0, 0], out)
    return out


def make(n):
    @pl.program
    class Prog:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[n, 64], pl.FP32], b: pl.Tensor[[n, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
            t = pl.{op}(pl.load(a, [0, 0], [n, 64]), pl.load(b, [0, 0], [n, 64]))
            out = pl.store(pl.muls(t, SCALE), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[n, 64], pl.FP32], b: pl.Tensor[[n, 64], pl.FP32],
                 y: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
            t = pl.create_tensor([n, 64], dtype=pl.FP32)
            t = self.k(a, b, t)
            y = helper(t, y)
            return y
    return Prog
'''


def _write(folder, op="add", scale=2.0, helper_factor=3.0, name="progmod"):
    (folder / f"{name}.py").write_text(PROGRAM.format(op=op, scale=scale, helper_factor=helper_factor))


CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    sys.path.insert(0, {folder!r})
    import ptokit
    import progmod
    before = set(sys.modules)
    compiled = ptokit.compile(progmod.make(64), output_dir={out!r}, platform={platform!r})
    loaded = set(sys.modules) - before
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 100; b = np.full_like(a, 0.5)
    y = np.zeros_like(a)
    compiled(a, b, y)
    from ptokit.jit import cache
    print(json.dumps({{"y": y.ravel()[:8].tolist(), "a": a.ravel()[:8].tolist(), "stats": cache.STATS,
                      "compiler": sorted(m for m in loaded if m in (
                          "ptokit.toolchain", "ptokit.distributed_build", "ptokit.language.parser",
                          "ptokit.passes.manager", "ptokit.backend.generate", "ptokit.codegen.pto",
                          "ptokit.backend.assembler", "ptokit.ir.ops"))}}))
''')


def _child(folder, out, env, platform="a2a3sim"):
    p = subprocess.run([sys.executable, "-c", CHILD.format(folder=str(folder), out=str(out), platform=platform)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture
def env(tmp_path):
    # the session's cache (libptosim built once): each test's program is a file of its own, so
    # its key is its own
    e = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
             PYTHONPATH=os.pathsep.join([os.getcwd()] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                         if p]))
    for k in ("PTOKIT_CACHE", "PTOAS_ROOT", "PTOKIT_EXPLAIN_CACHE"):
        e.pop(k, None)
    return e


def _expect(r, op="add", scale=2.0, factor=3.0):
    import numpy as np
    a = np.array(r["a"], dtype=np.float32)
    t = a + np.float32(0.5) if op == "add" else a - np.float32(0.5)
    return np.allclose(np.array(r["y"]), t * np.float32(scale) * np.float32(factor), rtol=1e-6)


def test_a_new_process_takes_an_unchanged_program_from_the_cache(tmp_path, env):
    src = tmp_path / "src"
    src.mkdir()
    _write(src)
    out = tmp_path / "out"
    cold = _child(src, out, env)
    assert _expect(cold) and cold["stats"]["misses"] == 1 and cold["stats"]["codegen_runs"] == 1
    assert "ptokit.toolchain" in cold["compiler"]            # the check below can fail
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    stamps = {p: p.stat().st_mtime_ns for p in files}
    warm = _child(src, out, env)
    assert _expect(warm)
    assert warm["stats"]["disk_hits"] == 1 and warm["stats"]["codegen_runs"] == 0 and warm["stats"]["misses"] == 0
    assert warm["compiler"] == [], "a cache hit imported the compiler"
    # the tree in output_dir is the same, and files already right are not written again
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files
    assert {p: p.stat().st_mtime_ns for p in files} == stamps
    # another output_dir gets the same tree, from the cache
    other = _child(src, tmp_path / "elsewhere", env)
    assert other["stats"]["disk_hits"] == 1 and _expect(other)
    assert sorted(p.relative_to(tmp_path / "elsewhere") for p in (tmp_path / "elsewhere").rglob("*") if p.is_file()) \
        == sorted(p.relative_to(out) for p in files)


@pytest.mark.parametrize("change", ["op", "scale", "helper_factor"])
def test_an_edited_program_is_a_miss_and_runs_the_new_code(tmp_path, env, change):
    src = tmp_path / "src"
    src.mkdir()
    _write(src)
    out = tmp_path / "out"
    assert _expect(_child(src, out, env))
    kw = {"op": "sub"} if change == "op" else {"scale": 5.0} if change == "scale" else {"helper_factor": 7.0}
    _write(src, **kw)
    r = _child(src, out, env)
    assert r["stats"]["misses"] == 1 and r["stats"]["codegen_runs"] == 1, r["stats"]
    assert _expect(r, op=kw.get("op", "add"), scale=kw.get("scale", 2.0), factor=kw.get("helper_factor", 3.0))
    assert not _expect(r)        # the old program's numbers would not pass: the check can fail


def test_another_platform_is_a_miss(tmp_path, env):
    src = tmp_path / "src"
    src.mkdir()
    _write(src)
    _child(src, tmp_path / "o1", env)
    r = _child(src, tmp_path / "o2", env, platform="a5sim")
    assert r["stats"]["misses"] == 1 and _expect(r)
    assert "a5" in (tmp_path / "o2" / "kernel_config.py").read_text()


# ---------------------------------------------------------------- the key, in process

def _module(tmp_path, name, **kw):
    import importlib
    _write(tmp_path, name=name, **kw)
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def _key(prog, platform="a2a3sim", runtime=None, with_loc=True, compat=None):
    return C.key_hash(PC.program_key(prog, resolve_context(platform, runtime, compat), with_loc))


def test_every_input_of_the_tree_is_in_the_key(tmp_path, monkeypatch):
    m = _module(tmp_path, "pc_key_a")
    base = _key(m.make(64))
    assert _key(m.make(64)) == base                                     # deterministic
    assert _key(m.make(32)) != base                                     # a closure value
    assert _key(m.make(64), platform="a5sim") != base
    assert _key(m.make(64), runtime="host_build_graph") != base
    assert _key(m.make(64), with_loc=False) != base
    assert _key(m.make(64), compat="0.27") != base
    p = m.make(64)
    p.strict_ssa = True
    assert _key(p) != base
    monkeypatch.setattr(m, "SCALE", 2.5)                                # a module global
    assert _key(m.make(64)) != base
    monkeypatch.setattr(m, "SCALE", 2.0)
    assert _key(m.make(64)) == base
    # the same text in another file (locations in the tree differ), and edited sources
    assert _key(_module(tmp_path, "pc_key_b").make(64)) != base
    ctx = resolve_context("a2a3sim", None)
    same = PC.program_key(_module(tmp_path, "pc_key_f").make(64), ctx, True)
    assert PC.program_key(_module(tmp_path, "pc_key_g").make(64), ctx, True)["program_source"] == \
        same["program_source"]                                          # the text alone: the check can fail
    for name, kw in (("pc_key_e", {"op": "sub"}), ("pc_key_c", {"helper_factor": 4.0})):
        edited = PC.program_key(_module(tmp_path, name, **kw).make(64), ctx, True)
        assert edited["program_source"] != same["program_source"], kw    # the class, the helper it calls


def test_a_value_the_key_cannot_hold_is_not_keyed(tmp_path, monkeypatch):
    m = _module(tmp_path, "pc_key_h")
    monkeypatch.setattr(m, "SCALE", object())
    with pytest.raises(PC.Uncacheable, match="SCALE"):
        _key(m.make(64))


STATIC_PRINT = '''\
import ptokit.language as pl


@pl.program
class Printing:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.static_print("compiling k")
        out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        y = self.k(a, y)
        return y
'''


def test_a_program_that_prints_while_compiling_prints_every_time(tmp_path, monkeypatch, capsys):
    import importlib
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "pc_print.py").write_text(STATIC_PRINT)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("pc_print")
    for i in range(2):
        ptokit.compile(m.Printing, output_dir=tmp_path / "out")
        assert "compiling k" in capsys.readouterr().err, i
    assert not (tmp_path / "cache" / "jit").exists() or not any((tmp_path / "cache" / "jit").iterdir())


def test_a_damaged_entry_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    m = _module(tmp_path, "pc_damaged")
    C.reset_stats()
    first = ptokit.compile(m.make(64), output_dir=tmp_path / "o1")
    assert C.STATS["misses"] == 1
    entries = [e for e in (tmp_path / "cache" / "jit").rglob("kernel_config.py")]
    assert len(entries) == 1
    kernel = next(p for p in entries[0].parent.rglob("*.cpp") if "kernels" in p.parts)
    text = kernel.read_text()
    assert "TADD" in text
    kernel.write_text(text.replace("TADD", "TSUB"))      # tampered with
    C.reset_stats()
    again = ptokit.compile(m.make(64), output_dir=tmp_path / "o2")
    assert C.STATS["corrupt_rebuilt"] == 1 and C.STATS["disk_hits"] == 0
    rel = kernel.relative_to(entries[0].parent)
    assert (again.output_dir / rel).read_text() == (first.output_dir / rel).read_text()
    assert "TSUB" not in (again.output_dir / rel).read_text()


def test_cache_off_compiles_every_time(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PTOKIT_CACHE", "0")
    m = _module(tmp_path, "pc_off")
    C.reset_stats()
    ptokit.compile(m.make(64), output_dir=tmp_path / "o")
    assert C.STATS == {k: 0 for k in C.STATS}
    assert not (tmp_path / "cache" / "jit").exists()


def test_a_failing_compile_fails_in_output_dir_as_without_the_cache(tmp_path, monkeypatch):
    # a miss compiles into a new entry; when that fails, the error and the units written before it
    # are the user's output_dir's, as without the cache, and nothing is entered
    from pathlib import Path
    from ptokit.backend import generate
    from ptokit.backend.generate import TreeError
    from ptokit.errors import AssemblerError
    from programs import Graphs
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    real = generate.assemble

    def flaky(pto_path, cpp_path, arch, **kw):
        if Path(pto_path).stem == "twice":
            raise AssemblerError(f"simulated failure in {pto_path}")
        return real(pto_path, cpp_path, arch, **kw)

    monkeypatch.setattr(generate, "assemble", flaky)
    with pytest.raises(TreeError) as info:
        ptokit.compile(Graphs, output_dir=tmp_path / "out")
    assert str(tmp_path / "out") in str(info.value) and "cache" not in str(info.value)
    assert (tmp_path / "out" / "kernels" / "aiv" / "plus1.cpp").exists()
    assert not [e for e in (tmp_path / "cache" / "jit").rglob("kernel_config.py")]


ANNOTATION_ONLY = '''\
import ptokit.language as pl


def make(w):
    @pl.program
    class Sized:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[w, 64], pl.FP32], out: pl.Out[pl.Tensor[[w, 64], pl.FP32]]) -> pl.Tensor[[w, 64], pl.FP32]:
            out = pl.store(pl.load(a, [0, 0], [8, 64]), [0, 0], out)
            return out
    return Sized
'''


def test_a_value_only_an_annotation_reads_is_in_the_key(tmp_path, monkeypatch):
    # w is in no scope the source scan sees (Python evaluated the annotations when it defined k):
    # the evaluated annotations are keyed
    import importlib
    (tmp_path / "pc_annot.py").write_text(ANNOTATION_ONLY)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("pc_annot")
    assert _key(m.make(8)) != _key(m.make(16))
    assert _key(m.make(8)) == _key(m.make(8))
