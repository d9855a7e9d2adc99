"""The 4-bit dtypes against ml_dtypes (one value a byte, the low four bits): every E2M1 / INT4 /
UINT4 code loaded, cast (to FP32, FP16, BF16, FP8E4M3FN, INT8, INT32, UINT8) and stored; FP32 encoded
to FP4 (nearest even, saturating at +-6) and INT32 to INT4 / UINT4 (saturating); a FP4 round trip
through a tile; an MX matmul whose FP4 lhs is cast to FP8E4M3FN, against numpy.  Both runtime kinds."""
import numpy as np
import pytest

import ptokit

from . import fp4_programs as fp
from .test_mx_ops import _close, _mx_ref, pack_a_zz, pack_b_nn

ml_dtypes = pytest.importorskip("ml_dtypes")
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_CACHE = {}
# the E2M1 values of codes 0..15, from the format (sign, 2 exponent bits of bias 1, 1 mantissa bit)
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


def _compiled(key, make, runtime, tmp_path_factory, platform=None):
    if (key, runtime) not in _CACHE:
        kw = {"platform": platform} if platform else {}
        _CACHE[(key, runtime)] = ptokit.compile(make(), output_dir=tmp_path_factory.mktemp(key), runtime=runtime,
                                                **kw)
    return _CACHE[(key, runtime)]


def test_e2m1_table_matches_ml_dtypes():
    ref = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)
    np.testing.assert_array_equal(ref, E2M1)
    np.testing.assert_array_equal(np.signbit(ref), np.signbit(E2M1))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_4bit_loads_casts_and_stores(runtime, tmp_path_factory):
    # a 4-bit tile is not loaded on a2a3 (pto.tload's element types, the real assembler's rule): a5
    run = _compiled("fp4cast", lambda: fp.Fp4Casts, runtime, tmp_path_factory, platform="a5sim")
    codes = np.tile(np.arange(16, dtype=np.uint8), 2).reshape(1, fp.W)
    e2 = codes.view(ml_dtypes.float4_e2m1fn)
    i4, u4 = codes.view(ml_dtypes.int4), codes.view(ml_dtypes.uint4)
    # ties between neighbours (0.25, 0.75, 1.25, ..., 5), values past 6, negatives, +-inf and NaN (-> -0)
    x = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 7, 100, np.inf, -np.inf, -0.25, -0.75, -2.5, -5, -7,
                  0.3, 0.6, 1.1, 1.4, 2.2, 2.9, 4.4, 5.1, -0.0, 0.0, -1.3, -3.3, -4.9, 6, -6, np.nan],
                 np.float32).reshape(1, fp.W)
    n = np.arange(-16, 16, dtype=np.int32).reshape(1, fp.W)
    d32, wuf = np.zeros((1, fp.W), np.float32), np.zeros((1, fp.W), np.float32)
    d16, db = np.zeros((1, fp.W), np.float16), np.zeros((1, fp.W), ml_dtypes.bfloat16)
    d8, cp, q4 = (np.zeros((1, fp.W), np.uint8) for _ in range(3))
    wi8, wi32, wu8 = np.zeros((1, fp.W), np.int8), np.zeros((1, fp.W), np.int32), np.zeros((1, fp.W), np.uint8)
    qi4, qu4 = np.zeros((1, fp.W), ml_dtypes.int4), np.zeros((1, fp.W), ml_dtypes.uint4)
    qf4 = np.zeros((1, fp.W), ml_dtypes.int4)
    # FP4 given as uint8 codes, FP4E2M1 as an ml_dtypes float4_e2m1fn array: the same bytes
    run(e2, codes, i4, u4, x, n, d32, d16, db, d8, cp, wi8, wi32, wu8, wuf, q4, qi4, qu4, qf4)
    want = e2.astype(np.float32)
    np.testing.assert_array_equal(d32, want)
    np.testing.assert_array_equal(np.signbit(d32), np.signbit(want))       # -0 stays -0
    np.testing.assert_array_equal(d16, e2.astype(np.float16))
    np.testing.assert_array_equal(db.astype(np.float32), want)
    np.testing.assert_array_equal(d8, e2.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
    np.testing.assert_array_equal(cp, codes)
    np.testing.assert_array_equal(wi8, i4.astype(np.int8))
    np.testing.assert_array_equal(wi32, i4.astype(np.int32))
    np.testing.assert_array_equal(wu8, u4.astype(np.uint8))
    np.testing.assert_array_equal(wuf, u4.astype(np.float32))
    np.testing.assert_array_equal(q4, x.astype(ml_dtypes.float4_e2m1fn).view(np.uint8))
    np.testing.assert_array_equal(qi4.astype(np.int32), np.clip(n, -8, 7))
    np.testing.assert_array_equal(qu4.astype(np.int32), np.clip(n, 0, 15))
    # FP32 -> INT4 rounds by the mode (floor), saturates (+-inf too), NaN gives 0
    np.testing.assert_array_equal(qf4.astype(np.int32), np.clip(np.nan_to_num(np.floor(x), nan=0.0), -8, 7))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_mx_matmul_with_fp4_lhs_cast_to_fp8(runtime, tmp_path_factory):
    run = _compiled("fp4mx", lambda: fp.Fp4Mx, runtime, tmp_path_factory, platform="a5sim")
    rng = np.random.default_rng(11)
    a4 = rng.integers(0, 16, (fp.M, fp.K)).astype(np.uint8)
    a4.ravel()[:16] = np.arange(16)          # every code
    finite = np.array([c for c in range(256) if c not in (0x7f, 0xff)], np.uint8)
    b = rng.choice(finite, (fp.K, fp.N)).astype(np.uint8)
    sa = rng.integers(120, 134, (fp.M, fp.G)).astype(np.uint8)
    sb = rng.integers(120, 134, (fp.G, fp.N)).astype(np.uint8)
    a8 = a4.view(ml_dtypes.float4_e2m1fn).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)   # exact widening
    ref = _mx_ref(a8, sa, b, sb)
    y = np.zeros((fp.M, fp.N), np.float32)
    run(a4, pack_a_zz(sa), b, pack_b_nn(sb), y)
    _close(y, ref, "y")
    # the reference itself through E2M1 values: FP4 -> FP8 loses nothing
    k = np.arange(fp.K) // 32
    direct = (E2M1[a4] * np.exp2(sa[:, k] - 127.0)) @ (b.view(ml_dtypes.float8_e4m3fn).astype(np.float64) *
                                                        np.exp2(sb[k, :] - 127.0))
    np.testing.assert_allclose(ref, direct, rtol=1e-12)


def test_4bit_argument_checks(tmp_path_factory):
    run = _compiled("fp4mx", lambda: fp.Fp4Mx, RUNTIMES[0], tmp_path_factory, platform="a5sim")
    y = np.zeros((fp.M, fp.N), np.float32)
    sa, b, sb = np.zeros((fp.M, fp.G), np.uint8), np.zeros((fp.K, fp.N), np.uint8), np.zeros((fp.G, fp.N), np.uint8)
    with pytest.raises(TypeError, match=r"argument 0 \(a\) must have dtype FP4"):
        run(np.zeros((fp.M, fp.K), np.float32), sa, b, sb, y)
    with pytest.raises(TypeError, match=r"argument 0 \(a\) must have dtype FP4"):
        run(np.zeros((fp.M, fp.K), ml_dtypes.int4), sa, b, sb, y)
