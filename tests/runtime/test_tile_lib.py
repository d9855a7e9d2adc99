"""The CPU tile library (pto/pto-inst.hpp) against numpy references.

tile_cases/tile_ops.cpp is compiled into a shared object, twice: with every instruction inlined
(stand-alone) and with the out-of-line operations a simulator kernel calls (-DPTO_CPU_OOL_OPS,
linked with tile_cases/ool_ops.cpp: the loops libptosim compiles once, for runtime shapes); each
case loads GM arrays into tiles, runs instructions and stores the result, and is called through
ctypes. test_out_of_line_bits compares the two builds bit for bit.
"""
from __future__ import annotations

import ctypes

import ml_dtypes
import numpy as np
import pytest

from tile_lib_util import CASES, compile_cxx, finish

R, C = 16, 32
P = ctypes.c_void_p
I = ctypes.c_int


BUILDS = {
    # standalone: ignore simulator hooks a runtime loaded RTLD_GLOBAL into pytest may define
    "inline": ([CASES / "tile_ops.cpp"], ("-DPTO_CPU_STANDALONE",)),
    # the out-of-line operations linked in, bound inside the object (not to a libptosim loaded into
    # pytest), stand-alone as well
    "out_of_line": ([CASES / "tile_ops.cpp", CASES / "ool_ops.cpp"],
                    ("-DPTO_CPU_STANDALONE", "-DPTO_CPU_OOL_OPS", "-Wl,-Bsymbolic")),
}


def build_lib(tmp_path_factory, kind):
    sources, extra = BUILDS[kind]
    out = tmp_path_factory.mktemp(f"tile_ops_{kind}") / "tile_ops.so"
    finish(compile_cxx(sources, out, extra=extra))
    so = ctypes.CDLL(str(out))
    for name in ("bin_f32", "bin_f16", "bin_bf16", "bin_i32"):
        getattr(so, name).argtypes = [I, P, P, P, I, I]
    for name in ("scal_f32", "scal_f16", "scal_bf16"):
        getattr(so, name).argtypes = [I, P, ctypes.c_float, P, I, I]
    for name in ("un_f32", "un_f16", "un_bf16"):
        getattr(so, name).argtypes = [I, P, P, I, I]
    for name in ("rowred_f32", "colred_f32"):
        getattr(so, name).argtypes = [I, P, P, I, I]
    for name in ("rowexp_f32", "colexp_f32"):
        getattr(so, name).argtypes = [I, P, P, P, I, I]
    so.cvt.argtypes = [I, I, P, P]
    for name in ("mm_f32", "mm_f16", "mm_bf16", "mm_i8"):
        getattr(so, name).argtypes = [P, P, P, P, P, I, I, I, I, I]
    so.alias_case.argtypes = [P, P, P]
    so.reshape_case.argtypes = [P, P, P]
    so.extract_insert_case.argtypes = [P, P, P, I, I, I, I]
    so.fillpad_f32.argtypes = [I, P, P, I, I]
    so.concat_f32.argtypes = [P, P, P, I, I, I]
    so.mov_dn_case.argtypes = [P, P]
    so.nan_fill_case.argtypes = [P, P, P]
    so.shape_forms.argtypes = [P]
    return so


@pytest.fixture(scope="module", params=sorted(BUILDS))
def lib(request, tmp_path_factory):
    return build_lib(tmp_path_factory, request.param)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return {kind: build_lib(tmp_path_factory, kind) for kind in BUILDS}


def ptr(a: np.ndarray):
    assert a.flags.c_contiguous
    return a.ctypes.data


RNG = np.random.default_rng(1234)
DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
# (vr, vc): full tile and a partial valid region
REGIONS = [(R, C), (5, 19)]


def rand(dtype, shape=(R, C), lo=-4.0, hi=4.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def check_region(out, ref, vr, vc, sentinel, dtype, rtol):
    """Valid region equals the reference (rounded to dtype); everything else is untouched."""
    got = out[:vr, :vc].astype(np.float64)
    want = ref.astype(dtype).astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6)
    rest = out.astype(np.float64).copy()
    rest[:vr, :vc] = sentinel
    assert np.all(rest == sentinel), "instruction wrote outside the valid region"


BIN = {0: np.add, 1: np.subtract, 2: np.multiply, 3: np.divide, 4: np.maximum, 5: np.minimum}


@pytest.mark.parametrize("vr,vc", REGIONS)
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", sorted(BIN))
def test_binary(lib, dt, op, vr, vc):
    dtype = DTYPES[dt]
    a, b = rand(dtype), rand(dtype)
    if op == 3:
        b = np.where(np.abs(b.astype(np.float32)) < 0.5, 1.5, b.astype(np.float32)).astype(dtype)
    o = np.full((R, C), 7, dtype=dtype)
    getattr(lib, f"bin_{dt}")(op, ptr(a), ptr(b), ptr(o), vr, vc)
    ref = BIN[op](a[:vr, :vc].astype(np.float64), b[:vr, :vc].astype(np.float64))
    # f16/bf16: computed in float, rounded once -> equals the correctly rounded reference
    # except for double-rounding corner cases; allow one ulp of the 16-bit type.
    rtol = {"f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}[dt]
    check_region(o, ref, vr, vc, 7, dtype, rtol)


def test_binary_int32(lib):
    a = RNG.integers(-1000, 1000, size=(R, C), dtype=np.int32)
    b = RNG.integers(1, 50, size=(R, C), dtype=np.int32)
    for op, fn in {0: np.add, 1: np.subtract, 2: np.multiply, 4: np.maximum, 5: np.minimum}.items():
        o = np.zeros((R, C), np.int32)
        lib.bin_i32(op, ptr(a), ptr(b), ptr(o), R, C)
        np.testing.assert_array_equal(o, fn(a, b))
    o = np.zeros((R, C), np.int32)
    lib.bin_i32(3, ptr(a), ptr(b), ptr(o), R, C)
    np.testing.assert_array_equal(o, np.trunc(a / b).astype(np.int32))


SCAL = {0: lambda a, s: a + s, 1: lambda a, s: a - s, 2: lambda a, s: a * s, 3: lambda a, s: a / s,
        4: np.maximum, 5: np.minimum, 6: lambda a, s: s / a}


@pytest.mark.parametrize("vr,vc", REGIONS)
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", sorted(SCAL))
def test_scalar(lib, dt, op, vr, vc):
    dtype = DTYPES[dt]
    a = rand(dtype)
    if op == 6:
        a = np.where(np.abs(a.astype(np.float32)) < 0.5, 2.0, a.astype(np.float32)).astype(dtype)
    s = 1.75
    o = np.full((R, C), 7, dtype=dtype)
    getattr(lib, f"scal_{dt}")(op, ptr(a), s, ptr(o), vr, vc)
    ref = SCAL[op](a[:vr, :vc].astype(np.float64), float(np.array(s, dtype=dtype)))
    rtol = {"f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}[dt]
    check_region(o, ref, vr, vc, 7, dtype, rtol)


UN = {0: np.exp, 1: np.log, 2: np.sqrt, 3: lambda x: 1 / np.sqrt(x), 4: lambda x: 1 / x,
      5: np.negative, 6: np.abs, 7: lambda x: np.maximum(x, 0)}


@pytest.mark.parametrize("vr,vc", REGIONS)
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", sorted(UN))
def test_unary(lib, dt, op, vr, vc):
    dtype = DTYPES[dt]
    a = rand(dtype, lo=0.1, hi=3.0) if op in (1, 2, 3, 4) else rand(dtype)
    o = np.full((R, C), 7, dtype=dtype)
    getattr(lib, f"un_{dt}")(op, ptr(a), ptr(o), vr, vc)
    ref = UN[op](a[:vr, :vc].astype(np.float64))
    rtol = {"f32": 1e-5, "f16": 1e-3, "bf16": 8e-3}[dt]
    check_region(o, ref, vr, vc, 7, dtype, rtol)


@pytest.mark.parametrize("vr,vc", REGIONS)
@pytest.mark.parametrize("kind", [0, 1, 2])
def test_row_and_col_reductions(lib, kind, vr, vc):
    a = rand(np.float32)
    fn = [np.sum, np.max, np.min][kind]
    o = np.full(R, 7, np.float32)
    lib.rowred_f32(kind, ptr(a), ptr(o), vr, vc)
    np.testing.assert_allclose(o[:vr], fn(a[:vr, :vc].astype(np.float64), axis=1), rtol=1e-5, atol=1e-5)
    assert np.all(o[vr:] == 7)
    o = np.full(C, 7, np.float32)
    lib.colred_f32(kind, ptr(a), ptr(o), vr, vc)
    np.testing.assert_allclose(o[:vc], fn(a[:vr, :vc].astype(np.float64), axis=0), rtol=1e-5, atol=1e-5)
    assert np.all(o[vc:] == 7)


EXP = {0: lambda a, v: np.broadcast_to(v, a.shape), 1: np.add, 2: np.subtract, 3: np.multiply, 4: np.divide}


@pytest.mark.parametrize("vr,vc", REGIONS)
@pytest.mark.parametrize("op", sorted(EXP))
def test_row_and_col_expand(lib, op, vr, vc):
    a = rand(np.float32)
    col = rand(np.float32, (R,), 0.5, 2.0)
    row = rand(np.float32, (C,), 0.5, 2.0)
    o = np.full((R, C), 7, np.float32)
    lib.rowexp_f32(op, ptr(a), ptr(col), ptr(o), vr, vc)
    ref = EXP[op](a[:vr, :vc].astype(np.float64), col[:vr, None].astype(np.float64))
    check_region(o, ref, vr, vc, 7, np.float32, 1e-6)
    o = np.full((R, C), 7, np.float32)
    lib.colexp_f32(op, ptr(a), ptr(row), ptr(o), vr, vc)
    ref = EXP[op](a[:vr, :vc].astype(np.float64), row[None, :vc].astype(np.float64))
    check_region(o, ref, vr, vc, 7, np.float32, 1e-6)


RINT, ROUND, FLOOR, CEIL, TRUNC = 1, 2, 3, 4, 5


def test_tcvt_float_round_trips(lib):
    a = rand(np.float32, lo=-70000, hi=70000)
    a[0, :8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-8, 6.1e-5, 65519.0]
    h = np.zeros((R, C), np.float16)
    lib.cvt(0, RINT, ptr(a), ptr(h))
    with np.errstate(over="ignore"):
        want = a.astype(np.float16)
    np.testing.assert_array_equal(h.view(np.uint16)[~np.isnan(want)], want.view(np.uint16)[~np.isnan(want)])
    assert np.isnan(h[0, 4])
    back = np.zeros((R, C), np.float32)
    lib.cvt(1, RINT, ptr(h), ptr(back))
    np.testing.assert_array_equal(back, h.astype(np.float32))

    b = np.zeros((R, C), ml_dtypes.bfloat16)
    lib.cvt(2, RINT, ptr(a), ptr(b))
    want = a.astype(ml_dtypes.bfloat16)
    ok = ~np.isnan(a)
    np.testing.assert_array_equal(b.view(np.uint16)[ok], want.view(np.uint16)[ok])
    assert np.isnan(b.astype(np.float32)[0, 4])
    lib.cvt(3, RINT, ptr(b), ptr(back))
    np.testing.assert_array_equal(back, b.astype(np.float32))


def test_tcvt_half_subnormals_and_ties(lib):
    # every f16 bit pattern (finite) survives f16 -> f32 -> f16
    bits = np.arange(0, 1 << 16, dtype=np.uint32)
    bits = bits[(bits & 0x7C00) != 0x7C00].astype(np.uint16)
    n = R * C
    for start in range(0, len(bits), n):
        chunk = bits[start:start + n]
        h = np.zeros(n, np.uint16)
        h[:len(chunk)] = chunk
        f = np.zeros((R, C), np.float32)
        lib.cvt(1, RINT, ptr(h.reshape(R, C)), ptr(f))
        np.testing.assert_array_equal(f.ravel()[:len(chunk)], chunk.view(np.float16).astype(np.float32))
        h2 = np.zeros((R, C), np.uint16)
        lib.cvt(0, RINT, ptr(f), ptr(h2))
        np.testing.assert_array_equal(h2.ravel()[:len(chunk)], chunk)
    # ties between two halfs round to even
    mids = (np.arange(1, R * C + 1, dtype=np.float32) * 2 + 1) * np.float32(2.0 ** -11)
    o = np.zeros((R, C), np.float16)
    lib.cvt(0, RINT, ptr(mids.reshape(R, C)), ptr(o))
    np.testing.assert_array_equal(o.ravel(), mids.astype(np.float16))


@pytest.mark.parametrize("mode,fn", [(RINT, np.rint), (ROUND, lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)),
                                     (FLOOR, np.floor), (CEIL, np.ceil), (TRUNC, np.trunc)])
def test_tcvt_float_to_int_modes(lib, mode, fn):
    a = rand(np.float32, lo=-100, hi=100)
    a[0, :6] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5]
    o = np.zeros((R, C), np.int32)
    lib.cvt(4, mode, ptr(a), ptr(o))
    np.testing.assert_array_equal(o, fn(a.astype(np.float64)).astype(np.int32))


def test_tcvt_int_paths_saturate(lib):
    a = rand(np.float32, lo=-300, hi=300)
    o8 = np.zeros((R, C), np.int8)
    lib.cvt(6, RINT, ptr(a), ptr(o8))
    np.testing.assert_array_equal(o8, np.clip(np.rint(a), -128, 127).astype(np.int8))
    o16 = np.zeros((R, C), np.int16)
    lib.cvt(7, TRUNC, ptr(a), ptr(o16))
    np.testing.assert_array_equal(o16, np.trunc(a).astype(np.int16))
    ou8 = np.zeros((R, C), np.uint8)
    lib.cvt(10, RINT, ptr(a), ptr(ou8))
    np.testing.assert_array_equal(ou8, np.clip(np.rint(a), 0, 255).astype(np.uint8))
    i = RNG.integers(-1000, 1000, size=(R, C), dtype=np.int32)
    o8 = np.zeros((R, C), np.int8)
    lib.cvt(8, RINT, ptr(i), ptr(o8))
    np.testing.assert_array_equal(o8, np.clip(i, -128, 127).astype(np.int8))
    f = np.zeros((R, C), np.float32)
    lib.cvt(5, RINT, ptr(i), ptr(f))
    np.testing.assert_array_equal(f, i.astype(np.float32))
    h = rand(np.float16, lo=-50, hi=50)
    oi = np.zeros((R, C), np.int32)
    lib.cvt(9, RINT, ptr(h), ptr(oi))
    np.testing.assert_array_equal(oi, np.rint(h.astype(np.float64)).astype(np.int32))


MM_DT = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i8": np.int8}


def mm_inputs(dt, M, K, N):
    if dt == "i8":
        return [RNG.integers(-128, 128, size=s, dtype=np.int8) for s in ((M, K), (K, N), (M, K), (K, N))]
    return [rand(MM_DT[dt], s, -1, 1) for s in ((M, K), (K, N), (M, K), (K, N))]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "i8"])
@pytest.mark.parametrize("M,K,N,acc,via_vec", [(64, 64, 64, 0, 0), (128, 128, 128, 1, 0), (40, 72, 24, 1, 1)])
def test_tmatmul(lib, dt, M, K, N, acc, via_vec):
    a, b, a2, b2 = mm_inputs(dt, M, K, N)
    out_t = np.int32 if dt == "i8" else np.float32
    o = np.zeros((M, N), out_t)
    getattr(lib, f"mm_{dt}")(ptr(a), ptr(b), ptr(a2), ptr(b2), ptr(o), M, K, N, acc, via_vec)
    if dt == "i8":
        ref = a.astype(np.int64) @ b.astype(np.int64)
        if acc:
            ref += a2.astype(np.int64) @ b2.astype(np.int64)
        np.testing.assert_array_equal(o, ref.astype(np.int32))
        return
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if acc:
        ref += a2.astype(np.float64) @ b2.astype(np.float64)
    rtol = 1e-5 if dt == "f32" else 1e-3
    np.testing.assert_allclose(o, ref, rtol=rtol, atol=rtol * np.sqrt(K))


def test_aliasing_same_offset(lib):
    a = rand(np.float32)
    o1, o2 = np.zeros((R, C), np.float32), np.zeros((R, C), np.float32)
    lib.alias_case(ptr(a), ptr(o1), ptr(o2))
    np.testing.assert_array_equal(o1, a)
    np.testing.assert_array_equal(o2, a + np.float32(1))


def test_treshape_is_a_view(lib):
    a = rand(np.float32)
    ov, os_ = np.zeros((C, R), np.float32), np.zeros((R, C), np.float32)
    lib.reshape_case(ptr(a), ptr(ov), ptr(os_))
    np.testing.assert_array_equal(ov, (a * 2).reshape(C, R))
    np.testing.assert_array_equal(os_, a * 2)


@pytest.mark.parametrize("r0,c0,r1,c1", [(0, 0, 8, 24), (3, 17, 5, 2)])
def test_textract_tinsert(lib, r0, c0, r1, c1):
    a = rand(np.float32)
    oe, oi = np.zeros((8, 8), np.float32), np.full((R, C), 7, np.float32)
    lib.extract_insert_case(ptr(a), ptr(oe), ptr(oi), r0, c0, r1, c1)
    np.testing.assert_array_equal(oe, a[r0:r0 + 8, c0:c0 + 8])
    ref = np.zeros((R, C), np.float32)
    ref[r1:r1 + 8, c1:c1 + 8] = a[r0:r0 + 8, c0:c0 + 8]
    np.testing.assert_array_equal(oi, ref)


@pytest.mark.parametrize("pad,val", [(1, 0.0), (2, np.inf), (3, -np.inf)])
def test_tfillpad(lib, pad, val):
    a = rand(np.float32)
    o = np.zeros((R, C), np.float32)
    lib.fillpad_f32(pad, ptr(a), ptr(o), 5, 19)
    ref = np.full((R, C), val, np.float32)
    ref[:5, :19] = a[:5, :19]
    np.testing.assert_array_equal(o, ref)


def test_tconcat(lib):
    a, b = rand(np.float32), rand(np.float32)
    o = np.full((R, C), 7, np.float32)
    lib.concat_f32(ptr(a), ptr(b), ptr(o), 9, 12, 20)
    ref = np.full((R, C), 7, np.float32)
    ref[:9, :12] = a[:9, :12]
    ref[:9, 12:32] = b[:9, :20]
    np.testing.assert_array_equal(o, ref)


def test_tmov_vec_and_dn_global(lib):
    a = rand(np.float32)
    colmajor = np.ascontiguousarray(a.T)  # element (r, c) at c*R + r
    o = np.zeros((R, C), np.float32)
    lib.mov_dn_case(ptr(colmajor), ptr(o))
    np.testing.assert_array_equal(o, a)


def test_debug_nan_fill(lib):
    o32 = np.zeros((R, C), np.float32)
    o16 = np.zeros((R, C), np.uint16)
    oi = np.full((R, C), 5, np.int32)
    lib.nan_fill_case(ptr(o32), ptr(o16), ptr(oi))
    assert np.all(np.isnan(o32))
    assert np.all(np.isnan(o16.view(np.float16)))


def test_shape_and_stride_constructors(lib):
    out = np.zeros(24, np.int64)
    lib.shape_forms(ptr(out))
    assert list(out[0:5]) == [1, 1, 1, 7, 64]
    assert list(out[5:10]) == [1, 1, 1, 5, 6]
    assert list(out[10:15]) == [11, 12, 13, 64, 1]
    assert list(out[15:20]) == [1, 1, 1, 1, 8]
    assert list(out[20:24]) == [3, 4, 4, 1]


def test_out_of_line_bits(both):
    """The out-of-line operations (the loops libptosim compiles once, for runtime shapes) give the
    inlined instructions' bits: element-wise, scalar and unary forms, reductions, conversions and
    the cube, on partial and full valid regions (broadcasts, inlined in both, ride along)."""
    inl, ool = both["inline"], both["out_of_line"]

    def same(call, outs):
        got = {}
        for kind, so in (("inline", inl), ("out_of_line", ool)):
            for o in outs:
                o.fill(7)
            call(so)
            got[kind] = [o.copy() for o in outs]
        for x, y in zip(got["inline"], got["out_of_line"]):
            assert x.tobytes() == y.tobytes()

    for dt, dtype in DTYPES.items():
        a, b = rand(dtype), rand(dtype, lo=0.5, hi=3.0)
        o = np.zeros((R, C), dtype)
        for vr, vc in REGIONS:
            for op in sorted(BIN):
                same(lambda so: getattr(so, f"bin_{dt}")(op, ptr(a), ptr(b), ptr(o), vr, vc), [o])
            for op in sorted(SCAL):
                same(lambda so: getattr(so, f"scal_{dt}")(op, ptr(b), 1.75, ptr(o), vr, vc), [o])
            for op in sorted(UN):
                same(lambda so: getattr(so, f"un_{dt}")(op, ptr(b), ptr(o), vr, vc), [o])
    a = rand(np.float32)
    col, row = rand(np.float32, (R,), 0.5, 2.0), rand(np.float32, (C,), 0.5, 2.0)
    o, orow, ocol = np.zeros((R, C), np.float32), np.zeros(R, np.float32), np.zeros(C, np.float32)
    for vr, vc in REGIONS:
        for kind in (0, 1, 2):
            same(lambda so: so.rowred_f32(kind, ptr(a), ptr(orow), vr, vc), [orow])
            same(lambda so: so.colred_f32(kind, ptr(a), ptr(ocol), vr, vc), [ocol])
        for op in sorted(EXP):
            same(lambda so: so.rowexp_f32(op, ptr(a), ptr(col), ptr(o), vr, vc), [o])
            same(lambda so: so.colexp_f32(op, ptr(a), ptr(row), ptr(o), vr, vc), [o])
    for dt in ("f32", "f16", "bf16", "i8"):
        for M, K, N, acc, via_vec in [(64, 64, 64, 0, 0), (40, 72, 24, 1, 1)]:
            ins = mm_inputs(dt, M, K, N)
            o = np.zeros((M, N), np.int32 if dt == "i8" else np.float32)
            same(lambda so: getattr(so, f"mm_{dt}")(*map(ptr, ins), ptr(o), M, K, N, acc, via_vec), [o])
    src = rand(np.float32, lo=-300.0, hi=300.0)   # each conversion reads its source type's bytes of it
    src[0, :4] = [np.nan, np.inf, -0.0, 2.5]
    out = np.zeros(R * C, np.float32)
    for which in range(11):
        for mode in (RINT, ROUND, FLOOR, CEIL, TRUNC):
            same(lambda so: so.cvt(which, mode, ptr(src), ptr(out)), [out])
