"""@pl.jit programs used by the jit tests (parsed from this file's source)."""
import ptokit.language as pl

N = 64
ROWS = 16


@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.load(a, [0, 0], [N, N]), pl.load(b, [0, 0], [N, N]))
        pl.store(t, [0, 0], c)
    return c


@pl.jit.inline
def axpy_tile(x, y, alpha):
    return pl.add(pl.muls(x, alpha), y)


@pl.jit.incore
def scale_rows(x: pl.Tensor, s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
    for i in pl.range(N // ROWS):
        t = pl.load(x, [i * ROWS, 0], [ROWS, N])
        pl.store(pl.mul(t, s), [i * ROWS, 0], out)
    return out


@pl.jit.incore
def add_one(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out[:] = pl.adds(x, 1.0)


@pl.jit
def multi(a: pl.Tensor, b: pl.Tensor, s: pl.Scalar[pl.FP32], alpha, y: pl.Out[pl.Tensor]):
    tmp = pl.create_tensor([N, N], dtype=pl.FP32)
    tmp2 = pl.create_tensor([N, N], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="axpy") as t0:
        ta = pl.load(a, [0, 0], [N, N])
        tb = pl.load(b, [0, 0], [N, N])
        pl.store(axpy_tile(ta, tb, alpha), [0, 0], tmp)
    scale_rows(tmp, s, tmp2)
    add_one(tmp2, y)
    return y


@pl.jit
def tensor_ops(x: pl.Tensor, y: pl.Tensor, z: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        z[:] = pl.exp(pl.sub(x, y))
    return z


@pl.jit
def rowwise(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [i * ROWS, 0], [ROWS, N])
            pl.store(pl.relu(t), [i * ROWS, 0], out)
    return out


@pl.jit
def inplace_scale(x: pl.InOut[pl.Tensor], k):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_inplace"):
        x[:] = pl.mul(x, k)


M = pl.dynamic("M")


@pl.jit
def dyn_relu(x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
    for i in pl.range(M // ROWS):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.relu(pl.load(x, [i * ROWS, 0], [ROWS, 64])), [i * ROWS, 0], out)
    return out


@pl.jit
def chain(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP) as t0:
        out[:] = pl.relu(x)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[t0]):
        out[:] = pl.adds(out, 1.0)
