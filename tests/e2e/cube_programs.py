"""Programs of the cube op set (pypto-parity.md D): transposed tensor operands, matmul_bias,
matmul_acc with init_cond, the GEMV family.  One kernel holds many ops (one build per dtype)."""
import functools

import ptokit.language as pl

M, K, N = 32, 64, 48          # N: not a power of two; K split into KT blocks of KB
KB = 16
KT = K // KB


@functools.lru_cache(maxsize=None)
def make_cube_family(dtype):
    """Each output against numpy:
    y_bt   = a @ bt.T      pl.matmul(a, bt, b_trans=True) on tensors (bt stored [N, K])
    y_at   = at.T @ b      pl.matmul(at, b, a_trans=True) on tensors (at stored [K, M])
    y_bias = a @ b + bias  pl.matmul_bias on tiles (bias moved Mat -> Bias)
    y_tbias= a @ b + bias  pl.matmul_bias on tensors (the bias tensor is brought to Bias)
    y_init = a @ b         a K loop of matmul_acc(init_cond=(k == 0)) into an Acc tile holding a @ b already
    y_true = a @ b         matmul_acc(2 a @ b, l, r, init_cond=True): the product overwrites the accumulator
    y_gemv = v @ b, y_gacc = 2 v @ b (gemv then gemv_acc), y_gbias = v @ b + bias."""

    @pl.program
    class CubeFamily:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[M, K], dtype], b: pl.Tensor[[K, N], dtype], bt: pl.Tensor[[N, K], dtype],
              at: pl.Tensor[[K, M], dtype], v: pl.Tensor[[1, K], dtype], bias: pl.Tensor[[1, N], pl.FP32],
              y_bt: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_at: pl.Out[pl.Tensor[[M, N], pl.FP32]],
              y_bias: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_tbias: pl.Out[pl.Tensor[[M, N], pl.FP32]],
              y_init: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_true: pl.Out[pl.Tensor[[M, N], pl.FP32]],
              y_gemv: pl.Out[pl.Tensor[[1, N], pl.FP32]], y_gacc: pl.Out[pl.Tensor[[1, N], pl.FP32]],
              y_gbias: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y_bt = pl.store(pl.matmul(a, bt, b_trans=True), [0, 0], y_bt)
            y_at = pl.store(pl.matmul(at, b, a_trans=True), [0, 0], y_at)
            left = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            right = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            brow = pl.move(pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
            y_bias = pl.store(pl.matmul_bias(left, right, brow), [0, 0], y_bias)
            y_tbias = pl.store(pl.matmul_bias(a, b, bias), [0, 0], y_tbias)
            acc = pl.matmul(left, right)
            for kb in pl.range(KT):
                lk = pl.move(pl.load(a, [0, kb * KB], [M, KB], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                rk = pl.move(pl.load(b, [kb * KB, 0], [KB, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                acc = pl.matmul_acc(acc, lk, rk, init_cond=(kb == 0))
            y_init = pl.store(acc, [0, 0], y_init)
            junk = pl.matmul(left, right)
            junk = pl.matmul_acc(junk, left, right)                       # 2 a @ b
            junk = pl.matmul_acc(junk, left, right, init_cond=True)       # overwritten: a @ b
            y_true = pl.store(junk, [0, 0], y_true)
            vl = pl.move(pl.load(v, [0, 0], [1, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            g = pl.tile.gemv(vl, right)
            y_gemv = pl.store(g, [0, 0], y_gemv)
            g = pl.tile.gemv_acc(g, vl, right, acc_phase="final")
            y_gacc = pl.store(g, [0, 0], y_gacc)
            y_gbias = pl.store(pl.tile.gemv_bias(vl, right, brow), [0, 0], y_gbias)
            return y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[M, K], dtype], b: pl.Tensor[[K, N], dtype], bt: pl.Tensor[[N, K], dtype],
                 at: pl.Tensor[[K, M], dtype], v: pl.Tensor[[1, K], dtype], bias: pl.Tensor[[1, N], pl.FP32],
                 y_bt: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_at: pl.Out[pl.Tensor[[M, N], pl.FP32]],
                 y_bias: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_tbias: pl.Out[pl.Tensor[[M, N], pl.FP32]],
                 y_init: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_true: pl.Out[pl.Tensor[[M, N], pl.FP32]],
                 y_gemv: pl.Out[pl.Tensor[[1, N], pl.FP32]], y_gacc: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                 y_gbias: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias = self.k(
                a, b, bt, at, v, bias, y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias)
            return y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias

    return CubeFamily
