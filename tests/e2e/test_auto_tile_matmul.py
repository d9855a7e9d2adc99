"""Matmuls larger than L0, tiled by AutoTileMatmulL0 for the target, against numpy under both runtime
kinds: a tensor-level FP32 product whose [256, 256] result exceeds Acc stored by pl.assemble (output
grid, K loop), an INT8 tensor-level product whose Right operand exceeds Right (K loop, INT32), a
BF16 biased product with M and N boundary tiles and bias windows larger than Bias, an INT8 biased
product with an INT32 bias, and a loop-carried FP16 matmul_acc whose operands exceed Left / Right."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
BM, BK, BN = 272, 64, 400          # BF16 bias: tiles of n <= 256 (1 KB of Bias), M and N edges


@pl.program
class Oversized:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[128, 256], pl.FP32],
          i8a: pl.Tensor[[128, 512], pl.INT8], i8b: pl.Tensor[[512, 256], pl.INT8],
          ba: pl.Tensor[[BM, BK], pl.BF16], bb: pl.Tensor[[BK, BN], pl.BF16], bias: pl.Tensor[[1, BN], pl.FP32],
          ia: pl.Tensor[[128, 512], pl.INT8], ib: pl.Tensor[[512, 512], pl.INT8], ibias: pl.Tensor[[1, 512], pl.INT32],
          ha: pl.Tensor[[64, 1024], pl.FP16], hb: pl.Tensor[[1024, 64], pl.FP16],
          y: pl.Out[pl.Tensor[[256, 256], pl.FP32]], yi: pl.Out[pl.Tensor[[128, 256], pl.INT32]],
          yb: pl.Out[pl.Tensor[[BM, BN], pl.FP32]], yib: pl.Out[pl.Tensor[[128, 512], pl.INT32]],
          yh: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        y = pl.assemble(y, c, [0, 0])
        ci = pl.matmul(i8a, i8b, out_dtype=pl.INT32)
        yi = pl.assemble(yi, ci, [0, 0])
        ba_mat = pl.load(ba, [0, 0], [BM, BK], target_memory=pl.Mem.Mat)
        bb_mat = pl.load(bb, [0, 0], [BK, BN], target_memory=pl.Mem.Mat)
        bias_mat = pl.load(bias, [0, 0], [1, BN], target_memory=pl.Mem.Mat)
        cb = pl.tile.matmul_bias(ba_mat, bb_mat, bias_mat)
        yb = pl.store(cb, [0, 0], yb)
        ia_mat = pl.load(ia, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        ib_mat = pl.load(ib, [0, 0], [512, 512], target_memory=pl.Mem.Mat)
        ibias_mat = pl.load(ibias, [0, 0], [1, 512], target_memory=pl.Mem.Mat)
        cib = pl.tile.matmul_bias(ia_mat, ib_mat, ibias_mat)
        yib = pl.store(cib, [0, 0], yib)
        ha_mat = pl.load(ha, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        hb_mat = pl.load(hb, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(ha[:, 0:64], hb[0:64, :])
        for _ in pl.range(2):
            acc = pl.matmul_acc(acc, ha_mat, hb_mat)     # acc = a0 @ b0 + 2 (a @ b)
        yh = pl.store(acc, [0, 0], yh)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[128, 256], pl.FP32],
             i8a: pl.Tensor[[128, 512], pl.INT8], i8b: pl.Tensor[[512, 256], pl.INT8],
             ba: pl.Tensor[[BM, BK], pl.BF16], bb: pl.Tensor[[BK, BN], pl.BF16], bias: pl.Tensor[[1, BN], pl.FP32],
             ia: pl.Tensor[[128, 512], pl.INT8], ib: pl.Tensor[[512, 512], pl.INT8],
             ibias: pl.Tensor[[1, 512], pl.INT32],
             ha: pl.Tensor[[64, 1024], pl.FP16], hb: pl.Tensor[[1024, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[256, 256], pl.FP32]], yi: pl.Out[pl.Tensor[[128, 256], pl.INT32]],
             yb: pl.Out[pl.Tensor[[BM, BN], pl.FP32]], yib: pl.Out[pl.Tensor[[128, 512], pl.INT32]],
             yh: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, i8a, i8b, ba, bb, bias, ia, ib, ibias, ha, hb, y, yi, yb, yib, yh)
        return y


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_oversized_matmuls_against_numpy(tmp_path, runtime):
    out = tmp_path / "out"
    run = ptokit.compile(Oversized, output_dir=out, runtime=runtime)
    pto = (out / "ptoas" / "k.pto").read_text()
    assert "pto.textract" in pto and "pto.tmatmul.acc" in pto
    rng = np.random.default_rng(7)
    f = lambda x: x.astype(np.float64)   # noqa: E731
    a = rng.standard_normal((256, 128)).astype(np.float32)
    b = rng.standard_normal((128, 256)).astype(np.float32)
    i8a = rng.integers(-4, 5, (128, 512)).astype(np.int8)
    i8b = rng.integers(-4, 5, (512, 256)).astype(np.int8)
    bdt = pl.BF16.numpy()
    ba = rng.standard_normal((BM, BK)).astype(bdt)
    bb = rng.standard_normal((BK, BN)).astype(bdt)
    bias = rng.standard_normal((1, BN)).astype(np.float32)
    ia = rng.integers(-3, 4, (128, 512)).astype(np.int8)
    ib = rng.integers(-3, 4, (512, 512)).astype(np.int8)
    ibias = rng.integers(-20, 21, (1, 512)).astype(np.int32)
    ha = rng.standard_normal((64, 1024)).astype(np.float16)
    hb = rng.standard_normal((1024, 64)).astype(np.float16)
    y = np.zeros((256, 256), np.float32)
    yi = np.zeros((128, 256), np.int32)
    yb = np.zeros((BM, BN), np.float32)
    yib = np.zeros((128, 512), np.int32)
    yh = np.zeros((64, 64), np.float32)
    run(a, b, i8a, i8b, ba, bb, bias, ia, ib, ibias, ha, hb, y, yi, yb, yib, yh)
    ref = f(a) @ f(b)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-4 * np.abs(ref).max())
    np.testing.assert_array_equal(yi, i8a.astype(np.int32) @ i8b.astype(np.int32))
    refb = f(ba) @ f(bb) + bias
    np.testing.assert_allclose(yb, refb, rtol=1e-5, atol=1e-4 * np.abs(refb).max())
    np.testing.assert_array_equal(yib, ia.astype(np.int32) @ ib.astype(np.int32) + ibias)
    refh = f(ha[:, :64]) @ f(hb[:64, :]) + 2 * (f(ha) @ f(hb))
    np.testing.assert_allclose(yh, refh, rtol=1e-4, atol=1e-4 * np.abs(refh).max())


# pypto's canonical split-K reduction: a pl.create_tensor accumulator bound to a matmul on the first
# K block and to matmul_acc of itself on the others (InferAccumulatorSpace places it in Acc).  The
# INT8 one's [160, 208] INT32 output exceeds Acc: a grid of output tiles, each with its own K loop,
# its 16-column N tail computed as the last 32 columns; the BF16 one fits and runs as written.  A
# pl.full zero accumulator: in a loop, the first round's matmul_acc takes init_cond (the plain
# product); read once where it is made, it is the plain product.
SM, SK, SN = 160, 256, 208


@pl.program
class SplitK:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[SM, SK], pl.INT8], b: pl.Tensor[[SK, SN], pl.INT8],
          ha: pl.Tensor[[32, 512], pl.BF16], hb: pl.Tensor[[512, 64], pl.BF16],
          c: pl.Out[pl.Tensor[[SM, SN], pl.INT32]], hc: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
          fc: pl.Out[pl.Tensor[[32, 64], pl.FP32]], fd: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        acc = pl.create_tensor([SM, SN], dtype=pl.INT32)
        for kb in pl.pipeline(0, SK // 64, stage=2):
            k0 = kb * 64
            at = a[0:SM, k0:k0 + 64]
            bt = b[k0:k0 + 64, 0:SN]
            if k0 == 0:
                acc = pl.matmul(at, bt, out_dtype=pl.INT32)
            else:
                acc = pl.matmul_acc(acc, at, bt)
        c[0:SM, 0:SN] = acc
        hacc = pl.create_tensor([32, 64], dtype=pl.FP32)
        for j in pl.range(4):
            if j == 0:
                hacc = pl.matmul(ha[:, 0:128], hb[0:128, :], out_dtype=pl.FP32)
            else:
                hacc = pl.matmul_acc(hacc, ha[:, j * 128:j * 128 + 128], hb[j * 128:j * 128 + 128, :])
        hc = pl.store(hacc, [0, 0], hc)
        zacc = pl.full([32, 64], dtype=pl.FP32, value=0.0)        # zeros: the first round is the plain product
        for j in pl.range(4):
            zacc = pl.matmul_acc(zacc, ha[:, j * 128:j * 128 + 128], hb[j * 128:j * 128 + 128, :])
        fc = pl.store(zacc, [0, 0], fc)
        once = pl.full([32, 64], dtype=pl.FP32, value=0.0)
        once = pl.matmul_acc(once, ha[:, 0:128], hb[0:128, :])
        fd = pl.store(once, [0, 0], fd)
        return c, hc, fc, fd

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[SM, SK], pl.INT8], b: pl.Tensor[[SK, SN], pl.INT8],
             ha: pl.Tensor[[32, 512], pl.BF16], hb: pl.Tensor[[512, 64], pl.BF16],
             c: pl.Out[pl.Tensor[[SM, SN], pl.INT32]], hc: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             fc: pl.Out[pl.Tensor[[32, 64], pl.FP32]], fd: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        c, hc, fc, fd = self.k(a, b, ha, hb, c, hc, fc, fd)
        return c, hc, fc, fd


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_split_k_chains_against_numpy(tmp_path, runtime):
    run = ptokit.compile(SplitK, output_dir=tmp_path / "out", runtime=runtime)
    rng = np.random.default_rng(11)
    a = rng.integers(-3, 4, (SM, SK)).astype(np.int8)
    b = rng.integers(-3, 4, (SK, SN)).astype(np.int8)
    bdt = pl.BF16.numpy()
    ha = rng.standard_normal((32, 512)).astype(bdt)
    hb = rng.standard_normal((512, 64)).astype(bdt)
    c = np.zeros((SM, SN), np.int32)
    hc = np.zeros((32, 64), np.float32)
    fc = np.full((32, 64), 7.0, np.float32)
    fd = np.full((32, 64), 7.0, np.float32)
    run(a, b, ha, hb, c, hc, fc, fd)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))
    ref = ha.astype(np.float64) @ hb.astype(np.float64)
    np.testing.assert_allclose(hc, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    np.testing.assert_allclose(fc, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    ref1 = ha[:, :128].astype(np.float64) @ hb[:128].astype(np.float64)
    np.testing.assert_allclose(fd, ref1, rtol=1e-4, atol=1e-4 * np.abs(ref1).max())
