"""Expand ops (row/col broadcast combined with a tile), for every dtype the tests run."""
import ptokit.language as pl


def make_expand_ops(dtype, rows=16, cols=64):
    @pl.program
    class ExpandOps:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, cols], dtype], r: pl.Tensor[[rows, 1], dtype], c: pl.Tensor[[1, cols], dtype],
              y: pl.Out[pl.Tensor[[4 * rows, cols], dtype]]):
            t = pl.load(a, [0, 0], [rows, cols])
            rv = pl.load(r, [0, 0], [rows, 1])
            cv = pl.load(c, [0, 0], [1, cols])
            y = pl.store(pl.row_expand_max(t, rv), [0, 0], y)
            y = pl.store(pl.tile.row_expand_min(t, row_vec=rv), [rows, 0], y)
            y = pl.store(pl.col_expand_max(t, cv), [2 * rows, 0], y)
            y = pl.store(pl.col_expand_min(tile=t, col_vec=cv), [3 * rows, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, cols], dtype], r: pl.Tensor[[rows, 1], dtype],
                 c: pl.Tensor[[1, cols], dtype], y: pl.Out[pl.Tensor[[4 * rows, cols], dtype]]):
            y = self.k(a, r, c, y)
            return y

    return ExpandOps


@pl.program
class Broadcasts:
    """pypto's argument order: row_expand(target, row_vec), col_expand(target, col_vec); one
    argument broadcasts the tile's own first column / first row."""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], r: pl.Tensor[[16, 1], pl.FP32], c: pl.Tensor[[1, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        rv = pl.load(r, [0, 0], [16, 1])
        cv = pl.load(c, [0, 0], [1, 64])
        y = pl.store(pl.row_expand(t, rv), [0, 0], y)
        y = pl.store(pl.tile.col_expand(target=t, col_vec=cv), [16, 0], y)
        y = pl.store(pl.row_expand(t), [32, 0], y)
        y = pl.store(pl.col_expand(t), [48, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], r: pl.Tensor[[16, 1], pl.FP32], c: pl.Tensor[[1, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, r, c, y)
        return y


@pl.program
class BroadcastWrongVector:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], c: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        cv = pl.load(c, [0, 0], [1, 64])
        y = pl.store(pl.row_expand(t, cv), [0, 0], y)
        return y


def make_col_expand(dtype, op: str, rows=16, cols=64):
    """One column expand pl.col_expand_<op>(tile, col_vec) of dtype (the element-type rule of its row)."""
    fn = getattr(pl, f"col_expand_{op}")

    @pl.program
    class ColExpand:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, cols], dtype], c: pl.Tensor[[1, cols], dtype],
              y: pl.Out[pl.Tensor[[rows, cols], dtype]]):
            t = pl.load(a, [0, 0], [rows, cols])
            cv = pl.load(c, [0, 0], [1, cols])
            y = pl.store(fn(t, cv), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, cols], dtype], c: pl.Tensor[[1, cols], dtype],
                 y: pl.Out[pl.Tensor[[rows, cols], dtype]]):
            y = self.k(a, c, y)
            return y

    return ColExpand
