"""Products, arg-reductions (ties and NaN), col_sum with a tmp tile and the exp-diff broadcasts against
numpy over a partial valid region."""
import os

import numpy as np
import pytest

from . import vecgen as V
from .vecgen import Op
from vector_sums import column_sum

VR, VC = V.VALID


def prod(x, axis):
    v = x[:VR, :VC]
    if x.dtype.kind in "iu":                      # wraps: the product modulo 2**width
        bits = x.dtype.itemsize * 8
        out = np.ones(v.shape[1 - axis], dtype=object)
        for k in range(v.shape[axis]):
            out = out * (v[k, :] if axis == 0 else v[:, k]).astype(object)
        out = np.array([int(p) % (1 << bits) for p in out], dtype=np.uint64).astype(x.dtype)
    else:
        out = np.prod(v.astype(np.float64), axis=axis).astype(x.dtype)
    return out.reshape(-1, 1) if axis == 1 else out.reshape(1, -1)


def arg(x, axis, fn):
    i = fn(x[:VR, :VC].astype(np.float64), axis=axis).astype(np.int32)
    return i.reshape(-1, 1) if axis == 1 else i.reshape(1, -1)


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "INT32", "INT16"])
def test_products(tmp_path_factory, dtype):
    rng = np.random.default_rng(8)
    t = V.NP[dtype]
    if dtype.startswith("FP"):
        a = rng.uniform(0.8, 1.25, (V.ROWS, V.COLS)).astype(t)
        a[3, 4] = -1.5
    else:
        a = rng.integers(-3, 4, (V.ROWS, V.COLS)).astype(t)
        a[0, :VC] = np.iinfo(t).max          # wraps
    table = [Op("row_prod", "pl.row_prod(a, t)", lambda a, b, c: prod(a, 1), "row"),
             Op("col_prod", "pl.tile.col_prod(a)", lambda a, b, c: prod(a, 0), "col")]
    outs = V.run(tmp_path_factory.getbasetemp(), f"Prod{dtype}", dtype, table, a, a, a)
    if dtype.startswith("FP"):
        # ptokit's library rounds a float product once; pto-isa's CPU library rounds every step in the
        # tile's type (as the devices do, each in its own order: docs/decisions.md, 35), within VC steps
        # of half an ulp each
        per_step = bool(os.environ.get("PTO_ISA_ROOT")) and dtype == "FP16"
        V.check(table, outs, a, a, a, dtype, exact=False,
                rtol=VC * 2.0 ** -11 if per_step else 1e-3 if dtype == "FP16" else 1e-6)
    else:
        V.check(table, outs, a, a, a, dtype)


_NAN_ARG = V.pto_isa_differs("numbers", "its CPU arg-reductions let a NaN lose every comparison; ptokit's take "
                                       "numpy's rule (the first NaN wins); the device's NaN order is its compare "
                                       "unit's")


@pytest.mark.parametrize("nan", [False, pytest.param(True, marks=_NAN_ARG)], ids=["ties", "nan"])
@pytest.mark.parametrize("dtype", ["FP32", "FP16"])
def test_arg_reductions_ties_and_nan(tmp_path_factory, dtype, nan):
    """The first index of the max / min wins a tie; the first NaN is both the argmax and the argmin."""
    rng = np.random.default_rng(9)
    a = rng.integers(-4, 5, (V.ROWS, V.COLS)).astype(V.NP[dtype])      # many ties
    a[2, 10] = a[2, 30] = 50             # tied maximum in a row: index 10
    if nan:
        a[5, 7] = np.nan                 # row 5 and column 7: the NaN wins
        a[9, 40] = np.nan
        a[9, 41] = 60
    a[:VR, 12] = -9                      # a column of equal values: index 0
    a[11, VC] = 99                       # outside the valid region: ignored
    table = [Op("row_argmax", "pl.row_argmax(a, t)", lambda a, b, c: arg(a, 1, np.argmax), "row", "INT32"),
             Op("row_argmin", "pl.tile.row_argmin(a, t)", lambda a, b, c: arg(a, 1, np.argmin), "row", "INT32"),
             Op("col_argmax", "pl.col_argmax(a, t)", lambda a, b, c: arg(a, 0, np.argmax), "col", "INT32"),
             Op("col_argmin", "pl.tile.col_argmin(tile=a, tmp_tile=t)", lambda a, b, c: arg(a, 0, np.argmin), "col",
                "INT32")]
    outs = V.run(tmp_path_factory.getbasetemp(), f"ArgReduce{dtype}{'Nan' if nan else ''}", dtype, table, a, a, a)
    V.check(table, outs, a, a, a, dtype)
    assert outs[0][2, 0] == 10 and outs[2][0, 12] == 0
    if nan:
        assert outs[0][5, 0] == 7 and outs[0][9, 0] == 40


@pytest.mark.parametrize("dtype", V.params(["FP32", "FP16", "BF16"], {"FP16": V.pto_isa_differs(
    "numbers", "its CPU TCOLSUM adds the rows one after the other even in the binary (tmp) form; ptokit adds them "
               "pairwise, level by level, as the device does (its a2a3 TColSum BinarySum)")}))
def test_col_sum_tmp_and_expdif(tmp_path_factory, dtype):
    rng = np.random.default_rng(10)
    t = V.NP[dtype]
    a = rng.uniform(-3, 3, (V.ROWS, V.COLS)).astype(t)
    v = a.astype(np.float32)
    rowmax = np.full((V.ROWS, 1), np.float32(0))
    rowmax[:VR, 0] = v[:VR, :VC].max(axis=1)
    colmax = np.zeros((1, V.COLS), np.float32)
    colmax[0, :VC] = v[:VR, :VC].max(axis=0)
    table = [Op("col_sum_tmp", "pl.col_sum(a, t)", lambda a, b, c: column_sum(a[:VR, :VC], binary=True).reshape(1, -1), "col"),
             Op("row_expdif", "pl.row_expand_expdif(a, pl.row_max(a, t))", lambda a, b, c: np.exp(v - rowmax).astype(t)),
             Op("col_expdif", "pl.tile.col_expand_expdif(a, pl.col_max(a))",
                lambda a, b, c: np.exp(v - colmax).astype(t))]
    if dtype == "BF16":        # row reductions take i16/i32/f16/f32 and column expdif f16/f32, on both platforms
        table = [op for op in table if op.name not in ("row_expdif", "col_expdif")]     # (tests/pto/test_verifier_rules.py)
    outs = V.run(tmp_path_factory.getbasetemp(), f"ColSumExpdif{dtype}", dtype, table, a, a, a)
    V.check(table, outs, a, a, a, dtype, exact=False, rtol={"FP16": 2e-3, "BF16": 1e-2}.get(dtype, 2e-6), atol=1e-6)
