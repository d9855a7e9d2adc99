"""Programs whose pl.at blocks name a tensor they write (``o2 = pl.store(t, [r, 0], o)``) and read
that name after the block: the name is the kernel's tensor parameter, written in place."""
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
    """A tile is not a tensor: naming it after its block stays a located error."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
            a: pl.Tile[[R, C], pl.FP32] = pl.load(x, [0, 0], [R, C])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            y = pl.store(a, [0, 0], y)
        return y
