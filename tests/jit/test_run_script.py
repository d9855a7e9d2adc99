"""A @pl.jit tree carries ``debug/run.py``: a script that runs it again with inputs made from its
parameter list (torch when installed, numpy otherwise), and prints each output."""
import ast
import os
import subprocess
import sys

import numpy as np
import pytest

import ptokit.language as pl
from ptokit.compiled import ParamInfo
from ptokit.ir.kinds import DType
from ptokit.jit.run_script import SCRIPT, render

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pl.jit
def add_for_script(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [16, 32]), pl.load(b, [0, 0], [16, 32])), [0, 0], c)
    return c


def _run(script, hide_torch: bool):
    code = ("import sys, runpy\n" + ("sys.modules['torch'] = None\n" if hide_torch else "") +
            f"runpy.run_path({str(script)!r}, run_name='__main__')\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          cwd=str(script.parent))


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_the_script_runs_the_tree_again(runtime, tmp_path):
    a = np.ones((16, 32), np.float32)
    c = np.zeros_like(a)
    compiled = add_for_script.compile(a, a, c, runtime=runtime, output_dir=tmp_path / "tree")
    script = compiled.output_dir / SCRIPT
    ast.parse(script.read_text())
    p = _run(script, hide_torch=True)
    assert p.returncode == 0, p.stderr
    rng = np.random.default_rng(0)
    want = rng.standard_normal((16, 32)).astype(np.float32) + rng.standard_normal((16, 32)).astype(np.float32)
    assert p.stdout.strip() == (f"c: shape (16, 32), min {want.min():.6g}, max {want.max():.6g}, "
                                f"sum {want.astype(np.float64).sum():.6g}")
    pytest.importorskip("torch")
    p = _run(script, hide_torch=False)
    assert p.returncode == 0 and p.stdout.startswith("c: shape (16, 32), min "), p.stderr
    assert "torch.randn((16, 32), dtype=torch.float32)" in script.read_text()


def test_a_dynamic_dimension_asks_for_a_size(tmp_path):
    params = [ParamInfo("x", "tensor", DType.BF16, ("M", 8), "IN"), ParamInfo("n", "scalar", DType.INT32),
              ParamInfo("idx", "tensor", DType.INT32, (4,), "INOUT"),
              ParamInfo("y", "tensor", DType.FP16, ("M", 8), "OUT")]
    text = render(params)
    ast.parse(text)
    assert "DIMS = {'M': None}" in text
    assert "torch.randint(0, 8, (4,)).to(torch.int32),   # idx (INOUT)" in text
    assert "np.zeros((_dim('M'), 8), dtype=_np_dtype('float16')),   # y (OUT)" in text
    script = tmp_path / "debug" / "run.py"
    script.parent.mkdir()
    script.write_text(text)
    p = _run(script, hide_torch=True)
    assert p.returncode == 1 and "give the dynamic dimension 'M' a size in DIMS" in p.stderr
