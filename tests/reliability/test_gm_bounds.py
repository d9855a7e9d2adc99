"""Every TLOAD/TSTORE stays inside the tensor argument it names (issue 18, item 4).

The old check only asked whether an address was inside *some* live buffer, so a dynamic
offset that walked out of one tensor window into its neighbour went unnoticed (and the two
runtime kinds could then disagree).  Now the access is checked against the bounds of the
argument its view derives from, under both runtime kinds.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import RuntimeFailure
from ptokit.runtime.config import RunConfig
from ptokit.runtime.launcher import run_tree

from .conftest import rand

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
ROWS, COLS = 32, 64


@pl.program
class ShiftedRead:
    """o = a[k:k+32] + b: a and b are the two row halves of x (neighbours in memory)."""

    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, a: pl.Tensor[[ROWS, COLS], pl.FP32], b: pl.Tensor[[ROWS, COLS], pl.FP32],
             k: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
        t = pl.add(pl.load(a, [k, 0], [ROWS, COLS]), pl.load(b, [0, 0], [ROWS, COLS]))
        o = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2 * ROWS, COLS], pl.FP32], k: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
        y = self.pair(x[0:ROWS, :], x[ROWS:2 * ROWS, :], k, y)
        return y


@pl.program
class ShiftedWrite:
    """y[0:32] gets x stored at row k of its window; y[32:64] is written by a second task."""

    @pl.function(type=pl.FunctionType.InCore)
    def put(self, a: pl.Tensor[[ROWS, COLS], pl.FP32], k: pl.Scalar[pl.INDEX],
            o: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
        o = pl.store(pl.load(a, [0, 0], [ROWS, COLS]), [k, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, a: pl.Tensor[[ROWS, COLS], pl.FP32], o: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
        o = pl.store(pl.muls(pl.load(a, [0, 0], [ROWS, COLS]), 2.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], k: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[2 * ROWS, COLS], pl.FP32]]):
        self.put(x, k, y[0:ROWS, :])
        self.twice(x, y[ROWS:2 * ROWS, :])
        return y


_TREES = {}


def tree(program, runtime, tmp_path_factory):
    key = (program, runtime)
    if key not in _TREES:
        out = tmp_path_factory.mktemp(f"gm_{program.name}_{runtime}")
        _TREES[key] = ptokit.compile(program, output_dir=out, runtime=runtime)
    return _TREES[key]


def _fails(call, pattern):
    with pytest.raises(RuntimeFailure) as ei:
        call()
    msg = ei.value.message
    assert ei.value.code == 101, msg
    assert re.search(pattern, msg), msg
    return msg


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_row_windows_in_bounds_stay_fine(runtime, tmp_path_factory):
    x = rand(2 * ROWS, COLS, seed=1)
    y = np.zeros((ROWS, COLS), np.float32)
    tree(ShiftedRead, runtime, tmp_path_factory)(x, 0, y)
    np.testing.assert_allclose(y, x[:ROWS] + x[ROWS:], rtol=1e-6)
    xw = rand(ROWS, COLS, seed=2)
    yw = np.full((2 * ROWS, COLS), np.nan, np.float32)
    tree(ShiftedWrite, runtime, tmp_path_factory)(xw, 0, yw)
    np.testing.assert_allclose(yw, np.concatenate([xw, 2 * xw]), rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_read_into_the_neighbouring_tensor_is_an_error(runtime, tmp_path_factory):
    c = tree(ShiftedRead, runtime, tmp_path_factory)
    x = rand(2 * ROWS, COLS, seed=3)
    n = ROWS * COLS
    _fails(lambda: c(x, ROWS, np.zeros((ROWS, COLS), np.float32)),
           rf"kernel 'pair' .*TLOAD: reads elements \[{n}, {2 * n - 1}\] of tensor argument 0 "
           rf"\(input float32\[{ROWS}, {COLS}\], elements \[0, {n - 1}\]\): out of its bounds; "
           r"those bytes belong to tensor argument 1")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_offset_just_past_the_end_is_an_error(runtime, tmp_path_factory):
    c = tree(ShiftedRead, runtime, tmp_path_factory)
    x = rand(2 * ROWS, COLS, seed=4)
    _fails(lambda: c(x, 1, np.zeros((ROWS, COLS), np.float32)),
           rf"TLOAD: reads elements \[{COLS}, {(ROWS + 1) * COLS - 1}\] of tensor argument 0")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_write_into_the_neighbouring_window_is_an_error(runtime, tmp_path_factory):
    c = tree(ShiftedWrite, runtime, tmp_path_factory)
    x = rand(ROWS, COLS, seed=5)
    y = np.full((2 * ROWS, COLS), 7.0, np.float32)
    n = ROWS * COLS
    _fails(lambda: c(x, ROWS, y),
           rf"kernel 'put' .*TSTORE: writes elements \[{n}, {2 * n - 1}\] of tensor argument 1 "
           rf"\(output float32\[{ROWS}, {COLS}\], elements \[0, {n - 1}\]\)")
    # y is used in place: the refused store wrote nothing (the first half keeps its bytes, and the
    # second half holds either its old bytes or the other task's result, never x), docs/decisions.md
    assert (y[:ROWS] == 7.0).all()
    assert (y[ROWS:] == 7.0).all() or np.array_equal(y[ROWS:], 2 * x)
    y[:] = 7.0
    with pytest.raises(RuntimeFailure):
        c(x, ROWS, y, config=RunConfig(in_place=False))
    assert (y == 7.0).all()              # copied, a failed run copies nothing back


def _strip_origins(kernel_src: str) -> str:
    """The kernel as C++ from another assembler would be: no record of each view's parameter."""
    return re.sub(r"#if defined\(PTO_CPU_GM_ORIGIN\)\n.*\n#endif\n", "", kernel_src)


def test_without_provenance_a_span_across_two_arguments_is_still_an_error(tmp_path_factory, tmp_path):
    c = tree(ShiftedRead, RUNTIMES[0], tmp_path_factory)
    plain = tmp_path / "plain"
    shutil.copytree(c.output_dir, plain)
    src = next((plain / "kernels" / "aiv").glob("*.cpp"))
    text = src.read_text()
    assert "origin_ =" in text
    src.write_text(_strip_origins(text))
    x = rand(2 * ROWS, COLS, seed=6)
    y = np.zeros((ROWS, COLS), np.float32)
    run_tree(plain, [x, 0, y], RunConfig(), quiet=True)
    np.testing.assert_allclose(y, x[:ROWS] + x[ROWS:], rtol=1e-6)
    with pytest.raises(RuntimeFailure) as ei:     # rows 1..32 of a: the last row is b's first
        run_tree(plain, [x, 1, y], RunConfig(), quiet=True)
    assert ei.value.code == 101 and "TLOAD: reads elements" in ei.value.message
