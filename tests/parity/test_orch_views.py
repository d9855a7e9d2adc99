"""pl.reshape / pl.transpose of a tensor in orchestration code are views of it (no data moved), passed to
tasks like windows; each tensor argument has its own sizes even where two share a dynamic dimension's
name, and the orchestration checks only the dimensions it reads as values."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import ArgumentError, CompileError, RuntimeFailure
from source_modules import import_source

M = pl.dynamic("M")
N = pl.dynamic("N")
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.program
class ReshapeTranspose:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
            c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        c = pl.store(pl.add(pl.load(a, [0, 0], [16, 32]), pl.load(b, [0, 0], [16, 32])), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
             c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        # `a` is [512] and `c` [16, 32]: M names a different size in each, as pypto allows
        a2 = pl.reshape(a, [16, 32])
        bt = pl.transpose(b, axis1=0, axis2=1)
        c = self.add(a2, bt, c)
        return c


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_reshape_and_transpose_views(tmp_path, runtime):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(512).astype(np.float32)
    b = rng.standard_normal((32, 16)).astype(np.float32)
    c = np.zeros((16, 32), np.float32)
    ptokit.compile(ReshapeTranspose, output_dir=tmp_path / "o", runtime=runtime)(a, b, c)
    # a kernel reads its tensor arguments row-major from their origin (as pypto's do): the transposed
    # view of b is b's memory seen as [16, 32]
    np.testing.assert_allclose(c, a.reshape(16, 32) + b.reshape(16, 32), rtol=1e-6)


@pl.program
class ReshapeWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        y = pl.store(pl.neg(pl.load(x, [0, 0], [8, 32])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 256], pl.FP32], y: pl.Out[pl.Tensor[[4, 8, 32], pl.FP32]]) -> pl.Tensor[[4, 8, 32], pl.FP32]:
        for i in pl.range(4):
            row = x[i:i + 1, :]
            y = self.neg(pl.reshape(row, [8, 32]), pl.reshape(y[i:i + 1, :, :], [8, 32]))
        return y


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_reshape_of_windows(tmp_path, runtime):
    x = np.random.default_rng(2).standard_normal((4, 256)).astype(np.float32)
    y = np.zeros((4, 8, 32), np.float32)
    ptokit.compile(ReshapeWindow, output_dir=tmp_path / "o", runtime=runtime)(x, y)
    np.testing.assert_array_equal(y, -x.reshape(4, 8, 32))


@pl.program
class ReadsM:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, 64], pl.FP32], y: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        for i in pl.range(M // 16):
            y = self.k(x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :])
        return y


def test_a_dimension_read_as_a_value_must_agree(tmp_path):
    prog = ptokit.compile(ReadsM, output_dir=tmp_path / "o")
    x = np.ones((32, 64), np.float32)
    y = np.zeros((32, 64), np.float32)
    prog(x, y)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(RuntimeFailure, match="dynamic dimension M is 32 in x and 48 in y"):
        prog(x, np.zeros((48, 64), np.float32))


def test_an_output_left_out_is_not_sized_by_a_conflict(tmp_path):
    prog = ptokit.compile(ReshapeTranspose, output_dir=tmp_path / "o")
    a, b = np.zeros(512, np.float32), np.zeros((32, 16), np.float32)
    with pytest.raises(ArgumentError, match="cannot allocate output 'c'"):
        prog(a, b)          # c [M, N]: N is bound by no input


def _main(body: str):
    src = (
        "@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
        "        y = pl.store(pl.load(x, [0, 0], [16, 32]), [0, 0], y)\n"
        "        return y\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def main(self, x: pl.Tensor[[32, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
        f"        v = {body}\n"
        "        y = self.k(v, y)\n"
        "        return y\n")
    return src


@pytest.mark.parametrize("body, message", [
    ("pl.transpose(x, axis1=0, axis2=2)", "pl.transpose axis2=2 is not an axis of the 2-D tensor"),
    ("pl.transpose(x, axis1=1, axis2=-1)", "pl.transpose swaps two different axes, but both are 1"),
    ("pl.reshape(x, [16, 16])", "pl.reshape of a [32, 16] tensor to [16, 16] changes its element count (512 to 256)"),
    ("pl.reshape(x, [16, 32], valid_shape=[8, 32])", "valid_shape= is not one of them"),
])
def test_located_errors(tmp_path, body, message):
    mod = import_source(tmp_path / "prog.py", "orch_view_errors", "import ptokit.language as pl\n" + _main(body))
    with pytest.raises(CompileError) as err:
        ptokit.compile(mod.P, output_dir=tmp_path / "o")
    assert message in str(err.value)
    assert "prog.py:11:" in str(err.value) and "^" in str(err.value)


@pl.program
class AssembleChunks:
    @pl.function(type=pl.FunctionType.InCore)
    def scaled(self, x: pl.Tensor[[4, 16], pl.FP32], s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
        out = pl.store(pl.muls(pl.load(x, [0, 0], [4, 16]), s), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[3, 4, 16], pl.FP32]]) -> pl.Tensor[[3, 4, 16], pl.FP32]:
        for b in pl.range(3):
            chunk = pl.create_tensor([4, 16], dtype=pl.FP32)
            chunk = self.scaled(x, pl.cast(b, pl.FP32) + 1.0, chunk)
            out = pl.assemble(out, chunk, [b, 0, 0])      # a 2-D chunk into the 3-D output
        return out


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_assemble_of_a_created_tensor_writes_in_place(tmp_path, runtime):
    x = np.random.default_rng(5).standard_normal((4, 16)).astype(np.float32)
    out = np.zeros((3, 4, 16), np.float32)
    compiled = ptokit.compile(AssembleChunks, output_dir=tmp_path / "o", runtime=runtime)
    compiled(x, out)
    np.testing.assert_allclose(out, np.stack([x * (b + 1) for b in range(3)]), rtol=1e-6)
    orch = next((tmp_path / "o" / "orchestration").glob("*.cpp")).read_text()
    assert "alloc_tensors" not in orch and "make_tensor_reshape" in orch     # no buffer of its own, no copy


def _assemble_main(lines: str) -> str:
    return (
        "import ptokit.language as pl\n\n\n"
        "@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[4, 16], pl.FP32], y: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:\n"
        "        y = pl.store(pl.load(x, [0, 0], [4, 16]), [0, 0], y)\n"
        "        return y\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def main(self, x: pl.Tensor[[4, 16], pl.FP32], out: pl.Out[pl.Tensor[[2, 8, 32], pl.FP32]]) -> pl.Tensor[[2, 8, 32], pl.FP32]:\n"
        + lines + "        return out\n")


@pytest.mark.parametrize("lines, line, message", [
    ("        out = pl.assemble(out, x, [0, 0, 0])\n", 13, "'x' is not a tensor created by pl.create_tensor in this block"),
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        c = self.k(x, c)\n"
     "        out = pl.assemble(out, c, [0, 0, 0])\n", 15, "dimension 2 is cut"),
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        for i in pl.range(2):\n"
     "            c = self.k(x, c)\n"
     "            out = pl.assemble(out, c, [i, 0, 0])\n", 16, "is not a tensor created by pl.create_tensor in this block"),
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        c = self.k(x, c)\n"
     "        out = pl.assemble(out, c, [0, 0, 0], atomic=pl.AtomicType.Add)\n", 15, "no instruction does"),
])
def test_assemble_located_errors(tmp_path, lines, line, message):
    mod = import_source(tmp_path / "asm.py", "orch_assemble_errors", _assemble_main(lines))
    with pytest.raises(CompileError) as err:
        ptokit.compile(mod.P, output_dir=tmp_path / "o")
    assert message in str(err.value)
    assert f"asm.py:{line}:" in str(err.value) and "^" in str(err.value)
