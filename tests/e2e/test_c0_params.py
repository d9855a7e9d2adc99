"""store(atomic=pl.AtomicType.Add) from concurrent SPMD blocks, cast's pypto rounding modes,
high_precision, rsqrt with a tmp tile and fillpad's literal pad values: values and `.pto`."""
import ml_dtypes
import numpy as np
import pytest

import ptokit

from .c0_programs import C, R, CastModes, Precision, make_atomic_sum

ATOMIC = {"FP32": np.float32, "INT32": np.int32, "FP16": np.float16, "BF16": ml_dtypes.bfloat16, "INT16": np.int16,
          "INT8": np.int8}


@pytest.mark.parametrize("dname", sorted(ATOMIC))
def test_atomic_add_store_from_blocks_running_at_once_loses_no_update(tmp_path, dname):
    import ptokit.language as pl
    blocks, repeats = 8, 8
    t = ATOMIC[dname]
    x = np.random.default_rng(1).integers(-3, 4, (blocks * R, C)).astype(t)    # sums are exact in every dtype
    y = np.ones((R, C), t)                                                      # GM += tile: the 1 stays
    c = ptokit.compile(make_atomic_sum(blocks, getattr(pl, dname), repeats), output_dir=tmp_path / "o")
    c(x, y)
    want = 1 + repeats * x.astype(np.int64).reshape(blocks, R, C).sum(axis=0)     # |want| <= 193
    assert np.array_equal(y, want.astype(t))       # INT8 wraps, the float sums are exact
    pto = (tmp_path / "o" / "ptoas" / "add_block.pto").read_text()
    assert "outs(%y_pview : !pto.partition_tensor_view<16x64x" in pto and \
        "{atomicType = #pto<atomic_type atomic_add>}" in pto
    assert "AtomicType::AtomicAdd>(" in (tmp_path / "o" / "ptoas" / "add_block.cpp").read_text()


def test_cast_modes_by_name_and_number(tmp_path):
    vals = [2.5, -2.5, 3.5, -3.5, 1.4999, -0.5, 2.7, -2.7, 2.0, -7.0, 0.5, 1e10, -1e10]
    x = np.zeros((1, C), np.float32)
    x[0, :len(vals)] = vals
    y = np.zeros((10, C), np.int32)
    ptokit.compile(CastModes, output_dir=tmp_path / "o")(x, y)
    v = x[0].astype(np.float64)
    rint, trunc = np.rint(v), np.trunc(v)
    away = np.where(np.abs(v - trunc) == 0.5, trunc + np.sign(v), np.rint(v))
    odd = np.where((trunc == v) | (np.abs(trunc) % 2 == 1), trunc, trunc + np.sign(v))
    sat = lambda w: np.clip(w, -2 ** 31, 2 ** 31 - 1).astype(np.int32)     # noqa: E731  (saturating)
    want = [rint, rint, away, np.floor(v), np.ceil(v), trunc, odd, rint, np.floor(v), np.floor(v)]
    for row, w in enumerate(want):
        assert np.array_equal(y[row], sat(w)), (row, y[row, :len(vals)], sat(w)[:len(vals)])
    pto = (tmp_path / "o" / "ptoas" / "k.pto").read_text()
    for name in ("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT"):
        assert f"ins(%t {{rmode = #pto<round_mode {name}>}} :" in pto


def test_high_precision_rsqrt_tmp_and_pad_sugar(tmp_path):
    rng = np.random.default_rng(4)
    a = rng.uniform(0.5, 4, (R, C)).astype(np.float32)
    b = rng.uniform(0.5, 4, (R, C)).astype(np.float32)
    y = np.zeros((8 * R, C), np.float32)
    ptokit.compile(Precision, output_dir=tmp_path / "o")(a, b, y)
    vr, vc = R - 3, C - 7
    assert np.array_equal(y[:vr, :vc], a[:vr, :vc] / b[:vr, :vc])          # div's valid region is the divisor's
    np.testing.assert_allclose(y[R:2 * R], np.log(a), rtol=1e-6)
    np.testing.assert_allclose(y[2 * R:3 * R], 1 / a, rtol=1e-7)
    np.testing.assert_allclose(y[3 * R:4 * R], 1 / np.sqrt(a), rtol=1e-6)
    for k, pad in ((4, 0.0), (5, np.inf), (6, -np.inf), (7, np.inf)):
        band = y[k * R:(k + 1) * R]
        assert np.array_equal(band[:vr, :vc], b[:vr, :vc])
    pto = (tmp_path / "o" / "ptoas" / "k.pto").read_text()
    for op, kind in (("tdiv", "div_precision"), ("tlog", "log_precision"), ("trecip", "recip_precision")):
        line = next(ln for ln in pto.splitlines() if f"pto.{op} " in ln)
        assert f") {{precisionType = #pto<{kind} high_precision>}}" in line
    rsqrt = next(ln for ln in pto.splitlines() if "pto.trsqrt " in ln)
    assert rsqrt.count("!pto.tile_buf") == 3                                 # src, tmp -> dst
    pads = [ln for ln in pto.splitlines() if "pto.tfillpad " in ln]
    assert [p.count("pad=1>)") for p in pads][:1] == [1] and "pad=2>)" in pads[1] and "pad=3>)" in pads[2]
