"""Column tiles made by pl.full, and the expand ops that take them (issue 13, item 5).
New programs go at the end of this file."""
import ptokit.language as pl

R, C = 16, 64


@pl.program
class ColumnFull:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
          cols: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        m = pl.full([R, 1], pl.FP32, -1.0e30)          # a running row max, loop-carried
        acc = pl.full([R, C], pl.FP32, 0.0)
        for i in pl.range(4):
            t = pl.load(x, [i * R, 0], [R, C])
            tmp = pl.create_tile([R, C], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m = pl.maximum(m, pl.row_max(t, tmp))
            acc = pl.add(acc, t)
        two = pl.full([R, 1], pl.FP32, 2.0)
        u = pl.row_expand_mul(acc, two)                # acc * 2 per row
        u = pl.row_expand_sub(u, m)                    # - the row max
        b = pl.row_expand(acc, pl.adds(two, 1.0))      # a [R, C] tile of 3.0
        out = pl.store(pl.add(u, b), [0, 0], out)
        cols = pl.store(pl.mul(m, two), [0, 0], cols)
        return out, cols

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             cols: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        out, cols = self.k(x, out, cols)
        return out, cols


@pl.program
class ColumnFullTensorLevel:
    """pl.full in tensor-level kernel code: an INT32 and an FP32 column."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, C], pl.FP32], out: pl.Out[pl.Tensor[[8, C], pl.FP32]],
          n: pl.Out[pl.Tensor[[8, 1], pl.INT32]]):
        w = pl.full([8, 1], dtype=pl.FP32, value=0.5)
        y = pl.mul(x, w)                               # [8, C] * [8, 1]: row_expand_mul
        out[:] = y
        n[:] = pl.full([8, 1], dtype=pl.INT32, value=7)
        return out, n

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, C], pl.FP32], out: pl.Out[pl.Tensor[[8, C], pl.FP32]],
             n: pl.Out[pl.Tensor[[8, 1], pl.INT32]]):
        out, n = self.k(x, out, n)
        return out, n


@pl.program
class ExpandClone:
    """pl.expand_clone along each axis, and without a broadcast (a copy)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 4, 64], pl.FP32], b: pl.Tensor[[3, 1, 64], pl.FP32],
          c: pl.Tensor[[3, 4, 1], pl.FP32], d: pl.Tensor[[3, 4, 64], pl.FP32],
          o0: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]], o1: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]],
          o2: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]], o3: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]]):
        o0 = pl.expand_clone(a, o0)
        o1 = pl.tensor.expand_clone(b, o1)
        o2 = pl.expand_clone(c, target=o2)
        o3 = pl.expand_clone(d, o3)
        return o0, o1, o2, o3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[1, 4, 64], pl.FP32], b: pl.Tensor[[3, 1, 64], pl.FP32],
             c: pl.Tensor[[3, 4, 1], pl.FP32], d: pl.Tensor[[3, 4, 64], pl.FP32],
             o0: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]], o1: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]],
             o2: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]], o3: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]]):
        o0, o1, o2, o3 = self.k(a, b, c, d, o0, o1, o2, o3)
        return o0, o1, o2, o3


def _expand_clone_program(src, dst):
    """A kernel broadcasting a ``src``-shaped tensor into a ``dst``-shaped one (for the refusals)."""
    return pl.parse(f'''
import ptokit.language as pl

@pl.program
class E:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[{src}, pl.FP32], o: pl.Out[pl.Tensor[{dst}, pl.FP32]]):
        o = pl.expand_clone(a, o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[{src}, pl.FP32], o: pl.Out[pl.Tensor[{dst}, pl.FP32]]):
        o = self.k(a, o)
        return o
''', filename="expand_clone_case.py")


@pl.program
class ExpandCloneInOrchestration:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[1, 4, 64], pl.FP32], o: pl.Out[pl.Tensor[[3, 4, 64], pl.FP32]]):
        o = pl.expand_clone(a, o)
        return o


ROW, NONE = pl.TileLayout.row_major, pl.TileLayout.none_box


@pl.program
class TileViewRestated:
    """TileView placement fields that state what the tile is: honoured (checked), the valid region applied."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64], stride=[64, 1], start_offset=0,
                                                              blayout=ROW, slayout=NONE, fractal=512,
                                                              pad=pl.PadValue.null,
                                                              compact=pl.CompactMode.null)] = pl.load(x, [0, 0], [16, 64])
        c: pl.Tile[[16, 1], pl.FP32, pl.TileView(blayout=pl.TileLayout.col_major, stride=[1, 16])] = \
            pl.full([16, 1], pl.FP32, 1.0)
        f: pl.Tile[[16, 64], pl.FP32, pl.TileView(pad=pl.PadValue.zero)] = pl.tile.fillpad(t, pad_value=pl.PadValue.zero)
        y = pl.store(pl.row_expand_add(f, c), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, n, y)
        return y


def _view_program(view_src: str):
    """A one-kernel program whose loaded tile carries the given TileView (for the refusals)."""
    return pl.parse(f'''
import ptokit.language as pl

@pl.program
class V:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t: pl.Tile[[16, 64], pl.FP32, {view_src}] = pl.load(x, [0, 0], [16, 64])
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
''', filename="tileview_case.py")


V = pl.dynamic("V")


@pl.program
class TensorViewParams:
    """pl.Tensor[..., pl.TensorView(valid_shape=...)] parameters: loads see only the valid region;
    pl.ND / a TensorView restating ND and dense strides are the tensor as it is."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[10, 64], layout=pl.TensorLayout.ND)],
          w: pl.Tensor[[V, 64], pl.FP32, pl.TensorView(valid_shape=[V, 48], stride=[64, 1], layout=pl.ND)],
          b: pl.Tensor[[16, 64], pl.FP32, pl.ND],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], z: pl.Out[pl.Tensor[[V, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, 64])                      # valid [10, 64]
        y = pl.store(pl.tile.fillpad(t, pad_value=pl.PadValue.zero), [0, 0], y)
        u = pl.load(w, [0, 0], [16, 64])                      # valid [V, 48], cut at run time
        v = pl.tile.fillpad(pl.add(u, pl.load(b, [0, 0], [16, 64], valid_shape=[16, 64])), pad_value=pl.PadValue.zero)
        z = pl.store(v, [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[V, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], z: pl.Out[pl.Tensor[[V, 64], pl.FP32]]):
        y, z = self.k(x, w, b, y, z)
        return y, z


def _tensor_view_program(annot_src: str):
    """A one-kernel program whose input parameter is annotated ``annot_src`` (for the refusals)."""
    return pl.parse(f'''
import ptokit.language as pl

@pl.program
class T:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: {annot_src}, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
''', filename="tensorview_case.py")


@pl.program
class MixedDynamicValid:
    """A matmul result with n valid rows (n known at run time) handed to vector code and stored with that
    valid region: the region set on the vector side (a TileView) or on the cube side (set_validshape)."""

    @pl.function(type=pl.FunctionType.InCore)
    def vec_side(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        ta = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        v: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[n, 64])] = pl.move(acc, target_memory=pl.Mem.Vec)
        w = pl.muls(pl.adds(v, 1.0), 2.0)
        s = pl.full([16, 64], pl.FP32, 0.5)                  # a static tile next to the dynamic ones
        out = pl.store(pl.add(w, s), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def cube_side(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        ta = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        acc = pl.tile.set_validshape(acc, n, 64)
        v = pl.move(acc, target_memory=pl.Mem.Vec)
        out = pl.store(pl.exp(pl.muls(v, 0.125)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.vec_side(a, b, n, y)
        z = self.cube_side(a, b, n, z)
        return y, z


@pl.program
class TensorViewTensorLevel:
    """Tensor-level kernel code on a pl.TensorView(valid_shape=...) parameter loads only that region."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[6, 64], layout=pl.ND)],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y[:] = pl.tile.fillpad(pl.abs(x), pad_value=pl.PadValue.zero)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
