"""Programs of the a5 MX matmul family (pypto-parity.md D): FP8E4M3FN data with one FP8E8M0 scale
per 32 elements of K, the scales in pl.MX_A_ZZ / pl.MX_B_NN tensors loaded into Mat and moved to
LeftScale / RightScale.  One kernel holds matmul_mx, matmul_mx_acc and matmul_mx_bias."""
import ptokit.language as pl

M, K, N = 32, 128, 64
G = K // 32


@pl.program
class MxFamily:
    """y = (a * sa) @ (b * sb); y2 = y + (a * sa) @ (b * sb) (matmul_mx_acc on y); yb = y + bias;
    yw = the product of the lower 16 rows and the right 32 columns (windows of the scale tensors)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP8E4M3FN], sa: pl.Tensor[[M, G], pl.FP8E8M0, pl.MX_A_ZZ],
          b: pl.Tensor[[K, N], pl.FP8E4M3FN], sb: pl.Tensor[[G, N], pl.FP8E8M0, pl.MX_B_NN],
          bias: pl.Tensor[[1, N], pl.FP32],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]], y2: pl.Out[pl.Tensor[[M, N], pl.FP32]],
          yb: pl.Out[pl.Tensor[[M, N], pl.FP32]], yw: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        lhs = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rhs = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        ls = pl.move(pl.load(sa, [0, 0], [M, G], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        rs = pl.move(pl.load(sb, [0, 0], [G, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
        c = pl.matmul_mx(lhs, ls, rhs, rs)
        y = pl.store(c, [0, 0], y)
        c = pl.matmul_mx_acc(c, lhs, ls, rhs, rs)
        y2 = pl.store(c, [0, 0], y2)
        brow = pl.move(pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        yb = pl.store(pl.matmul_mx_bias(lhs, ls, rhs, rs, brow), [0, 0], yb)
        lw = pl.move(pl.load(a, [16, 0], [16, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rw = pl.move(pl.load(b, [0, 32], [K, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        lsw = pl.move(pl.load(sa, [16, 0], [16, G], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        rsw = pl.move(pl.load(sb, [0, 32], [G, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
        yw = pl.store(pl.matmul_mx(lw, lsw, rw, rsw), [0, 0], yw)
        return y, y2, yb, yw

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP8E4M3FN], sa: pl.Tensor[[M, G], pl.FP8E8M0, pl.MX_A_ZZ],
             b: pl.Tensor[[K, N], pl.FP8E4M3FN], sb: pl.Tensor[[G, N], pl.FP8E8M0, pl.MX_B_NN],
             bias: pl.Tensor[[1, N], pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]], y2: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             yb: pl.Out[pl.Tensor[[M, N], pl.FP32]], yw: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        y, y2, yb, yw = self.k(a, sa, b, sb, bias, y, y2, yb, yw)
        return y, y2, yb, yw


@pl.program
class Fp8Casts:
    """Every FP8 code decoded (pl.cast to FP32) and FP32 values encoded (pl.cast to FP8, to nearest even)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, e4: pl.Tensor[[1, 256], pl.FP8E4M3FN], e5: pl.Tensor[[1, 256], pl.FP8E5M2],
          x: pl.Tensor[[1, 256], pl.FP32],
          d4: pl.Out[pl.Tensor[[1, 256], pl.FP32]], d5: pl.Out[pl.Tensor[[1, 256], pl.FP32]],
          q4: pl.Out[pl.Tensor[[1, 256], pl.FP8E4M3FN]], q5: pl.Out[pl.Tensor[[1, 256], pl.FP8E5M2]]):
        d4 = pl.store(pl.cast(pl.load(e4, [0, 0], [1, 256]), pl.FP32), [0, 0], d4)
        d5 = pl.store(pl.cast(pl.load(e5, [0, 0], [1, 256]), pl.FP32), [0, 0], d5)
        xt = pl.load(x, [0, 0], [1, 256])
        q4 = pl.store(pl.cast(xt, pl.FP8E4M3FN, mode="rint"), [0, 0], q4)
        q5 = pl.store(pl.cast(xt, pl.FP8E5M2, mode="rint"), [0, 0], q5)
        return d4, d5, q4, q5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, e4: pl.Tensor[[1, 256], pl.FP8E4M3FN], e5: pl.Tensor[[1, 256], pl.FP8E5M2],
             x: pl.Tensor[[1, 256], pl.FP32],
             d4: pl.Out[pl.Tensor[[1, 256], pl.FP32]], d5: pl.Out[pl.Tensor[[1, 256], pl.FP32]],
             q4: pl.Out[pl.Tensor[[1, 256], pl.FP8E4M3FN]], q5: pl.Out[pl.Tensor[[1, 256], pl.FP8E5M2]]):
        d4, d5, q4, q5 = self.k(e4, e5, x, d4, d5, q4, q5)
        return d4, d5, q4, q5
