"""Programs of the 4-bit dtypes (FP4 / FP4E2M1 / INT4 / UINT4, one value a byte): load -> cast ->
store round trips, encodes from FP32 / INT32, and an MX matmul whose FP4 lhs is cast to FP8E4M3FN
on the vector unit and moved to Left (pypto-parity.md D, the matmul_mx row)."""
import ptokit.language as pl

W = 32                      # one row of 32 values: every 4-bit code twice
M, K, N = 16, 64, 32
G = K // 32


@pl.program
class Fp4Casts:
    """e2 / f4 (E2M1 codes) decoded to FP32, FP16, BF16 and FP8E4M3FN and copied; INT4 / UINT4 widened;
    FP32 values encoded to FP4 (nearest even, saturating) and to INT4 (floor, saturating), INT32 values
    to INT4 / UINT4 (saturating)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, e2: pl.Tensor[[1, W], pl.FP4E2M1], f4: pl.Tensor[[1, W], pl.FP4],
          i4: pl.Tensor[[1, W], pl.INT4], u4: pl.Tensor[[1, W], pl.UINT4],
          x: pl.Tensor[[1, W], pl.FP32], n: pl.Tensor[[1, W], pl.INT32],
          d32: pl.Out[pl.Tensor[[1, W], pl.FP32]], d16: pl.Out[pl.Tensor[[1, W], pl.FP16]],
          db: pl.Out[pl.Tensor[[1, W], pl.BF16]], d8: pl.Out[pl.Tensor[[1, W], pl.FP8E4M3FN]],
          cp: pl.Out[pl.Tensor[[1, W], pl.FP4]], wi8: pl.Out[pl.Tensor[[1, W], pl.INT8]],
          wi32: pl.Out[pl.Tensor[[1, W], pl.INT32]], wu8: pl.Out[pl.Tensor[[1, W], pl.UINT8]],
          wuf: pl.Out[pl.Tensor[[1, W], pl.FP32]], q4: pl.Out[pl.Tensor[[1, W], pl.FP4E2M1]],
          qi4: pl.Out[pl.Tensor[[1, W], pl.INT4]], qu4: pl.Out[pl.Tensor[[1, W], pl.UINT4]],
          qf4: pl.Out[pl.Tensor[[1, W], pl.INT4]]):
        t = pl.load(e2, [0, 0], [1, W])
        d32 = pl.store(pl.cast(t, pl.FP32), [0, 0], d32)
        d16 = pl.store(pl.cast(t, pl.FP16), [0, 0], d16)
        db = pl.store(pl.cast(t, pl.BF16), [0, 0], db)
        d8 = pl.store(pl.cast(t, pl.FP8E4M3FN), [0, 0], d8)
        cp = pl.store(pl.load(f4, [0, 0], [1, W]), [0, 0], cp)
        ti = pl.load(i4, [0, 0], [1, W])
        wi8 = pl.store(pl.cast(ti, pl.INT8), [0, 0], wi8)
        wi32 = pl.store(pl.cast(ti, pl.INT32), [0, 0], wi32)
        tu = pl.load(u4, [0, 0], [1, W])
        wu8 = pl.store(pl.cast(tu, pl.UINT8), [0, 0], wu8)
        wuf = pl.store(pl.cast(tu, pl.FP32), [0, 0], wuf)
        xt = pl.load(x, [0, 0], [1, W])
        q4 = pl.store(pl.cast(xt, pl.FP4E2M1, mode="rint"), [0, 0], q4)
        qf4 = pl.store(pl.cast(xt, pl.INT4, mode="floor"), [0, 0], qf4)
        tn = pl.load(n, [0, 0], [1, W])
        qi4 = pl.store(pl.cast(tn, pl.INT4), [0, 0], qi4)
        qu4 = pl.store(pl.cast(tn, pl.UINT4), [0, 0], qu4)
        return d32, d16, db, d8, cp, wi8, wi32, wu8, wuf, q4, qi4, qu4, qf4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, e2: pl.Tensor[[1, W], pl.FP4E2M1], f4: pl.Tensor[[1, W], pl.FP4],
             i4: pl.Tensor[[1, W], pl.INT4], u4: pl.Tensor[[1, W], pl.UINT4],
             x: pl.Tensor[[1, W], pl.FP32], n: pl.Tensor[[1, W], pl.INT32],
             d32: pl.Out[pl.Tensor[[1, W], pl.FP32]], d16: pl.Out[pl.Tensor[[1, W], pl.FP16]],
             db: pl.Out[pl.Tensor[[1, W], pl.BF16]], d8: pl.Out[pl.Tensor[[1, W], pl.FP8E4M3FN]],
             cp: pl.Out[pl.Tensor[[1, W], pl.FP4]], wi8: pl.Out[pl.Tensor[[1, W], pl.INT8]],
             wi32: pl.Out[pl.Tensor[[1, W], pl.INT32]], wu8: pl.Out[pl.Tensor[[1, W], pl.UINT8]],
             wuf: pl.Out[pl.Tensor[[1, W], pl.FP32]], q4: pl.Out[pl.Tensor[[1, W], pl.FP4E2M1]],
             qi4: pl.Out[pl.Tensor[[1, W], pl.INT4]], qu4: pl.Out[pl.Tensor[[1, W], pl.UINT4]],
             qf4: pl.Out[pl.Tensor[[1, W], pl.INT4]]):
        d32, d16, db, d8, cp, wi8, wi32, wu8, wuf, q4, qi4, qu4, qf4 = self.k(
            e2, f4, i4, u4, x, n, d32, d16, db, d8, cp, wi8, wi32, wu8, wuf, q4, qi4, qu4, qf4)
        return d32, d16, db, d8, cp, wi8, wi32, wu8, wuf, q4, qi4, qu4, qf4


@pl.program
class Fp4Mx:
    """y = (a * sa) @ (b * sb) with a FP4 lhs: loaded to Vec, pl.cast to FP8E4M3FN (exact: every E2M1
    value is an E4M3FN value), moved to Mat and on to Left."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP4], sa: pl.Tensor[[M, G], pl.FP8E8M0, pl.MX_A_ZZ],
          b: pl.Tensor[[K, N], pl.FP8E4M3FN], sb: pl.Tensor[[G, N], pl.FP8E8M0, pl.MX_B_NN],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        a8 = pl.cast(pl.load(a, [0, 0], [M, K]), pl.FP8E4M3FN)
        lhs = pl.move(pl.move(a8, target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rhs = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        ls = pl.move(pl.load(sa, [0, 0], [M, G], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        rs = pl.move(pl.load(sb, [0, 0], [G, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
        y = pl.store(pl.matmul_mx(lhs, ls, rhs, rs), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP4], sa: pl.Tensor[[M, G], pl.FP8E8M0, pl.MX_A_ZZ],
             b: pl.Tensor[[K, N], pl.FP8E4M3FN], sb: pl.Tensor[[G, N], pl.FP8E8M0, pl.MX_B_NN],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y = self.k(a, sa, b, sb, y)
        return y
