"""Compile-time checks: constant windows inside static tensors, literals that fit their type,
inf/nan constants, no input written (an output left unwritten keeps its contents), and readable
messages."""
import subprocess
import sys

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import static_check_programs as S


@pytest.mark.parametrize("program,message,needle", [
    (S.LoadPastEnd, "tile.load reads indices 8..23 of axis 0 (window [16, 64] at offsets [8, 0]), but the tensor "
                    "has 16 there", "pl.load(x, [8, 0]"),
    (S.StorePastEnd, "tile.store writes indices 32..95 of axis 1", "pl.store(t, [0, 32]"),
    (S.NegativeOffset, "tile.load offset -1 on axis 1 is negative", "pl.load(x, [0, -1]"),
    (S.HugeScalar, "the integer 1180591620717411303424 does not fit i32", "2**70"),
    (S.HugeBound, "the integer 1180591620717411303424 does not fit an index (64-bit)", "pl.range(2**70)"),
    (S.HugeInOrchestration, "the integer 18446744073709551616 does not fit a 64-bit orchestration scalar",
     "self.k(x, 2**64"),
    (S.StoreIntoInput, "kernel k writes 'x', an input parameter: declare it pl.Out[...]", "pl.store(pl.adds(t"),
    (S.KernelCallsKernel, "k is a kernel of its own, and a kernel cannot call another kernel", "self.k(x, y)"),
])
def test_static_checks(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    text = str(info.value)
    assert message in text, text
    assert info.value.loc.file == S.__file__ and needle in text.splitlines()[1], text


def test_inf_constants_reach_the_kernel(tmp_path):
    x = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    ptokit.compile(S.NonFinite, output_dir=tmp_path / "out")(x, y, z)
    assert np.all(np.isposinf(y)) and np.array_equal(np.sign(z), -np.sign(x)) and np.all(np.isinf(z))
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    assert "arith.constant 0x7F800000 : f32" in pto and "arith.constant 0xFF800000 : f32" in pto


def test_a_class_from_exec_is_explained(tmp_path):
    code = ("import ptokit, ptokit.language as pl\n"
            "src = '''\nimport ptokit.language as pl\n@pl.program\nclass E:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def k(self, x: pl.Tensor[[16, 64], pl.FP32]):\n        pass\n'''\n"
            "g = {'__name__': 'made_by_exec'}\nexec(src, g)\n"
            f"ptokit.compile(g['E'], output_dir={str(tmp_path / 'o')!r})\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "which has no source file (code run by exec() or typed into an interactive session)" in r.stderr
    assert "built-in class" not in r.stderr


def test_output_left_unwritten_keeps_its_contents(tmp_path):
    # pypto accepts a kernel that never writes a pl.Out (a pass-through binding shapes)
    x = np.random.default_rng(2).standard_normal((16, 64)).astype(np.float32)
    y, z = np.zeros_like(x), np.full_like(x, 7.0)
    ptokit.compile(S.OutNeverWritten, output_dir=tmp_path / "out")(x, y, z)
    assert np.array_equal(y, x) and np.all(z == 7.0)
