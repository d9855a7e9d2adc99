"""Programs whose pl.at blocks name a tensor they write (``o2 = pl.store(t, [r, 0], o)``) and read
that name after the block: the name is the kernel's tensor parameter, written in place.  And blocks
whose computed values (tiles, tensor-level values, matmul accumulators) later blocks read: each
becomes an intermediate tensor (OutlineIncoreScopes)."""
import ptokit.language as pl

R, C, T = 64, 32, 16


@pl.program
class CarriedStore:
    """The block's named store is the value a loop carries (pypto's pl.at three-level form)."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        for p, (y_p,) in pl.range(2, init_values=(y,)):
            for b, (y_b,) in pl.parallel(R // T, init_values=(y_p,)):
                row: pl.Scalar[pl.INDEX] = b * T
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="stripe"):
                    t: pl.Tile[[T, C], pl.FP32] = pl.load(x, [row, 0], [T, C])
                    u: pl.Tile[[T, C], pl.FP32] = pl.add(t, 1.0)
                    y_next = pl.store(u, [row, 0], y_b)
                y_b_out = pl.yield_(y_next)
            y_p_out = pl.yield_(y_b_out)
        return y_p_out


@pl.program
class ChainedBlocks:
    """A second block reads what the first block's named store wrote."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], mid: pl.InOut[pl.Tensor[[R, C], pl.FP32]],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
            a: pl.Tile[[R, C], pl.FP32] = pl.load(x, [0, 0], [R, C])
            doubled = pl.store(pl.mul(a, 2.0), [0, 0], mid)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
            b: pl.Tile[[R, C], pl.FP32] = pl.load(doubled, [0, 0], [R, C])
            y = pl.store(pl.add(b, 3.0), [0, 0], y)
        return y


@pl.program
class TileAcross:
    """A tile one block loads and the next block stores crosses between them as an intermediate tensor."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
            a: pl.Tile[[R, C], pl.FP32] = pl.load(x, [0, 0], [R, C])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            y = pl.store(a, [0, 0], y)
        return y


M, K, N = 16, 64, 32


@pl.program
class ValuesAcross:
    """pypto's MLP shape: per output band, one block accumulates a matmul over K chunks, one computes
    a tensor-level value, a third combines both and assembles the band into the output."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 2 * K], pl.FP16], w: pl.Tensor[[2 * K, 2 * N], pl.FP16],
             v: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[M, 2 * N], pl.FP32]]) -> pl.Tensor[[M, 2 * N], pl.FP32]:
        for o in pl.parallel(0, 2 * N, N):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
                acc = pl.create_tensor([M, N], dtype=pl.FP32)
                for kb in pl.range(2):
                    k0 = kb * K
                    if k0 == 0:
                        acc = pl.matmul(a[:, k0:k0 + K], w[k0:k0 + K, o:o + N], out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, a[:, k0:k0 + K], w[k0:k0 + K, o:o + N])
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate"):
                g = pl.exp(pl.neg(v))
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="combine"):
                y = pl.assemble(y, pl.mul(acc, pl.add(g, 1.0)), [0, o])
        return y


@pl.program
class ScalarAcross:
    """A scalar a block computes stays in its kernel: reading it after the block is a located error."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
            half = pl.tensor.dim(x, 0) // 2
            y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            y = pl.store(pl.load(x, [half, 0], [T, C]), [0, 0], y)
        return y


@pl.program
class ReadAfterLoop:
    """A value a block computes in a loop body, read after the loop: a located error."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
                e = pl.exp(x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            y = pl.assemble(y, e, [0, 0])
        return y


@pl.program
class BandsThenRead:
    """pypto's projection shape: a tensor created once, filled band by band by blocks in a parallel
    loop, read after the loop (the runtime allocates it where it is created)."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        tmp = pl.create_tensor([R, C], dtype=pl.FP32)
        for b in pl.parallel(R // T):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="band"):
                tmp = pl.assemble(tmp, pl.exp(x[b * T:(b + 1) * T, :]), [b * T, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="drain"):
            y = pl.assemble(y, pl.adds(tmp, 1.0), [0, 0])
        return y
