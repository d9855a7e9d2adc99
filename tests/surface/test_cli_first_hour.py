"""The command line a newcomer meets first, through the real `ptokit` entry point
(`python -m ptokit.cli`): compile a program a factory builds, `ptokit build` builds the simulator
library too (saying so), `ptokit run` says which inputs it generated, `ptokit cache stat` counts
every byte of the cache, and the examples re-use one artifact folder per program."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROGRAM = """
    import ptokit.language as pl


    def make_scale(n, dtype=pl.FP32):
        @pl.program
        class Scale:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[n, 64], dtype], s: pl.Scalar[dtype],
                  y: pl.Out[pl.Tensor[[n, 64], dtype]]) -> pl.Tensor[[n, 64], dtype]:
                y = pl.store(pl.mul(pl.load(x, [0, 0], [n, 64]), s), [0, 0], y)
                return y

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[n, 64], dtype], s: pl.Scalar[dtype],
                     y: pl.Out[pl.Tensor[[n, 64], dtype]]) -> pl.Tensor[[n, 64], dtype]:
                y = self.k(x, s, y)
                return y
        return Scale


    def default_scale():
        return make_scale(32)


    not_a_program = 3
"""


def _cli(*args, cache, cwd=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(REPO), PTOKIT_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "ptokit.cli", *map(str, args)], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def prog_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("cli1") / "scale.py"
    f.write_text(textwrap.dedent(PROGRAM))
    return f


def test_compile_reaches_factories(prog_file, tmp_path):
    cache = os.environ["PTOKIT_CACHE_DIR"]
    r = _cli("compile", f"{prog_file}:make_scale(16, pl.FP16)", "-o", tmp_path / "a", cache=cache)
    assert r.returncode == 0, r.stderr
    assert "[16, 64]" in (tmp_path / "a" / "kernel_config.py").read_text()
    assert "FP16" in (tmp_path / "a" / "kernel_config.py").read_text()
    r = _cli("compile", f"{prog_file}:default_scale", "-o", tmp_path / "b", cache=cache)   # called with no args
    assert r.returncode == 0, r.stderr
    assert "[32, 64]" in (tmp_path / "b" / "kernel_config.py").read_text()


@pytest.mark.parametrize("spec, message", [
    ("make_scale(os.getcwd())", "argument 'os.getcwd()' is neither a literal nor a pl.NAME"),
    ("make_scale(16, pl.NOPE)", "pl.NOPE is not a ptokit.language name"),
    ("not_a_program", "not_a_program is not a @pl.program"),
    ("missing", "has no @pl.program or factory named 'missing'"),
    ("make_scale", "calling make_scale raised TypeError"),
    ("1 + 2", "after the colon give a program's name"),
])
def test_compile_factory_errors(prog_file, tmp_path, spec, message):
    r = _cli("compile", f"{prog_file}:{spec}", "-o", tmp_path / "t", cache=os.environ["PTOKIT_CACHE_DIR"])
    assert r.returncode == 1 and r.stderr.startswith("ptokit compile: error:"), r.stderr
    assert message in r.stderr, r.stderr


@pytest.mark.slow
def test_build_builds_the_simulator_and_run_names_its_inputs(prog_file, tmp_path):
    """A fresh cache: `ptokit build` says it builds libptosim and lists it; `ptokit run` then
    builds nothing silently and says which inputs it generated (seed, dtypes, shapes)."""
    cache = tmp_path / "cache"
    tree = tmp_path / "tree"
    assert _cli("compile", f"{prog_file}:make_scale(32)", "-o", tree, cache=cache).returncode == 0
    r = _cli("build", tree, cache=cache)
    assert r.returncode == 0, r.stderr
    assert "building the simulator library (libptosim" in r.stderr
    lib = re.search(r"^simulator\s+(\S+)$", r.stdout, re.M)
    assert lib and Path(lib.group(1)).is_file(), r.stdout
    r = _cli("run", tree, "--seed", "7", "--no-summary", cache=cache)
    assert r.returncode == 0, r.stderr
    assert "building the simulator library" not in r.stderr
    assert "inputs (generated ones from --seed 7):" in r.stdout
    assert re.search(r"^  x: float32\[32, 64\] standard normal$", r.stdout, re.M), r.stdout
    assert re.search(r"^  s = [\d.]+ \(generated\)$", r.stdout, re.M), r.stdout
    assert re.search(r"^  y: float32\[32, 64\] zeros \(output\)$", r.stdout, re.M), r.stdout
    # the cache's real size: the objects, their records and the precompiled headers
    r = _cli("cache", "stat", cache=cache)
    assert r.returncode == 0, r.stderr
    total = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file() and not p.is_symlink())
    m = re.search(rf"^{re.escape(str(cache))}: ([\d.]+) MB in all$", r.stdout, re.M)
    assert m and abs(float(m.group(1)) - total / 1e6) < 0.2, (r.stdout, total)
    m = re.search(r"build: \d+ built object\(s\), ([\d.]+) MB \(of which precompiled headers ([\d.]+) MB\)", r.stdout)
    assert m and float(m.group(1)) >= float(m.group(2)) > 0, r.stdout


def test_run_names_the_files_it_was_given(prog_file, tmp_path):
    import numpy as np
    cache = os.environ["PTOKIT_CACHE_DIR"]
    tree = tmp_path / "tree"
    assert _cli("compile", f"{prog_file}:make_scale(32)", "-o", tree, cache=cache).returncode == 0
    np.save(tmp_path / "x.npy", np.ones((32, 64), np.float32))
    r = _cli("run", tree, "--inputs", tmp_path / "x.npy", "--scalar", "s=2", "--no-summary", "-q", cache=cache)
    assert r.returncode == 0, r.stderr
    assert "inputs (generated ones from --seed 0):" in r.stdout          # y, the output, is made
    assert f"  x: float32[32, 64] from {tmp_path / 'x.npy'}" in r.stdout
    assert "  s = 2.0 (--scalar)" in r.stdout
    assert "  y: float32[32, 64] sum=4096" in r.stdout                  # 32 * 64 * 2


@pytest.mark.slow
def test_examples_reuse_one_folder_per_program(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for _ in range(2):
        r = subprocess.run([sys.executable, str(REPO / "examples" / "add_scale.py")], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "build_output").iterdir()) == ["AddScale"]
    assert f"artifact tree: {tmp_path / 'build_output' / 'AddScale'}" in r.stdout
