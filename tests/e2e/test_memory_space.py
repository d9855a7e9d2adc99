"""InferTileMemorySpace end to end (pypto's pass of that name): matmul operands the program leaves
where it computed them (a Vec result of vector ops, an Acc product, a Mat load) are moved into
Left / Right by the pass, a copy of an Acc tile stays an alias, and an FP32 Acc tile is stored
into an FP16 / BF16 tensor (the fix-pipe converts); checked against numpy under both runtime kinds,
with a located error for each form that stays refused."""
import ml_dtypes
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

from programs import CarriedAcc       # tests/programs.py: also InferTileMemorySpace's pass test

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_SRC = __file__


@pl.program
class VecOperands:
    """(a + b) @ (a - b) written on tensors in one core-group block: both operands are Vec results,
    each brought to the cube through Mat (the cross-core FIFO of the split kernel)."""

    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            s = pl.add(a, b)
            d = pl.sub(a, b)
            p = pl.matmul(s, d)
            out = pl.assemble(out, p, [0, 0])
        return out


@pl.program
class AccOperand:
    """(a @ b) @ b on the cube alone: the first product (Acc) is the second's lhs, through Mat; the
    Mat load of b feeds both rhs through one move; ``r = q`` is a copy of an Acc tile."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
          y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        am = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        p = pl.matmul(am, bm)
        q = pl.matmul(p, bm)
        r = q
        y = pl.store(r, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        y = self.k(a, b, y)
        return y


@pl.program
class NarrowingStore:
    """An FP32 product stored straight into FP16 and BF16 tensors (converted on the way out)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16],
          y16: pl.Out[pl.Tensor[[16, 32], pl.FP16]], ybf: pl.Out[pl.Tensor[[16, 32], pl.BF16]]):
        p = pl.matmul(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat),
                      pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat))
        y16 = pl.store(p, [0, 0], y16)
        ybf = pl.store(p, [0, 0], ybf)
        return y16, ybf

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16],
             y16: pl.Out[pl.Tensor[[16, 32], pl.FP16]], ybf: pl.Out[pl.Tensor[[16, 32], pl.BF16]]):
        y16, ybf = self.k(a, b, y16, ybf)
        return y16, ybf


@pl.program
class GmHandoff:
    """The cube stores a product into a created tensor and the vector side, in the same block,
    casts it back row by row: the data goes through global memory, the pass orders the two sides."""

    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[64, 64], pl.BF16],
             cache: pl.InOut[pl.Tensor[[64, 64], pl.BF16]]) -> pl.Tensor[[64, 64], pl.BF16]:
        kv = pl.create_tensor([16, 64], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
            kv[:, :] = pl.matmul(x, w, out_dtype=pl.FP32)
            for b in pl.range(16):
                cache[b * 4: b * 4 + 1, :] = pl.cast(kv[b: b + 1, :], target_type=pl.BF16, mode="rint")
        return cache


@pl.program
class TransposedVecOperand:
    """a @ (b0 + b1)^T: b_trans of a vector result (pypto's tensor-level form): the sum goes to
    Mat through the FIFO, is viewed transposed there and moved to Right."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b0: pl.Tensor[[48, 32], pl.FP32],
          b1: pl.Tensor[[48, 32], pl.FP32], c: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        bt = pl.add(b0, b1)
        cm = pl.matmul(a, bt, b_trans=True, out_dtype=pl.FP32)
        c = pl.assemble(c, cm, [0, 0])
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b0: pl.Tensor[[48, 32], pl.FP32],
             b1: pl.Tensor[[48, 32], pl.FP32], c: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        c = self.k(a, b0, b1, c)
        return c


def _rand(shape, seed, dtype=np.float32):
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(dtype)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_vec_operands_reach_the_cube(runtime, tmp_path):
    c = ptokit.compile(VecOperands, output_dir=tmp_path, runtime=runtime)
    assert sorted(k.core_type for k in c.config.kernels) == ["aic", "aiv"]
    a, b = _rand((32, 32), 1), _rand((32, 32), 2)
    out = np.zeros((32, 32), np.float32)
    c(a, b, out)
    np.testing.assert_allclose(out, (a.astype(np.float64) + b) @ (a.astype(np.float64) - b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_acc_operand_goes_through_mat(runtime, tmp_path):
    c = ptokit.compile(AccOperand, output_dir=tmp_path, runtime=runtime)
    assert [k.core_type for k in c.config.kernels] == ["aic"]        # no vector work: Acc->Mat on the cube
    a, b = _rand((32, 32), 3), _rand((32, 32), 4)
    y = np.zeros((32, 32), np.float32)
    c(a, b, y)
    ref = (a.astype(np.float64) @ b) @ b
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_fp32_acc_stored_into_fp16_and_bf16(runtime, tmp_path):
    c = ptokit.compile(NarrowingStore, output_dir=tmp_path, runtime=runtime)
    a, b = _rand((16, 32), 5, np.float16), _rand((32, 32), 6, np.float16)
    y16, ybf = np.zeros((16, 32), np.float16), np.zeros((16, 32), ml_dtypes.bfloat16)
    c(a, b, y16, ybf)
    ref = (a.astype(np.float32) @ b.astype(np.float32))
    np.testing.assert_array_equal(y16, ref.astype(np.float16))
    np.testing.assert_array_equal(ybf, ref.astype(ml_dtypes.bfloat16))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_carried_acc_copies_are_aliases(runtime, tmp_path):
    c = ptokit.compile(CarriedAcc, output_dir=tmp_path, runtime=runtime)
    a, b = _rand((64, 16), 7, np.float16), _rand((16, 16), 8, np.float16)
    y = np.zeros((16, 16), np.float32)
    c(a, b, y)
    ref = sum(a[i * 16:(i + 1) * 16].astype(np.float64) @ b.astype(np.float64) for i in range(4))
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_gm_handoff_from_cube_to_vector(runtime, tmp_path):
    c = ptokit.compile(GmHandoff, output_dir=tmp_path, runtime=runtime)
    x = _rand((16, 64), 9).astype(ml_dtypes.bfloat16)
    w = _rand((64, 64), 10).astype(ml_dtypes.bfloat16)
    cache = np.full((64, 64), 3.0, ml_dtypes.bfloat16)
    c(x, w, cache)
    ref = np.full((64, 64), 3.0, np.float32)
    ref[::4] = (x.astype(np.float32) @ w.astype(np.float32)).astype(ml_dtypes.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(cache.astype(np.float32), ref)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_transposed_vec_operand(runtime, tmp_path):
    c = ptokit.compile(TransposedVecOperand, output_dir=tmp_path, runtime=runtime)
    a, b0, b1 = _rand((16, 32), 11), _rand((48, 32), 12), _rand((48, 32), 13)
    out = np.zeros((16, 48), np.float32)
    c(a, b0, b1, out)
    np.testing.assert_allclose(out, a.astype(np.float64) @ (b0.astype(np.float64) + b1).T, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------- what stays refused

@pl.program
class AccCopyBothUsed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
          z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        p = pl.matmul(am, am)
        keep = p
        p = pl.matmul_acc(p, am, am)
        y = pl.store(keep, [0, 0], y)
        z = pl.store(p, [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        y, z = self.k(a, y, z)
        return y, z


@pl.program
class IntAccIntoHalf:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.INT8], y: pl.Out[pl.Tensor[[16, 16], pl.FP16]]):
        p = pl.matmul(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat),
                      pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat), b_trans=True)
        y = pl.store(p, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.INT8], y: pl.Out[pl.Tensor[[16, 16], pl.FP16]]):
        y = self.k(a, y)
        return y


@pl.program
class FloatAccIntoInt8:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.INT8]]):
        am = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        p = pl.matmul(am, am, b_trans=True)
        y = pl.store(p, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.INT8]]):
        y = self.k(a, y)
        return y


def _line(name: str, needle: str) -> int:
    """The line of ``needle`` in the program class ``name`` of this file."""
    lines = open(_SRC).read().splitlines()
    start = lines.index(f"class {name}:")
    return 1 + next(i for i in range(start, len(lines)) if needle in lines[i])


@pytest.mark.parametrize("program,message,needle", [
    (AccCopyBothUsed, "tile.move Acc->Acc is not a legal move on a2a3", "keep = p"),
    (IntAccIntoHalf, "tile.store requires matching dtypes, but got tile pl.INT32 and tensor pl.FP16", "pl.store(p"),
    (FloatAccIntoInt8, "into pl.FP32 or pl.FP16 or pl.BF16 only; pl.cast the tile on the vector side", "pl.store(p"),
])
def test_refused_forms_are_located(program, message, needle, tmp_path):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(program, output_dir=tmp_path)
    err = ei.value
    assert message in str(err), str(err)
    assert err.loc is not None and err.loc.file == _SRC and err.loc.line == _line(program.name, needle), err.loc
    assert str(err).splitlines()[2].strip() == "^"
