"""Module-level @pl.function s for the program-object tests (parsed from this file's source)."""
import ptokit.language as pl


@pl.function(type=pl.FunctionType.InCore)
def scale(x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    t = pl.load(x, [0, 0], [32, 32])
    out = pl.store(pl.muls(t, 2.0), [0, 0], out)
    return out


@pl.function(type=pl.FunctionType.InCore)
def broken(x: pl.Tensor[[32, 32], pl.FP32]):
    t = pl.no_such_op(x)
    return t
