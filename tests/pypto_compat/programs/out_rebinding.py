"""pypto style: a kernel that rebinds its pl.Out tensor, discarding the first write, is refused
with pypto's PartialCodegenError (the program catches it as pypto programs do)."""
import numpy as np
import pypto.language as pl
from pypto.backend.pto_backend import PartialCodegenError
from pypto.runtime import RunConfig


@pl.jit
def rebinds(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        result = pl.exp(x)
        result = pl.neg(x)
    return result


@pl.jit
def builds_on_it(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.load(x, [0, 0], [8, 64]), 1.0)
        result = pl.store(t, [0, 0], result)
        result = pl.store(pl.mul(t, 2.0), [0, 0], result)     # reads result: builds on the first write
    return result


if __name__ == "__main__":
    x = np.linspace(-1, 1, 8 * 64, dtype=np.float32).reshape(8, 64)
    out = np.zeros_like(x)
    try:
        rebinds(x, out, config=RunConfig())
        print("not refused")
    except PartialCodegenError as e:
        print(f"{type(e).__name__}: {e}")
    builds_on_it(x, out, config=RunConfig())
    np.testing.assert_allclose(out, (x + 1.0) * 2.0, rtol=1e-6)
    print("OK")
