"""Programs of the views-and-layouts family: transpose, transpose_view, reinterpret_view,
set_validshape, extract, create_tile(transpose=/flat_layout=), move(blayout=, slayout=)."""
import ptokit.language as pl

R, C = 32, 64            # transpose source tiles (every dtype's rows and columns are whole 32 bytes)
VR, VC = 20, 40          # their valid region


def make_transpose3(d0, d1, d2):
    """Three dtypes in one kernel: y_k = transpose of the valid [VR, VC] region of x_k."""

    @pl.program
    class Transpose3:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x0: pl.Tensor[[R, C], d0], x1: pl.Tensor[[R, C], d1], x2: pl.Tensor[[R, C], d2],
              y0: pl.Out[pl.Tensor[[C, R], d0]], y1: pl.Out[pl.Tensor[[C, R], d1]],
              y2: pl.Out[pl.Tensor[[C, R], d2]]):
            t0 = pl.load(x0, [0, 0], [R, C], valid_shape=[VR, VC])
            t1 = pl.load(x1, [0, 0], [R, C], valid_shape=[VR, VC])
            t2 = pl.load(x2, [0, 0], [R, C], valid_shape=[VR, VC])
            y0 = pl.store(pl.transpose(t0, 0, 1), [0, 0], y0)
            y1 = pl.store(pl.tile.transpose(tile=t1, axis1=-1, axis2=-2), [0, 0], y1)
            y2 = pl.store(pl.transpose(t2, 1, 0, tmp_tile=pl.tile.create([R, C], d2)), [0, 0], y2)
            return y0

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x0: pl.Tensor[[R, C], d0], x1: pl.Tensor[[R, C], d1], x2: pl.Tensor[[R, C], d2],
                 y0: pl.Out[pl.Tensor[[C, R], d0]], y1: pl.Out[pl.Tensor[[C, R], d1]],
                 y2: pl.Out[pl.Tensor[[C, R], d2]]):
            y0 = self.k(x0, x1, x2, y0, y1, y2)
            return y0

    return Transpose3


@pl.program
class VecViews:
    """reinterpret_view (same size, narrower, wider, shape=), set_validshape (static and runtime),
    a Vec->Vec extract."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, f: pl.Tensor[[8, 64], pl.FP32], h: pl.Tensor[[8, 64], pl.FP16], i: pl.Tensor[[8, 16], pl.INT32],
          n: pl.Scalar[pl.INDEX],
          bits: pl.Out[pl.Tensor[[8, 64], pl.INT32]], halves: pl.Out[pl.Tensor[[8, 128], pl.INT8]],
          wide: pl.Out[pl.Tensor[[8, 32], pl.FP16]], rows16: pl.Out[pl.Tensor[[16, 64], pl.INT16]],
          narrow: pl.Out[pl.Tensor[[8, 64], pl.FP32]], dyn: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
          sub: pl.Out[pl.Tensor[[4, 32], pl.FP32]]):
        tf = pl.load(f, [0, 0], [8, 64], valid_shape=[5, 40])
        th = pl.load(h, [0, 0], [8, 64])
        ti = pl.load(i, [0, 0], [8, 16])
        bits = pl.store(pl.reinterpret_view(tf, pl.INT32), [0, 0], bits)
        halves = pl.store(pl.tile.reinterpret_view(th, pl.INT8), [0, 0], halves)
        wide = pl.store(pl.reinterpret_view(ti, pl.FP16), [0, 0], wide)
        full = pl.load(f, [0, 0], [8, 64])
        rows16 = pl.store(pl.reinterpret_view(full, pl.INT16, shape=[16, 64]), [0, 0], rows16)
        narrow = pl.store(pl.set_validshape(full, 3, 24), [0, 0], narrow)
        again = pl.load(f, [0, 0], [8, 64])
        dyn = pl.store(pl.tile.set_validshape(again, n, 16), [0, 0], dyn)
        sub = pl.store(pl.tile.extract(full, 2, 8, [4, 32], target_memory=pl.Mem.Vec), [0, 0], sub)
        return bits

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, f: pl.Tensor[[8, 64], pl.FP32], h: pl.Tensor[[8, 64], pl.FP16], i: pl.Tensor[[8, 16], pl.INT32],
             n: pl.Scalar[pl.INDEX],
             bits: pl.Out[pl.Tensor[[8, 64], pl.INT32]], halves: pl.Out[pl.Tensor[[8, 128], pl.INT8]],
             wide: pl.Out[pl.Tensor[[8, 32], pl.FP16]], rows16: pl.Out[pl.Tensor[[16, 64], pl.INT16]],
             narrow: pl.Out[pl.Tensor[[8, 64], pl.FP32]], dyn: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
             sub: pl.Out[pl.Tensor[[4, 32], pl.FP32]]):
        bits = self.k(f, h, i, n, bits, halves, wide, rows16, narrow, dyn, sub)
        return bits


M, K, N = 16, 32, 16


@pl.program
class CubeLayouts:
    """Layouts the cube reads through, each checked by a matmul:
    y_view  = a @ bt with bt a transpose_view of b [N, K] (NZ) -> [K, N] (ZN) moved to Right;
    y_zn    = a @ c  with c assembled into a create_tile(transpose=True) Mat tile;
    y_right = a @ c  with c moved to Right with the transposed (col_major, row_major) layout;
    y_flat  = a @ c  with c assembled into a flat Mat tile;
    y_ext   = a2[:, K:] @ c2[:, N:] with both operands extracted (Mat -> Left, Mat -> Right);
    y_acc   = (a @ c) @ I with the product extracted Acc -> Mat and moved to Left."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[N, K], pl.FP16], c: pl.Tensor[[K, N], pl.FP16],
          a2: pl.Tensor[[M, 2 * K], pl.FP16], c2: pl.Tensor[[K, 2 * N], pl.FP16], eye: pl.Tensor[[N, N], pl.FP32],
          y_view: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_zn: pl.Out[pl.Tensor[[M, N], pl.FP32]],
          y_right: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_flat: pl.Out[pl.Tensor[[M, N], pl.FP32]],
          y_ext: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_acc: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        left = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.load(b, [0, 0], [N, K], target_memory=pl.Mem.Mat)
        y_view = pl.store(pl.matmul(left, pl.move(pl.tile.transpose_view(tb), target_memory=pl.Mem.Right)), [0, 0],
                          y_view)
        tc = pl.load(c, [0, 0], [K, N], target_memory=pl.Mem.Mat)
        zn = pl.tile.create([K, N], pl.FP16, target_memory=pl.Mem.Mat, transpose=True)
        zn = pl.assemble(zn, tc, [0, 0])
        y_zn = pl.store(pl.matmul(left, pl.move(zn, target_memory=pl.Mem.Right)), [0, 0], y_zn)
        rt = pl.move(tc, target_memory=pl.Mem.Right, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
        y_right = pl.store(pl.matmul(left, rt), [0, 0], y_right)
        flat = pl.create_tile([K, N], pl.FP16, pl.Mem.Mat, flat_layout=True)
        flat = pl.assemble(flat, tc, [0, 0])
        y_flat = pl.store(pl.matmul(left, pl.move(flat, target_memory=pl.Mem.Right)), [0, 0], y_flat)
        ta2 = pl.load(a2, [0, 0], [M, 2 * K], target_memory=pl.Mem.Mat)
        half = pl.tile.extract(ta2, 0, K, [M, K], target_memory=pl.Mem.Left)
        tc2 = pl.load(c2, [0, 0], [K, 2 * N], target_memory=pl.Mem.Mat)
        y_ext = pl.store(pl.matmul(half, pl.tile.extract(tc2, 0, N, [K, N], target_memory=pl.Mem.Right)), [0, 0],
                         y_ext)
        prod = pl.matmul(left, pl.move(tc, target_memory=pl.Mem.Right))
        back = pl.tile.extract(prod, 0, 0, [M, N], target_memory=pl.Mem.Mat)
        ident = pl.move(pl.load(eye, [0, 0], [N, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y_acc = pl.store(pl.matmul(pl.move(back, target_memory=pl.Mem.Left), ident), [0, 0], y_acc)
        return y_view

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[N, K], pl.FP16], c: pl.Tensor[[K, N], pl.FP16],
             a2: pl.Tensor[[M, 2 * K], pl.FP16], c2: pl.Tensor[[K, 2 * N], pl.FP16],
             eye: pl.Tensor[[N, N], pl.FP32], y_view: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_zn: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             y_right: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_flat: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             y_ext: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_acc: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y_view = self.k(a, b, c, a2, c2, eye, y_view, y_zn, y_right, y_flat, y_ext, y_acc)
        return y_view
