"""Loop-carried tiles whose valid region changes from one iteration to the next (issue 13): the
loop carries the extents, so uses in the next iteration and after the loop see the region the
last iteration left.  x is [NB * TR, C]; its first n rows are meaningful (a run-time scalar), so
the last row block loads a tail of n - (nb - 1) * TR rows."""
import ptokit.language as pl

TR, C, NB = 64, 128, 4
R = NB * TR


@pl.program
class Tail:
    """The row blocks of x, the last one a tail (rows < TR): the block left after the loop is stored
    (y) and summed by rows (ys); backward, the tail first and block 0 last (yb: all TR rows)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], nb: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[TR, C], pl.FP32]], ys: pl.Out[pl.Tensor[[TR, 1], pl.FP32]],
          yb: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        t = pl.load(x, [0, 0], [TR, C], valid_shape=[pl.min(TR, n), C])
        for i in pl.range(1, nb):
            rows = pl.min(TR, n - i * TR)
            t = pl.load(x, [i * TR, 0], [TR, C], valid_shape=[rows, C])
        y = pl.store(t, [0, 0], y)
        ys = pl.store(pl.row_sum(t), [0, 0], ys)
        last = nb - 1
        b = pl.load(x, [last * TR, 0], [TR, C], valid_shape=[n - last * TR, C])
        for j in pl.range(1, nb):
            b = pl.load(x, [(last - j) * TR, 0], [TR, C])
        yb = pl.store(b, [0, 0], yb)
        return y, ys, yb

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], nb: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[TR, C], pl.FP32]], ys: pl.Out[pl.Tensor[[TR, 1], pl.FP32]],
             yb: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        y, ys, yb = self.k(x, n, nb, y, ys, yb)
        return y, ys, yb


@pl.program
class Accumulate:
    """acc = block 0; for blocks i = 1 .. NB - 1, with TR - i * d valid rows: the row sums of the
    region acc holds at the top of the iteration go to ys (block i - 1), then acc = block i + acc
    over block i's rows; y = acc after the loop (its last region)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], d: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[TR, C], pl.FP32]], ys: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        acc = pl.load(x, [0, 0], [TR, C])
        for i in pl.range(1, NB):
            ys = pl.store(pl.row_sum(acc), [(i - 1) * TR, 0], ys)
            t = pl.load(x, [i * TR, 0], [TR, C], valid_shape=[TR - i * d, C])
            acc = pl.add(t, acc)
        y = pl.store(acc, [0, 0], y)
        return y, ys

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], d: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[TR, C], pl.FP32]], ys: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        y, ys = self.k(x, d, y, ys)
        return y, ys


@pl.program
class While:
    """Tail with pl.while_: the carried block and its index; the test sees the last block."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        t0 = pl.load(x, [0, 0], [TR, C], valid_shape=[pl.min(TR, n), C])
        for (i, t) in pl.while_(init_values=(1, t0)):
            pl.cond(i * TR < n)
            t1 = pl.load(x, [i * TR, 0], [TR, C], valid_shape=[pl.min(TR, n - i * TR), C])
            i2, t2 = pl.yield_(i + 1, t1)
        y = pl.store(t2, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class Nested:
    """Two nested loops over the row blocks (outer: pairs of blocks, inner: the pair's two), the
    last block a tail; the tile is carried out of both, and summed by rows after each outer step."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[TR, C], pl.FP32]], ys: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        t = pl.load(x, [0, 0], [TR, C])
        for p in pl.range(NB // 2):
            for q in pl.range(2):
                blk = p * 2 + q
                t = pl.load(x, [blk * TR, 0], [TR, C], valid_shape=[pl.max(pl.min(TR, n - blk * TR), 1), C])
            ys = pl.store(pl.row_sum(t), [p * TR, 0], ys)
        y = pl.store(t, [0, 0], y)
        return y, ys

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[TR, C], pl.FP32]], ys: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        y, ys = self.k(x, n, y, ys)
        return y, ys


@pl.program
class Steady:
    """A loop-carried tile whose region does not change (a static valid_shape every iteration):
    its .pto is the same as before loop-carried extents existed."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        acc = pl.load(x, [0, 0], [TR, C], valid_shape=[16, C])
        for i in pl.range(1, NB):
            acc = pl.add(acc, pl.load(x, [i * TR, 0], [TR, C], valid_shape=[16, C]))
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class YieldSwap:
    """pl.yield_(b, a + b) binds both names from the values before the yield (Fibonacci: a is 5
    after five rounds), and a tile's valid rows follow the carried a: y = x[:a] + a."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        t0 = pl.load(x, [0, 0], [TR, C], valid_shape=[1, C])
        for i, (a, b, t) in pl.range(5, init_values=(0, 1, t0)):
            t1 = pl.load(x, [0, 0], [TR, C], valid_shape=[b, C])
            a2, b2, t2 = pl.yield_(b, a + b, t1)
        y = pl.store(pl.adds(t2, pl.cast(a2, pl.FP32)), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[TR, C], pl.FP32]]):
        y = self.k(x, y)
        return y


MT, MK, MN = 16, 32, 48


@pl.program
class MatmulTail:
    """An Acc carried through a loop over row blocks of a [NB * MT, MK] @ [MK, MN], each block's
    Left with run-time valid rows (the last one n - 2 * MT): y, stored from the Acc after the loop,
    holds the last block's rows of the product."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[3 * MT, MK], pl.FP16], b: pl.Tensor[[MK, MN], pl.FP16], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[MT, MN], pl.FP32]]):
        r = pl.move(pl.load(b, [0, 0], [MK, MN], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(pl.move(pl.load(a, [0, 0], [MT, MK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left), r)
        for i in pl.range(1, 3):
            l = pl.move(pl.load(a, [i * MT, 0], [MT, MK], valid_shape=[pl.min(MT, n - i * MT), MK],
                                target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            acc = pl.matmul(l, r)
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[3 * MT, MK], pl.FP16], b: pl.Tensor[[MK, MN], pl.FP16], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[MT, MN], pl.FP32]]):
        y = self.k(a, b, n, y)
        return y
