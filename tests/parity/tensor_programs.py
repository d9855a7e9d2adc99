"""A5, A7, A11, A12, F: tensor-level code inside kernels, N-D windows, loads past the edge.
New programs go at the end of this file."""
import ptokit.language as pl


@pl.program
class TensorOps:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[32, 1], pl.FP32], c: pl.Tensor[[1, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        y = pl.abs(x)                         # a whole tensor is loaded
        z = pl.add(y, x[0:32, :])             # so is a window
        s = pl.row_sum(z)                     # tmp_tile made by the compiler
        d = pl.sub(z, s)                      # [32, 64] - [32, 1]: row_expand_sub
        e = pl.mul(d, w)                      # a [32, 1] tensor broadcasts too
        f = pl.add(e, c)                      # [1, 64]: col_expand_add
        out[:] = f
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[32, 1], pl.FP32], c: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        out = self.k(x, w, c, out)
        return out


@pl.program
class WindowsAndSlices:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        left = pl.exp(x[:, 0:32])             # a column window
        out = pl.assemble(out, left, [0, 32])  # assemble into a tensor: a store
        t = pl.load(x, [0, 0], [32, 32])
        top = t[0:16, :]                      # a tile slice
        buf = pl.create_tensor([32, 32], dtype=pl.FP32)   # on-chip scratch
        buf = pl.muls(t, 0.0)
        buf[16:32, :] = pl.neg(top)           # assemble into a tile
        buf[0:16, :] = pl.adds(top, 1.0)
        out[:, 0:32] = buf
        row = pl.muls(x[3], 10.0)             # x[i]: one row
        out[31:32, 32:64] = row[:, 0:32]
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        out = self.k(x, out)
        return out


@pl.program
class MatmulThenVector:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        acc = pl.matmul(a, b)                 # Mat loads, moves to Left/Right
        out[:] = pl.exp(pl.muls(acc, 0.125))  # the vector side: the kernel becomes mixed
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        out = self.k(a, b, out)
        return out


@pl.program
class NdWindows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16, 64], pl.FP32], y: pl.Out[pl.Tensor[[4, 16, 64], pl.FP32]]):
        for b in pl.range(2):
            t = pl.load(x, [b * 2, 0, 0], [2, 16, 64])     # a [32, 64] tile: rows in (b, r) order
            u = pl.muls(t, 2.0)
            y[b * 2:b * 2 + 2, :, :] = u
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16, 64], pl.FP32], y: pl.Out[pl.Tensor[[4, 16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class PastTheEdge:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[48, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [64, 64], valid_shape=[48, 64])
        t = pl.fillpad(t, pad_value=pl.PadValue.zero)
        y = pl.store(pl.adds(t, 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[48, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.jit
def jit_tensor_level(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:, 0:32] = pl.exp(x[:, 32:64])
        out[:, 32:64] = pl.sub(x[:, 0:32], pl.row_max(x[:, 0:32]))
    return out


@pl.program
class TensorCompares:
    """F: a comparison of tensors in kernel code is 1/0 values in the operand's dtype (cmp + sels);
    on tiles it stays the packed mask that pl.tile.sel reads."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], i: pl.Tensor[[16, 64], pl.INT32],
          gt: pl.Out[pl.Tensor[[16, 64], pl.FP32]], le: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
          pick: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        gt = pl.assemble(gt, pl.cmp(a, b, cmp_type=4), [0, 0])
        le = pl.assemble(le, pl.cmp(i, 3, cmp_type=3), [0, 0])       # scalar rhs: cmps
        ta, tb = pl.load(a, [0, 0], [16, 64]), pl.load(b, [0, 0], [16, 64])
        tmp = pl.create_tile([1, 32], dtype=pl.UINT8)
        pick = pl.store(pl.tile.sel(pl.cmp(ta, tb, cmp_type=2), ta, tb, tmp), [0, 0], pick)   # min(a, b)
        return gt, le, pick

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], i: pl.Tensor[[16, 64], pl.INT32],
             gt: pl.Out[pl.Tensor[[16, 64], pl.FP32]], le: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
             pick: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        gt, le, pick = self.k(a, b, i, gt, le, pick)
        return gt, le, pick


@pl.program
class ReturnedTiles:
    """F: a kernel returning an on-chip value stores it to an added Out; a caller that leaves that
    output out gets a new tensor for it, one that passes it gets it written."""
    @pl.function(type=pl.FunctionType.InCore)
    def absval(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = pl.abs(a)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def plus1(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.assemble(y, pl.adds(a, 1.0), [0, 0])
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = self.absval(a)                  # the runtime allocates the kernel's output
        y = self.plus1(t, y)
        z = self.absval(y, z)               # ... or the caller passes it
        return y, z


@pl.program
class ReturnsDisagree:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        if n > 0:
            return pl.abs(a)
        return pl.cast(pl.abs(a), pl.FP16)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
        t = self.k(a, n)
        return t


@pl.program
class TensorGathers:
    """F: pl.tensor.gather / pl.gather, index form (torch.gather on the last axis, INT32 and INT16
    indices) and mask form."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], h: pl.Tensor[[8, 64], pl.FP16],
          i16: pl.Tensor[[8, 16], pl.INT16], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
          yh: pl.Out[pl.Tensor[[8, 16], pl.FP16]], ym: pl.Out[pl.Tensor[[8, 32], pl.FP32]]):
        y = pl.assemble(y, pl.tensor.gather(x, -1, idx), [0, 0])
        yh = pl.assemble(yh, pl.gather(h, dim=-1, index=i16), [0, 0])
        ym = pl.assemble(ym, pl.tensor.gather(x, mask_pattern=pl.tile.MaskPattern.P0101), [0, 0])
        return y, yh, ym

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], h: pl.Tensor[[8, 64], pl.FP16],
             i16: pl.Tensor[[8, 16], pl.INT16], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
             yh: pl.Out[pl.Tensor[[8, 16], pl.FP16]], ym: pl.Out[pl.Tensor[[8, 32], pl.FP32]]):
        y, yh, ym = self.k(x, idx, h, i16, y, yh, ym)
        return y, yh, ym


@pl.program
class TensorGathersNd:
    """F: pl.tensor.gather as torch.gather on any axis of rank 2 and 3 tensors, with an index of fewer
    rows than the input, and of fewer than 8 rows (offsets built row by row)."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16], pl.FP32], i2: pl.Tensor[[4, 8], pl.INT32], i2s: pl.Tensor[[2, 8], pl.INT32],
          i2r: pl.Tensor[[3, 16], pl.INT32], x3: pl.Tensor[[2, 4, 8], pl.FP32], i30: pl.Tensor[[2, 3, 8], pl.INT32],
          i31: pl.Tensor[[2, 3, 8], pl.INT32], i32: pl.Tensor[[2, 3, 8], pl.INT32],
          y2: pl.Out[pl.Tensor[[4, 8], pl.FP32]], y2s: pl.Out[pl.Tensor[[2, 8], pl.FP32]],
          y2r: pl.Out[pl.Tensor[[3, 16], pl.FP32]], y30: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]],
          y31: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]], y32: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]]):
        y2 = pl.assemble(y2, pl.tensor.gather(x, -1, i2), [0, 0])
        y2s = pl.assemble(y2s, pl.gather(x, dim=1, index=i2s), [0, 0])
        y2r = pl.assemble(y2r, pl.tensor.gather(x, 0, i2r), [0, 0])
        y30 = pl.assemble(y30, pl.tensor.gather(x3, -3, i30), [0, 0, 0])
        y31 = pl.assemble(y31, pl.tensor.gather(x3, 1, i31), [0, 0, 0])
        y32 = pl.assemble(y32, pl.tensor.gather(x3, 2, i32), [0, 0, 0])
        return y2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32], i2: pl.Tensor[[4, 8], pl.INT32], i2s: pl.Tensor[[2, 8], pl.INT32],
             i2r: pl.Tensor[[3, 16], pl.INT32], x3: pl.Tensor[[2, 4, 8], pl.FP32], i30: pl.Tensor[[2, 3, 8], pl.INT32],
             i31: pl.Tensor[[2, 3, 8], pl.INT32], i32: pl.Tensor[[2, 3, 8], pl.INT32],
             y2: pl.Out[pl.Tensor[[4, 8], pl.FP32]], y2s: pl.Out[pl.Tensor[[2, 8], pl.FP32]],
             y2r: pl.Out[pl.Tensor[[3, 16], pl.FP32]], y30: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]],
             y31: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]], y32: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]]):
        y2 = self.k(x, i2, i2s, i2r, x3, i30, i31, i32, y2, y2s, y2r, y30, y31, y32)
        return y2


@pl.program
class GatherBigIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        y = pl.assemble(y, pl.tensor.gather(x, -1, idx), [0, 0])
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        y = self.k(x, idx, y)
        return y


@pl.program
class GatherBadAxis:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        y = pl.assemble(y, pl.tensor.gather(x, 2, idx), [0, 0])
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        y = self.k(x, idx, y)
        return y


@pl.program
class GatherCompareForm:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        y = pl.assemble(y, pl.tensor.gather(x, kvalue=1.0, cmp_mode=0, out_cols=16), [0, 0])
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        y = self.k(x, idx, y)
        return y


@pl.program
class TensorScatters:
    """F: pl.tensor.scatter / pl.scatter, index form (INT32 index for FP32, INT16 for FP16) and mask
    form; pl.tensor.ci."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], s: pl.Tensor[[8, 16], pl.FP32],
          h: pl.Tensor[[8, 64], pl.FP16], i16: pl.Tensor[[8, 16], pl.INT16], sh: pl.Tensor[[8, 16], pl.FP16],
          m: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
          yh: pl.Out[pl.Tensor[[8, 64], pl.FP16]], ym: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
          r: pl.Out[pl.Tensor[[1, 64], pl.INT32]]):
        y = pl.assemble(y, pl.tensor.scatter(x, -1, idx, s), [0, 0])
        yh = pl.assemble(yh, pl.scatter(h, dim=-1, index=i16, src=sh), [0, 0])
        ym = pl.assemble(ym, pl.tensor.scatter(m, mask_pattern=pl.tile.MaskPattern.P0101, dst=x), [0, 0])
        r = pl.assemble(r, pl.tensor.ci(5, [1, 64], dtype=pl.INT32), [0, 0])
        return y, yh, ym, r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32], s: pl.Tensor[[8, 16], pl.FP32],
             h: pl.Tensor[[8, 64], pl.FP16], i16: pl.Tensor[[8, 16], pl.INT16], sh: pl.Tensor[[8, 16], pl.FP16],
             m: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
             yh: pl.Out[pl.Tensor[[8, 64], pl.FP16]], ym: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
             r: pl.Out[pl.Tensor[[1, 64], pl.INT32]]):
        y, yh, ym, r = self.k(x, idx, s, h, i16, sh, m, y, yh, ym, r)
        return y, yh, ym, r


@pl.program
class OneRowGatherScatter:
    """F: pl.tensor.gather / pl.tensor.scatter of a single row (the flat offsets need no row base)."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 64], pl.FP32], idx: pl.Tensor[[1, 16], pl.INT32], s: pl.Tensor[[1, 16], pl.FP32],
          g: pl.Out[pl.Tensor[[1, 16], pl.FP32]], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        g = pl.assemble(g, pl.tensor.gather(x, dim=-1, index=idx), [0, 0])
        y = pl.assemble(y, pl.tensor.scatter(x, -1, idx, s), [0, 0])
        return g, y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 64], pl.FP32], idx: pl.Tensor[[1, 16], pl.INT32], s: pl.Tensor[[1, 16], pl.FP32],
             g: pl.Out[pl.Tensor[[1, 16], pl.FP32]], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        g, y = self.k(x, idx, s, g, y)
        return g, y
