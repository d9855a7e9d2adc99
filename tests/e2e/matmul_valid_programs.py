"""Matmuls whose Left operand has fewer valid rows than the tile (issue 13): the Acc result carries
the lhs valid rows and the rhs valid columns, so a store straight from the Acc (or a move to Vec)
writes only those.  M is not a multiple of the tile: the last row block is loaded past the tensor's
edge with valid_shape=: a literal (StaticTail), a run-time min per block (Blocked) or a run-time scalar
parameter (RuntimeValid)."""
import ptokit.language as pl

M, TM, K, KB, N, NV = 40, 16, 64, 32, 48, 40    # row blocks 16, 16, 8; B's last 8 columns are never valid
KT = K // KB
TAIL = M - 2 * TM                                # the last row block's valid rows


@pl.program
class StaticTail:
    """The last row block of a [M, K] @ [K, N] (rows 32..39, a literal valid_shape=[8, K] on a 16-row
    tile loaded past the tensor's edge): y = a @ b stored from the Acc, yb = a @ b + bias."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]], yb: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        l = pl.move(pl.load(a, [2 * TM, 0], [TM, K], valid_shape=[TAIL, K], target_memory=pl.Mem.Mat),
                    target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        br = pl.move(pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        y = pl.store(pl.matmul(l, r), [2 * TM, 0], y)
        yb = pl.store(pl.matmul_bias(l, r, br), [2 * TM, 0], yb)
        return y, yb

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]], yb: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y, yb = self.k(a, b, bias, y, yb)
        return y, yb


@pl.program
class Blocked:
    """y = a @ b (store from Acc), yb = a @ b + bias (matmul_bias), ya = a @ b by a K loop of matmul_acc
    (init_cond k == 0), yv = a @ b + 1 (moved to Vec): an unrolled loop over the row blocks, each one's
    valid rows min(TM, M - i * TM) (the last block has 8), the rhs loaded with NV of its N columns valid."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]], yb: pl.Out[pl.Tensor[[M, N], pl.FP32]],
          ya: pl.Out[pl.Tensor[[M, N], pl.FP32]], yv: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        r = pl.move(pl.load(b, [0, 0], [K, N], valid_shape=[K, NV], target_memory=pl.Mem.Mat),
                    target_memory=pl.Mem.Right)
        br = pl.move(pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        for i in pl.unroll(3):
            vm = min(TM, M - i * TM)
            l = pl.move(pl.load(a, [i * TM, 0], [TM, K], valid_shape=[vm, K], target_memory=pl.Mem.Mat),
                        target_memory=pl.Mem.Left)
            y = pl.store(pl.matmul(l, r), [i * TM, 0], y)
            yb = pl.store(pl.matmul_bias(l, r, br), [i * TM, 0], yb)
            acc = pl.matmul(l, r)
            for kb in pl.range(KT):
                lk = pl.move(pl.load(a, [i * TM, kb * KB], [TM, KB], valid_shape=[vm, KB], target_memory=pl.Mem.Mat),
                             target_memory=pl.Mem.Left)
                rk = pl.move(pl.load(b, [kb * KB, 0], [KB, N], valid_shape=[KB, NV], target_memory=pl.Mem.Mat),
                             target_memory=pl.Mem.Right)
                acc = pl.matmul_acc(acc, lk, rk, init_cond=(kb == 0))
            ya = pl.store(acc, [i * TM, 0], ya)
            v = pl.move(pl.matmul(l, r), target_memory=pl.Mem.Vec)
            yv = pl.store(pl.adds(v, 1.0), [i * TM, 0], yv)
        return y, yb, ya, yv

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]], yb: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             ya: pl.Out[pl.Tensor[[M, N], pl.FP32]], yv: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y, yb, ya, yv = self.k(a, b, bias, y, yb, ya, yv)
        return y, yb, ya, yv


@pl.program
class RuntimeValid:
    """As Blocked, one row block of TM rows of which n (a run-time scalar) are valid, and nc of the rhs
    columns: y[:n, :nc] = a[:n] @ b[:, :nc]; the rest of y keeps what was there."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
          n: pl.Scalar[pl.INDEX], nc: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[TM, N], pl.FP32]], yb: pl.Out[pl.Tensor[[TM, N], pl.FP32]],
          ya: pl.Out[pl.Tensor[[TM, N], pl.FP32]], yv: pl.Out[pl.Tensor[[TM, N], pl.FP32]]):
        l = pl.move(pl.load(a, [0, 0], [TM, K], valid_shape=[n, K], target_memory=pl.Mem.Mat),
                    target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [K, N], valid_shape=[K, nc], target_memory=pl.Mem.Mat),
                    target_memory=pl.Mem.Right)
        br = pl.move(pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        y = pl.store(pl.matmul(l, r), [0, 0], y)
        yb = pl.store(pl.matmul_bias(l, r, br), [0, 0], yb)
        acc = pl.matmul(l, r)
        for kb in pl.range(KT):
            lk = pl.move(pl.load(a, [0, kb * KB], [TM, KB], valid_shape=[n, KB], target_memory=pl.Mem.Mat),
                         target_memory=pl.Mem.Left)
            rk = pl.move(pl.load(b, [kb * KB, 0], [KB, N], valid_shape=[KB, nc], target_memory=pl.Mem.Mat),
                         target_memory=pl.Mem.Right)
            acc = pl.matmul_acc(acc, lk, rk, init_cond=(kb == 0))
        ya = pl.store(acc, [0, 0], ya)
        v = pl.move(pl.matmul(l, r), target_memory=pl.Mem.Vec)
        yv = pl.store(pl.adds(v, 1.0), [0, 0], yv)
        return y, yb, ya, yv

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
             n: pl.Scalar[pl.INDEX], nc: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[TM, N], pl.FP32]], yb: pl.Out[pl.Tensor[[TM, N], pl.FP32]],
             ya: pl.Out[pl.Tensor[[TM, N], pl.FP32]], yv: pl.Out[pl.Tensor[[TM, N], pl.FP32]]):
        y, yb, ya, yv = self.k(a, b, bias, n, nc, y, yb, ya, yv)
        return y, yb, ya, yv


@pl.program
class ViewValid:
    """The Left operand's valid rows set on the tile: pl.set_validshape on the Left tile (y), and a
    pl.TileView(valid_shape=) annotation on the Mat tile moved to Left, with out_dtype=FP16 (y16)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[TM, N], pl.FP32]], y16: pl.Out[pl.Tensor[[TM, N], pl.FP16]]):
        l = pl.move(pl.load(a, [0, 0], [TM, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        l = pl.set_validshape(l, n, K)
        r = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(l, r), [0, 0], y)
        m: pl.Tile[[TM, K], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[n, K])] = pl.load(
            a, [0, 0], [TM, K], target_memory=pl.Mem.Mat)
        y16 = pl.store(pl.matmul(pl.move(m, target_memory=pl.Mem.Left), r, out_dtype=pl.FP16), [0, 0], y16)
        return y, y16

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[TM, N], pl.FP32]], y16: pl.Out[pl.Tensor[[TM, N], pl.FP16]]):
        y, y16 = self.k(a, b, n, y, y16)
        return y, y16


@pl.program
class BranchValid:
    """The Left operand's valid rows chosen by a run-time branch (n rows where flag > 0, all TM
    rows otherwise): the tile merged after the if has the valid region of the path taken."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], n: pl.Scalar[pl.INDEX],
          flag: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[TM, N], pl.FP32]]):
        if flag > 0:
            am = pl.load(a, [0, 0], [TM, K], valid_shape=[n, K], target_memory=pl.Mem.Mat)
        else:
            am = pl.load(a, [0, 0], [TM, K], target_memory=pl.Mem.Mat)
        r = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(pl.move(am, target_memory=pl.Mem.Left), r), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[TM, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], n: pl.Scalar[pl.INDEX],
             flag: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[TM, N], pl.FP32]]):
        y = self.k(a, b, n, flag, y)
        return y
