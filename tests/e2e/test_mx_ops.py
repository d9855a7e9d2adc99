"""The a5 MX matmul family against numpy (pypto-parity.md D): FP8E4M3FN data, FP8E8M0 scales (one
per 32 of K) in the MX_A_ZZ / MX_B_NN layouts, matmul_mx / matmul_mx_acc / matmul_mx_bias and
windows of the scale tensors.  The FP8 decoding is checked on all 256 codes against ml_dtypes (and
a decoder written here from the format definitions)."""
import numpy as np
import pytest

import ptokit

from . import mx_programs as mp

ml_dtypes = pytest.importorskip("ml_dtypes")
_CACHE = {}


def _compiled(key, make, tmp_path_factory, platform="a5sim"):
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(make(), output_dir=tmp_path_factory.mktemp(key), platform=platform)
    return _CACHE[key]


def decode_fp8(codes, mbits, bias, fn):
    """An FP8 code table from the format's definition (no library): sign, ebits, mbits; E4M3FN has no
    infinities and one NaN per sign (all ones), E5M2 follows IEEE 754."""
    ebits = 7 - mbits
    out = []
    for c in np.asarray(codes, np.uint8).ravel():
        s, e, m = (c >> 7) & 1, (c >> mbits) & ((1 << ebits) - 1), c & ((1 << mbits) - 1)
        emax = (1 << ebits) - 1
        if fn and e == emax and m == (1 << mbits) - 1:
            v = float("nan")
        elif not fn and e == emax:
            v = float("inf") if m == 0 else float("nan")
        elif e == 0:
            v = m * 2.0 ** (1 - bias - mbits)
        else:
            v = (1 + m / (1 << mbits)) * 2.0 ** (int(e) - bias)
        out.append(-v if s else v)
    return np.array(out, np.float64).reshape(np.shape(codes))


def e8m0(codes):
    codes = np.asarray(codes, np.int64)
    return np.where(codes == 255, np.nan, np.exp2(codes.astype(np.float64) - 127))


def pack_a_zz(codes):
    """Logical [M, G] scale codes -> the MX_A_ZZ bytes (16 x 2 boxes, row boxes outer)."""
    m, g = codes.shape
    return codes.reshape(m // 16, 16, g // 2, 2).transpose(0, 2, 1, 3).reshape(m, g).copy()


def pack_b_nn(codes):
    """Logical [G, N] scale codes -> the MX_B_NN bytes (2 x 16 boxes stored N-major)."""
    g, n = codes.shape
    return codes.reshape(g // 2, 2, n // 16, 16).transpose(2, 0, 3, 1).reshape(g, n).copy()


def test_fp8_tables_match_ml_dtypes():
    codes = np.arange(256, dtype=np.uint8)
    for ml, args in ((ml_dtypes.float8_e4m3fn, (3, 7, True)), (ml_dtypes.float8_e5m2, (2, 15, False))):
        ours = decode_fp8(codes, *args)
        ref = codes.view(ml).astype(np.float64)
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
        np.testing.assert_array_equal(ours[~np.isnan(ours)], ref[~np.isnan(ref)])
    ref = codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(e8m0(codes)), np.isnan(ref))
    np.testing.assert_array_equal(e8m0(codes)[:255], ref[:255])


def _mx_ref(a, sa, b, sb):
    """(a * 2^(sa - 127)) @ (b * 2^(sb - 127)) per 32-element K group, in float64."""
    k = np.arange(a.shape[1]) // 32
    af = decode_fp8(a, 3, 7, True) * e8m0(sa)[:, k]
    bf = decode_fp8(b, 3, 7, True) * e8m0(sb)[k, :]
    return af @ bf


def _inputs(seed, all_codes=False):
    rng = np.random.default_rng(seed)
    finite = np.array([c for c in range(256) if c not in (0x7f, 0xff)], np.uint8)
    a = rng.choice(finite, (mp.M, mp.K)).astype(np.uint8)
    b = rng.choice(finite, (mp.K, mp.N)).astype(np.uint8)
    if all_codes:      # every finite E4M3FN code appears in a (subnormals, zeros, +-448 included)
        a.ravel()[:finite.size] = finite
    sa = rng.integers(118, 131, (mp.M, mp.G)).astype(np.uint8)
    sb = rng.integers(118, 131, (mp.G, mp.N)).astype(np.uint8)
    bias = rng.standard_normal((1, mp.N)).astype(np.float32)
    return a, sa, b, sb, bias


def _close(got, ref, name):
    tol = 1e-5 * max(np.abs(ref).max(), 1e-30)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=tol, err_msg=name)


@pytest.mark.parametrize("as_ml_dtypes", [False, True])
def test_mx_family_against_numpy(as_ml_dtypes, tmp_path_factory):
    run = _compiled("mx", lambda: mp.MxFamily, tmp_path_factory)
    a, sa, b, sb, bias = _inputs(3, all_codes=True)
    ref = _mx_ref(a, sa, b, sb)
    ref_w = _mx_ref(a[16:], sa[16:], b[:, 32:], sb[:, 32:])
    host = [a, pack_a_zz(sa), b, pack_b_nn(sb)]
    if as_ml_dtypes:    # the same bytes as ml_dtypes arrays
        host = [host[0].view(ml_dtypes.float8_e4m3fn), host[1].view(ml_dtypes.float8_e8m0fnu),
                host[2].view(ml_dtypes.float8_e4m3fn), host[3].view(ml_dtypes.float8_e8m0fnu)]
    outs = [np.zeros((mp.M, mp.N), np.float32) for _ in range(3)] + [np.zeros((16, 32), np.float32)]
    run(*host, bias, *outs)
    for name, got, want in zip(["y", "y2", "yb", "yw"], outs, [ref, 2 * ref, ref + bias, ref_w]):
        _close(got, want, name)


def test_mx_nan_scale_gives_nan(tmp_path_factory):
    """A scale code 0xFF is NaN: the rows of that scale group come out NaN, the others are finite."""
    run = _compiled("mx", lambda: mp.MxFamily, tmp_path_factory)
    a, sa, b, sb, bias = _inputs(5)
    sa[3, 1] = 0xFF
    outs = [np.zeros((mp.M, mp.N), np.float32) for _ in range(3)] + [np.zeros((16, 32), np.float32)]
    run(a, pack_a_zz(sa), b, pack_b_nn(sb), bias, *outs)
    assert np.isnan(outs[0][3]).all()
    rest = np.delete(outs[0], 3, axis=0)
    _close(rest, np.delete(_mx_ref(a, sa, b, sb), 3, axis=0), "y without row 3")


def test_fp8_casts_decode_every_code_and_round_to_nearest_even(tmp_path_factory):
    # an FP8 tile is not loaded on a2a3 (pto.tload's element types, the real assembler's rule): a5
    run = _compiled("fp8cast", lambda: mp.Fp8Casts, tmp_path_factory, platform="a5sim")
    codes = np.arange(256, dtype=np.uint8).reshape(1, 256)
    rng = np.random.default_rng(9)
    # values inside both formats' ranges, with exact halfway points (ties) and subnormals
    mids = (codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)[0, :126] +
            codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)[0, 1:127]) / 2
    x = np.concatenate([mids, rng.standard_normal(130) * 50.0]).astype(np.float32).reshape(1, 256)
    d4, d5 = np.zeros((1, 256), np.float32), np.zeros((1, 256), np.float32)
    q4, q5 = np.zeros((1, 256), np.uint8), np.zeros((1, 256), np.uint8)
    run(codes, codes, x, d4, d5, q4, q5)
    for got, args in ((d4, (3, 7, True)), (d5, (2, 15, False))):
        want = decode_fp8(codes, *args)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    np.testing.assert_array_equal(q4, x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
    np.testing.assert_array_equal(q5, x.astype(ml_dtypes.float8_e5m2).view(np.uint8))
