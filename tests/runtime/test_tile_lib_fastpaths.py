"""Fast paths of the CPU tile library against its slow paths and numpy.

* Element-wise passes have an AVX2 build of the same loops, chosen at run time. The cases
  below are compiled twice, with and without ``-DPTO_CPU_NO_AVX2``; both builds must agree
  bit for bit, and with numpy, for full, partial-valid, in-place, disjoint and row-shifted
  (partially overlapping, rows must run first to last) destinations.
* TLOAD/TSTORE copy a tile whose rows are contiguous in GM as one block, otherwise row by row:
  both must copy exactly (full and partial-valid tiles, strided windows, unaligned GM
  pointers, tiles above and below 1 KiB), in both builds.
"""
from __future__ import annotations

import ctypes
import platform
import subprocess

import ml_dtypes
import numpy as np
import pytest

from tile_lib_util import compile_cxx, finish

P = ctypes.c_void_p
I = ctypes.c_int

CASES = r"""
#include "pto/pto-inst.hpp"
using namespace pto;

namespace {
template <typename T, int R, int C>
using VT = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                CompactMode::Null>;
template <typename T>
using GT = GlobalTensor<T, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<-1, -1, -1, -1, 1>, pto::Layout::ND>;

template <typename T>
GT<T> gview(T* p, int vr, int vc, int ld) {
    return GT<T>(p, pto::Shape<1, 1, 1, -1, -1>(1, 1, 1, vr, vc),
                 pto::Stride<-1, -1, -1, -1, 1>((int64_t)vr * ld, (int64_t)vr * ld, (int64_t)vr * ld, ld, 1));
}

// mode 0: dst is its own tile; 1: dst is src0 (in place); 2: dst starts `shift` rows into
// src0 (a partially overlapping view: rows must run first to last).
template <typename T, int R, int C>
void ew(int op, const void* a, const void* b, void* o, int vr, int vc, int mode, int shift) {
    constexpr int kBytes = R * C * (int)sizeof(T);
    constexpr int kB = (kBytes + 127) / 128 * 128;
    VT<T, R, C> ta(vr, vc), tb(vr, vc), td(vr, vc);
    TASSIGN(ta, 0);
    TASSIGN(tb, kB);
    if (mode == 0) TASSIGN(td, 2 * kB);
    else if (mode == 1) TASSIGN(td, 0);
    else TASSIGN(td, shift * C * (int)sizeof(T));
    GT<T> ga = gview((T*)a, vr, vc, C), gb = gview((T*)b, vr, vc, C), go = gview((T*)o, 2 * R, C, C);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    const T s = T(1.5f);
    switch (op) {
        case 0: TADD(td, ta, tb); break;
        case 1: TSUB(td, ta, tb); break;
        case 2: TMUL(td, ta, tb); break;
        case 3: TDIV(td, ta, tb); break;
        case 4: TMAX(td, ta, tb); break;
        case 5: TMIN(td, ta, tb); break;
        case 6: TADDS(td, ta, s); break;
        case 7: TMULS(td, ta, s); break;
        case 8: TDIVS(td, s, ta); break;
        case 9: TNEG(td, ta); break;
        case 10: TABS(td, ta); break;
        case 11: TRELU(td, ta); break;
        case 12: TSQRT(td, ta); break;
        case 13: TEXP(td, ta); break;
    }
    // the whole Vec buffer region of src0/dst: the caller checks every row, also the ones a
    // partially overlapping destination wrote
    VT<T, 2 * R, C> whole(2 * R, C);
    TASSIGN(whole, mode == 0 ? 2 * kB : 0);
    TSTORE(go, whole);
}

// TLOAD a vr x vc window at (r0, c0) of a GM array with row stride ld into a tile, TSTORE it
// back at the same place of `out` (same layout).
template <typename T, int R, int C>
void ldst(const void* g, void* out, int ld, int r0, int c0, int vr, int vc) {
    VT<T, R, C> t(vr, vc);
    TASSIGN(t, 0);
    const int64_t off = (int64_t)r0 * ld + c0;
    GT<T> src = gview((T*)g + off, vr, vc, ld), dst = gview((T*)out + off, vr, vc, ld);
    TLOAD(t, src);
    TSTORE(dst, t);
}
}  // namespace

#define EW(NAME, T, R, C) \
    extern "C" void NAME(int op, const void* a, const void* b, void* o, int vr, int vc, int mode, int shift) { \
        ew<T, R, C>(op, a, b, o, vr, vc, mode, shift); }
EW(ew_f32_big, float, 64, 128)
EW(ew_f32_small, float, 8, 32)
EW(ew_f16_big, half, 64, 128)
EW(ew_bf16_big, bfloat16_t, 32, 128)
EW(ew_i32_big, int32_t, 32, 128)

#define LDST(NAME, T, R, C) \
    extern "C" void NAME(const void* g, void* out, int ld, int r0, int c0, int vr, int vc) { \
        ldst<T, R, C>(g, out, ld, r0, c0, vr, vc); }
LDST(ldst_f32_big, float, 64, 128)
LDST(ldst_f32_small, float, 4, 16)
LDST(ldst_f16_big, half, 32, 256)
"""

EW_SHAPES = {  # name -> (dtype, R, C)
    "ew_f32_big": (np.float32, 64, 128),
    "ew_f32_small": (np.float32, 8, 32),
    "ew_f16_big": (np.float16, 64, 128),
    "ew_bf16_big": (ml_dtypes.bfloat16, 32, 128),
    "ew_i32_big": (np.int32, 32, 128),
}
LDST_SHAPES = {"ldst_f32_big": (np.float32, 64, 128), "ldst_f32_small": (np.float32, 4, 16),
               "ldst_f16_big": (np.float16, 32, 256)}
FLOAT_OPS = range(14)
INT_OPS = (0, 1, 2, 4, 5, 6, 7, 9, 10, 11)   # no TDIV/TDIVS/sqrt/exp on integers (zero divisors)


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tile_fast")
    src = d / "fast_cases.cpp"
    src.write_text(CASES)
    procs = {}
    for tag, extra in (("fast", ()), ("slow", ("-DPTO_CPU_NO_AVX2",))):
        procs[tag] = compile_cxx([src], d / f"fast_{tag}.so", opt="-O2",
                                 extra=("-DPTO_CPU_STANDALONE", "-fvect-cost-model=dynamic", *extra))
    out = {}
    for tag, proc in procs.items():
        finish(proc)
        so = ctypes.CDLL(str(d / f"fast_{tag}.so"))
        for name in EW_SHAPES:
            getattr(so, name).argtypes = [I, P, P, P, I, I, I, I]
        for name in LDST_SHAPES:
            getattr(so, name).argtypes = [P, P, I, I, I, I, I]
        out[tag] = so
    out["paths"] = {tag: d / f"fast_{tag}.so" for tag in ("fast", "slow")}
    return out


RNG = np.random.default_rng(77)


def _inputs(dt, R, C):
    if np.dtype(dt).kind == "i":
        a = RNG.integers(-1000, 1000, (R, C)).astype(dt)
        b = RNG.integers(-1000, 1000, (R, C)).astype(dt)
    else:
        a = (RNG.standard_normal((R, C)) * 3).astype(dt)
        b = (RNG.standard_normal((R, C)) * 3 + 0.25).astype(dt)
    return a, b


def _run(so, name, op, a, b, vr, vc, mode, shift=0):
    dt, R, C = EW_SHAPES[name]
    out = np.full((2 * R, C), 7, dtype=dt)
    getattr(so, name)(op, a.ctypes.data, b.ctypes.data, out.ctypes.data, vr, vc, mode, shift)
    return out


def _numpy_ref(op, a, b):
    f = a.astype(np.float64) if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16 else a.astype(np.int64)
    g = b.astype(f.dtype)
    return {0: lambda: f + g, 1: lambda: f - g, 2: lambda: f * g, 4: lambda: np.maximum(f, g),
            5: lambda: np.minimum(f, g), 6: lambda: f + 1.5 if f.dtype.kind == "f" else f + 1,
            7: lambda: f * 1.5 if f.dtype.kind == "f" else f * 1, 9: lambda: -f, 10: lambda: np.abs(f),
            11: lambda: np.maximum(f, 0)}[op]()


def _bits(x):
    return x.view(np.uint8)


@pytest.mark.parametrize("name", sorted(EW_SHAPES))
@pytest.mark.parametrize("region", ["full", "partial"])
@pytest.mark.parametrize("mode", [0, 1])
def test_elementwise_avx2_equals_baseline(libs, name, region, mode):
    dt, R, C = EW_SHAPES[name]
    vr, vc = (R, C) if region == "full" else (R - 3, C - 5)
    ops = INT_OPS if np.dtype(dt).kind == "i" else FLOAT_OPS
    for op in ops:
        a, b = _inputs(dt, R, C)
        fast = _run(libs["fast"], name, op, a, b, vr, vc, mode)
        slow = _run(libs["slow"], name, op, a, b, vr, vc, mode)
        # the valid region (the rest of the buffer holds whatever earlier cases left there)
        assert np.array_equal(_bits(fast[:vr, :vc].copy()), _bits(slow[:vr, :vc].copy())), (name, op, region, mode)
        res = fast[:vr, :vc]
        if op in (0, 1, 2, 4, 5, 9, 10, 11) or (op in (6, 7) and np.dtype(dt).kind == "f"):
            ref = _numpy_ref(op, a[:vr, :vc], b[:vr, :vc])
            if dt is np.float32 or np.dtype(dt).kind == "i":
                assert np.array_equal(res, ref.astype(dt)), (name, op)
            else:   # 16-bit floats: computed in f32, rounded once
                assert np.array_equal(_bits(res), _bits(ref.astype(np.float32).astype(dt))), (name, op)


def test_elementwise_f32_matches_numpy_exactly(libs):
    a, b = _inputs(np.float32, 64, 128)
    for op, fn in ((0, np.add), (1, np.subtract), (2, np.multiply), (3, np.divide)):
        out = _run(libs["fast"], "ew_f32_big", op, a, b, 64, 128, 1)
        assert np.array_equal(out[:64], fn(a, b)), op


@pytest.mark.parametrize("name", ["ew_f32_big", "ew_f32_small", "ew_i32_big"])
@pytest.mark.parametrize("shift", [1, 2])
def test_partially_overlapping_destination_runs_rows_in_order(libs, name, shift):
    """dst = src0 shifted down by `shift` rows: row r reads src0 row r after rows < r were written."""
    dt, R, C = EW_SHAPES[name]
    for op in (0, 9):    # TADD and TNEG
        a, b = _inputs(dt, R, C)
        vr, vc = R - shift, C
        buf = np.zeros((2 * R, C), dtype=dt)   # computed in the element type, like the tile library
        buf[:R] = a
        for r in range(vr):   # first-to-last, exactly what the baseline loop does
            buf[r + shift, :vc] = buf[r, :vc] + b[r, :vc] if op == 0 else -buf[r, :vc]
        for tag in ("fast", "slow"):
            out = _run(libs[tag], name, op, a, b, vr, vc, 2, shift)
            assert np.array_equal(out[:R], buf[:R]), (tag, name, op, shift)


def test_avx2_copy_is_built_on_x86(libs):
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the AVX2 dispatch exists on x86 only")
    syms = {tag: subprocess.run(["nm", "-C", str(p)], capture_output=True, text=True).stdout
            for tag, p in libs["paths"].items()}
    assert "binary_rows_avx2" in syms["fast"] and "unary_rows_avx2" in syms["fast"]
    assert "binary_rows_avx2" not in syms["slow"]


LDST_CASES = [
    # (id, extra GM rows, extra GM columns, r0, c0, valid rows(R), valid cols(C)): the block path
    # (rows contiguous and the tile as wide as them), partial valid rows, row by row (tile
    # narrower than the GM rows), an offset window
    ("block_full", 0, 0, 0, 0, lambda R: R, lambda C: C),
    ("block_partial_rows", 0, 0, 0, 0, lambda R: R // 2 + 1, lambda C: C),
    ("rows_narrow", 2, 3, 0, 0, lambda R: R, lambda C: C - 3),
    ("rows_window", 3, 16, 2, 5, lambda R: R - 1, lambda C: C - 8),
]


@pytest.mark.parametrize("name", sorted(LDST_SHAPES))
@pytest.mark.parametrize("case", LDST_CASES, ids=[c[0] for c in LDST_CASES])
@pytest.mark.parametrize("misalign", [0, 1])
def test_tload_tstore_fast_paths_copy_exactly(libs, name, case, misalign):
    dt, R, C = LDST_SHAPES[name]
    _, extra_rows, extra_cols, r0, c0, vr_f, vc_f = case
    vr, vc = vr_f(R), vc_f(C)
    rows, ld = R + extra_rows + r0, C + extra_cols + c0
    # misalign: the GM arrays start one element past an aligned address
    raw = (RNG.standard_normal(rows * ld + 16) * 5).astype(dt)
    g = raw[misalign:misalign + rows * ld].reshape(rows, ld)
    raw_out = np.full(rows * ld + 16, -3, dtype=dt)
    out = raw_out[misalign:misalign + rows * ld].reshape(rows, ld)
    assert (g.ctypes.data % 8 != 0) == bool(misalign and np.dtype(dt).itemsize < 8)
    for tag in ("fast", "slow"):
        out[:] = -3
        getattr(libs[tag], name)(g.ctypes.data, out.ctypes.data, ld, r0, c0, vr, vc)
        expect = np.full_like(out, -3)
        expect[r0:r0 + vr, c0:c0 + vc] = g[r0:r0 + vr, c0:c0 + vc]
        assert np.array_equal(_bits(out), _bits(expect)), (tag, name, case[0], misalign)
