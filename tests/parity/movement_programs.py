"""A13: memory-space-free tile annotations, the Mat->Vec hand-over, an Acc tile assembled into a Mat tile."""
import ptokit.language as pl


@pl.program
class SpaceFreeAnnotations:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta: pl.Tile[[64, 64], pl.FP16] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[64, 64], pl.FP16] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[64, 64], pl.FP32] = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left),
                                                   pl.move(tb, target_memory=pl.Mem.Right))
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, y)
        return y


@pl.program
class MatToVec:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP16]]):
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        v = pl.move(ta, target_memory=pl.Mem.Vec)              # the cube hands the tile to the vector core
        y = pl.store(pl.adds(v, 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP16]]):
        y = self.k(a, y)
        return y


@pl.program
class AccIntoMat:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16], c: pl.Tensor[[32, 32], pl.FP16],
          y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        la = pl.move(pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rb = pl.move(pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(la, rb)
        m = pl.create_tile([32, 32], dtype=pl.FP16, target_memory=pl.Mem.Mat)
        m = pl.tile.assemble(m, acc, [0, 0])                   # FP32 Acc narrowed into the FP16 Mat tile
        rc = pl.move(pl.load(c, [0, 0], [32, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(pl.move(m, target_memory=pl.Mem.Left), rc), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16], c: pl.Tensor[[32, 32], pl.FP16],
             y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        y = self.k(a, b, c, y)
        return y


@pl.program
class AnnotationShapeStillChecked:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP16]]):
        ta: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        y = pl.store(ta, [0, 0], y)
        return y


@pl.program
class VecIntoMat:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP16], y: pl.Out[pl.Tensor[[32, 32], pl.FP16]]):
        v = pl.load(a, [0, 0], [32, 32])
        m = pl.create_tile([32, 32], dtype=pl.FP16, target_memory=pl.Mem.Mat)
        m = pl.tile.assemble(m, v, [0, 0])
        y = pl.store(m, [0, 0], y)
        return y


@pl.program
class ClampedLoads:
    """A7: clamp=True cuts a window that runs past the tensor back to its edge (constant and run-time
    offsets); with valid_shape= the valid region is what is cut."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[48, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.fillpad(pl.load(x, [16, 0], [64, 64], clamp=True), pad_value=pl.PadValue.zero)        # rows 16..47
        u = pl.fillpad(pl.load(x, [n, 0], [64, 64], clamp=True), pad_value=pl.PadValue.zero)         # rows n..47
        w = pl.fillpad(pl.load(x, [40, 32], [64, 32], valid_shape=[4, 32], clamp=True),
                       pad_value=pl.PadValue.zero)                                                     # 4 rows fit
        y = pl.store(pl.add(t, u), [0, 0], y)
        y = pl.store(w, [0, 32], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[48, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class UnclampedOverrun:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[48, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(x, [16, 0], [64, 64])
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[48, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class ClampNotABool:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[48, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [64, 64], clamp=n)
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[48, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class TileViews:
    """B: pl.TileView(valid_shape=...) in an assignment's annotation gives the tile its valid region
    (run-time rows here); one that restates the value's own region changes nothing."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.load(x, [0, 0], [16, 64])
        t = pl.fillpad(t, pad_value=pl.PadValue.zero)
        u: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[16, 64])] = pl.adds(t, 1.0)
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class TileViewPlacement:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[8, 64], fractal=1024)] = pl.load(x, [0, 0], [16, 64])
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
