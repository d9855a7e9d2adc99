"""Kernels of the ``pl.tensor.*`` forms of the names that were tile-only (pypto-parity.md section F):
whole tensors and tensor windows as operands, loaded into Vec (a Mat load for transpose_view),
results stored with window writes."""
import ptokit.language as pl

R, C = 16, 64
T32 = pl.Tensor[[R, C], pl.FP32]
TR = 32                 # mgather's GM table rows


@pl.program
class TensorForms:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T32, y: T32, offs: pl.Tensor[[R, 8], pl.UINT32], table: pl.Tensor[[TR, C], pl.FP32],
          rows: pl.Tensor[[1, R], pl.INT32],
          sel: pl.Out[T32], sels: pl.Out[T32], cmps: pl.Out[T32], sin: pl.Out[T32], cos: pl.Out[T32],
          lrelu: pl.Out[T32], prelu: pl.Out[T32], mx: pl.Out[T32], mn: pl.Out[T32], tri: pl.Out[T32],
          ext: pl.Out[pl.Tensor[[8, 32], pl.FP32]], gmask: pl.Out[pl.Tensor[[R, 32], pl.FP32]],
          gb: pl.Out[T32], mg: pl.Out[T32], pad: pl.Out[T32], rs: pl.Out[T32]):
        m = pl.tensor.cmp(x, y, cmp_type=2)                 # 1/0 values of x < y
        sel[:, :] = pl.tensor.sel(m, x, y)
        sels[:, :] = pl.tensor.sels(m, x, 0.5)
        cmps[:, :] = pl.tensor.cmps(x, 0.0, cmp_type=4)     # 1/0 values of x > 0
        sin[:, :] = pl.tensor.sin(x)
        cos[:, :] = pl.tensor.cos(x)
        lrelu[:, :] = pl.tensor.lrelu(x, 0.1)
        prelu[:, :] = pl.tensor.prelu(x, y)
        mx[:, :] = pl.tensor.maximums(x, 0.25)
        mn[:, :] = pl.tensor.minimums(x, 0.25)
        tri[:, :] = pl.tensor.tri(1, [R, C], dtype=pl.FP32)
        ext[:, :] = pl.tensor.extract(x, 2, 8, [8, 32], target_memory=pl.Mem.Vec)
        gmask[:, :] = pl.tensor.gather_mask(x, pl.tile.MaskPattern.P0101)
        gb[:, :] = pl.tensor.gatherb(x, offs)
        mg[:, :] = pl.tensor.mgather(table, rows)
        pad[:, :] = pl.tensor.fillpad_inplace(pl.load(x, [0, 0], [R, C], valid_shape=[10, 40]),
                                              pad_value=pl.PadValue.max)
        rs[:, :] = pl.rsqrt(pl.tensor.abs(x), high_precision=True)     # the compiler makes rsqrt's tmp
        return sel

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T32, y: T32, offs: pl.Tensor[[R, 8], pl.UINT32], table: pl.Tensor[[TR, C], pl.FP32],
             rows: pl.Tensor[[1, R], pl.INT32],
             sel: pl.Out[T32], sels: pl.Out[T32], cmps: pl.Out[T32], sin: pl.Out[T32], cos: pl.Out[T32],
             lrelu: pl.Out[T32], prelu: pl.Out[T32], mx: pl.Out[T32], mn: pl.Out[T32], tri: pl.Out[T32],
             ext: pl.Out[pl.Tensor[[8, 32], pl.FP32]], gmask: pl.Out[pl.Tensor[[R, 32], pl.FP32]],
             gb: pl.Out[T32], mg: pl.Out[T32], pad: pl.Out[T32], rs: pl.Out[T32]):
        sel = self.k(x, y, offs, table, rows, sel, sels, cmps, sin, cos, lrelu, prelu, mx, mn, tri, ext, gmask,
                     gb, mg, pad, rs)
        return sel


@pl.program
class TensorTransposeView:
    """pl.tensor.transpose_view of a tensor: a Mat load viewed ZN, the matmul's right operand: a @ b.T."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        out[:, :] = pl.matmul(a, pl.tensor.transpose_view(b))
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        out = self.k(a, b, out)
        return out


@pl.program
class TensorFormsGolden:
    """One kernel for the .pto golden: a value-mask sel (cmps ne + tsel with a made tmp), prelu and
    rsqrt(high_precision=True) with compiler-made scratch."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        s = pl.tensor.sel(pl.tensor.cmp(x, y, cmp_type=2), x, y)
        out[:, :] = pl.rsqrt(pl.tensor.prelu(s, y), high_precision=True)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        out = self.k(x, y, out)
        return out
