"""Forms met running pypto's own example programs unchanged (the compat-lang pass).
New programs go at the end of this file."""
import ptokit.language as pl

R, C = 16, 32


@pl.program
class ColumnScratchReductions:
    """Row reductions given a [rows, 1] scratch tile (pypto accepts it next to one of the input's shape)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        t = pl.load(x, [0, 0], [R, C])
        col = pl.create_tile([R, 1], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        full = pl.create_tile([R, C], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        hi = pl.row_max(t, col)
        lo = pl.row_min(t, col)
        total = pl.row_sum(t, full)
        u = pl.row_expand_sub(t, hi)             # x - max
        u = pl.row_expand_add(u, lo)             # + min
        u = pl.row_expand_mul(u, total)          # * sum
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = self.k(x, y)
        return y


def _scratch_program(scratch_shape):
    @pl.program
    class RowMaxScratch:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
            t = pl.load(x, [0, 0], [R, C])
            tmp = pl.create_tile(scratch_shape, dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m = pl.row_max(t, tmp)
            y = pl.store(m, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
            y = self.k(x, y)
            return y
    return RowMaxScratch


@pl.jit
def incore_blocks(x: pl.Tensor, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]):
    """Two `with pl.incore(...)` blocks (pypto's older spelling of a CORE_GROUP pl.at): the
    second reads what the first wrote, one has a split mode and a name hint."""
    with pl.incore():
        for r in pl.range(2):
            t = pl.load(x, [r * R, 0], [R, C])
            y = pl.store(pl.muls(pl.exp(t), 0.5), [r * R, 0], y)
    with pl.incore(pl.SplitMode.UP_DOWN, name_hint="second"):
        u = pl.load(y, [R, 0], [R, C])
        z = pl.store(pl.adds(u, 1.0), [0, 0], z)
    return y, z


@pl.program
class IncoreInOpaque:
    """pl.incore in an Opaque function (which it makes the orchestration), split given by keyword."""

    @pl.function
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        with pl.incore(split=pl.SplitMode.NONE):
            t = pl.load(x, [0, 0], [R, C])
            y = pl.store(pl.sub(t, pl.mul(t, t)), [0, 0], y)
        return y


def _incore_program(args):
    """A program whose kernel block is `with pl.incore(<args>):` (args: source text)."""
    return pl.parse(f'''
import ptokit.language as pl

@pl.program
class BadIncore:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        with pl.incore({args}):
            y = pl.store(pl.load(x, [0, 0], [16, 32]), [0, 0], y)
        return y
''', filename="incore_case.py")


@pl.program
class ReturnsCreatedTensor:
    """An orchestration without pl.Out parameters: it creates its result and returns it (pypto's
    harness passes that output after the inputs); a scratch it also creates stays inside."""

    @pl.function(type=pl.FunctionType.InCore)
    def half(self, a: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.muls(pl.load(a, [0, 0], [R, C]), 0.5), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def plus(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.add(pl.load(a, [0, 0], [R, C]), pl.load(b, [0, 0], [R, C])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R, C], pl.FP32]:
        scratch: pl.Tensor[[R, C], pl.FP32] = pl.create_tensor([R, C], dtype=pl.FP32)
        result: pl.Tensor[[R, C], pl.FP32] = pl.create_tensor([R, C], dtype=pl.FP32)
        scratch = self.half(a, scratch)
        result = self.plus(scratch, b, result)
        return result


@pl.program
class OlderStoreSpellings:
    """pypto's older spellings: pl.store(tile, offsets, shapes, output_tensor) positionally, and
    pl.l0c_store for a store from the accumulator (positional and by keyword)."""

    @pl.function(type=pl.FunctionType.InCore)
    def vec(self, a: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        t = pl.load(a, [0, 0], [R, C])
        y = pl.store(pl.neg(t), [0, 0], [R, C], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[R, R], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]], z: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [R, R], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [R, C], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(ta, tb)
        y = pl.l0c_store(acc, [0, 0], [R, C], y)
        z = pl.l0c_store(acc, offsets=[0, 0], shapes=[R, C], output_tensor=z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, R], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]], z: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             w: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y, z = self.cube(a, b, y, z)
        w = self.vec(b, w)
        return y, z, w
