"""Tensor windows in orchestration: every rejected window is a located CompileError saying why."""
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

SRC = __file__
R, N = 32, 64
M = pl.dynamic("M")


@pl.program
class ColumnWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, R], pl.FP32], o: pl.Out[pl.Tensor[[256, R], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, R]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], y: pl.Out[pl.Tensor[[256, R], pl.FP32]]):
        y = self.k(x[:, 0:R], y)
        return y


@pl.program
class StepWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x[0:64:2, :], y)
        return y


@pl.program
class IndexNotSlice:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x[1, :, :], y)
        return y


@pl.program
class DynamicSize:
    """Kernel code: a window is loaded into a tile, whose shape is static (orchestration windows
    may be sized at run time: tests/parity/test_run_time_dims.py)."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, N], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        for i in pl.range(2):
            o = pl.store(pl.adds(x[i * R:i * n, :], 1.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class ToEndOfDynamic:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x[R:, :], y)
        return y


@pl.program
class OutOfBounds:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, N], pl.FP32], o: pl.Out[pl.Tensor[[64, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], y: pl.Out[pl.Tensor[[64, N], pl.FP32]]):
        y = self.k(x[224:288, :], y)
        return y


@pl.program
class NegativeStart:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x[-32:0, :], y)
        return y


@pl.program
class WrongWindowShape:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x[0:64, :], y)
        return y


@pl.program
class CreatedFirstWrittenThroughWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        t = pl.create_tensor([64, N], dtype=pl.FP32)
        self.k(x, t[0:R, :])
        y = self.k(t[0:R, :], y)
        return y



@pl.program
class WindowReadsAReassignedName:
    """A named window is formed where it is used, from its bounds' values then."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        off = n * R
        blk = x[off:off + R, :]
        off = off + R
        y = self.k(blk, y)
        return y


def _line_of(text):
    for i, line in enumerate(open(SRC), start=1):
        if text in line:
            return i
    raise AssertionError(text)


def error_of(program, tmp_path) -> CompileError:
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    return info.value


def assert_located(err, needle, col_at=None):
    line = _line_of(needle)
    assert err.loc is not None and err.loc.file == SRC and err.loc.line == line, (err.loc, line, str(err))
    text = str(err)
    assert text.startswith(f"{SRC}:{line}:{err.loc.col}: error: ")
    shown, caret = text.splitlines()[1:3]
    assert needle in shown and caret.strip() == "^"
    if col_at is not None:   # the caret points at this text of the line
        assert err.loc.col - 1 == open(SRC).read().splitlines()[line - 1].index(col_at), (err.loc, col_at)


CASES = [
    (ColumnWindow, "y = self.k(x[:, 0:R], y)", "x[:, 0:R]",
     ["is not contiguous in memory", "contiguous row-major", "keep every trailing dimension whole"]),
    (StepWindow, "y = self.k(x[0:64:2, :], y)", "2, :]", ["cannot have a step", "contiguous row-major"]),
    (IndexNotSlice, "y = self.k(x[1, :, :], y)", "1, :, :]", ["'1' is an index", "1:1 + 1"]),
    (DynamicSize, "o = pl.store(pl.adds(x[i * R:i * n, :], 1.0)", "i * R:i * n",
     ["window size i * n - (i * R) is not a compile-time constant", "i * size:(i + 1) * size"]),
    (ToEndOfDynamic, "y = self.k(x[R:, :], y)", "R:, :]", ["dynamic dimension", "not a compile-time constant"]),
    (OutOfBounds, "y = self.k(x[224:288, :], y)", "224:288",
     ["[224, 288) is out of bounds of dimension 0 of 'x' pl.Tensor[[256, 64], pl.FP32]"]),
    (NegativeStart, "y = self.k(x[-32:0, :], y)", "-32:0", ["starts at -32"]),
    (WrongWindowShape, "y = self.k(x[0:64, :], y)", "x[0:64, :]",
     ["argument 'x' of k expects pl.Tensor[[32, 64], pl.FP32], but got pl.Tensor[[64, 64], pl.FP32]"]),
    (CreatedFirstWrittenThroughWindow, "self.k(x, t[0:R, :])", "t[0:R, :]",
     ["'t' is created by pl.create_tensor and first written through a window", "must take it whole"]),
    (WindowReadsAReassignedName, "y = self.k(blk, y)", "blk, y)",
     ["the window 'blk' reads 'off', which is assigned again", "after 'blk' was bound"]),
]


@pytest.mark.parametrize("program, line, col_at, needles", CASES, ids=[c[0].name for c in CASES])
def test_window_error_is_located(program, line, col_at, needles, tmp_path):
    err = error_of(program, tmp_path)
    for n in needles:
        assert n in str(err), str(err)
    assert_located(err, line, col_at)
