"""Bitwise ops and shifts against numpy for every integer dtype, with the type's min and max, -1, 0,
and shift amounts of 0, width - 1, width, more than width and negative ones (taken modulo the
element width: the hardware's rule), on a partial valid region."""
import numpy as np
import pytest

from . import vecgen as V
from .vecgen import Op

DTYPES = ["INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32"]


def _u(x):
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def shl(a, amount):
    w = a.dtype.itemsize * 8
    return (_u(a) << (_u(np.asarray(amount, a.dtype)) & (w - 1))).view(a.dtype)


def shr(a, amount):      # arithmetic on signed arrays, logical on unsigned ones (numpy's >> does both)
    w = a.dtype.itemsize * 8
    return a >> (_u(np.asarray(amount, a.dtype)) & (w - 1)).astype(a.dtype)


def ops(dtype):
    w = np.dtype(V.NP[dtype]).itemsize * 8
    out = [Op("and", "pl.and_(a, b)", lambda a, b, c: a & b),
           Op("or", "pl.tile.or_(a, b)", lambda a, b, c: a | b),
           Op("xor", "pl.xor(a, b, t)", lambda a, b, c: a ^ b),
           Op("ands", "pl.ands(a, 90)", lambda a, b, c: a & a.dtype.type(90)),
           Op("ors", "pl.tile.ors(a, 5)", lambda a, b, c: a | a.dtype.type(5)),
           Op("xors", "pl.xors(a, 7, t)", lambda a, b, c: a ^ a.dtype.type(7)),
           Op("and_scalar_dispatch", "pl.and_(a, 12)", lambda a, b, c: a & a.dtype.type(12)),
           Op("shl", "pl.shl(a, b)", lambda a, b, c: shl(a, b)),
           Op("shr", "pl.shr(a, b)", lambda a, b, c: shr(a, b)),
           Op("shls", "pl.shls(a, 3)", lambda a, b, c: shl(a, 3)),
           Op("shrs", "pl.tile.shrs(a, 3)", lambda a, b, c: shr(a, 3)),
           Op("shls_wide", f"pl.shl(a, {w + 1})", lambda a, b, c: shl(a, w + 1)),
           Op("shrs_wide", f"pl.shr(a, {2 * w + 3})", lambda a, b, c: shr(a, 2 * w + 3))]
    if dtype in ("INT16", "UINT16"):
        out.append(Op("not", "pl.not_(a)", lambda a, b, c: ~a))
    return out


def inputs(dtype):
    t = V.NP[dtype]
    info = np.iinfo(t)
    w = np.dtype(t).itemsize * 8
    rng = np.random.default_rng(5)
    a = rng.integers(info.min, info.max, (V.ROWS, V.COLS), dtype=np.int64, endpoint=True).astype(t)
    a[0, :6] = [info.min, info.max, 0, 1, info.max // 2 + 1, info.min + 1]
    if info.min < 0:
        a[0, 6] = -1
    amounts = [0, 1, w - 1, w, w + 1, 2 * w + 3] + ([-1, -w] if info.min < 0 else [info.max])
    b = rng.integers(0, 3 * w, (V.ROWS, V.COLS)).astype(t)
    b[0, :len(amounts)] = np.array(amounts).astype(t)
    b[1, :len(amounts)] = np.array(amounts).astype(t)
    a[1, :len(amounts)] = info.min          # sign fill of the most negative value
    return a, b, b.copy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_bitwise_and_shifts(tmp_path_factory, dtype):
    a, b, c = inputs(dtype)
    table = ops(dtype)
    outs = V.run(tmp_path_factory.getbasetemp(), f"Bitwise{dtype}", dtype, table, a, b, c)
    V.check(table, outs, a, b, c, dtype)
