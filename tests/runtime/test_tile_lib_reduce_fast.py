"""Fast reduction loops of the CPU tile library against the reference loops, bit for bit, and
column sums as the vector unit adds (each addition rounded to the tile's dtype, sequential and
binary-tree forms) against numpy doing the same.

Row and column sums, maxima and minima have a faster loop (several rows' accumulators at once;
columns as contiguous passes) that must give exactly the reference loop's bits:
``-DPTO_CPU_REFERENCE_LOOPS`` builds the reference loop, the default build the fast one, and
both run the same cases -- every dtype, full and partial valid regions, NaN (first and later),
signed zeros and infinities, and a result tile that overlaps its source (the fast loop must
then step aside). The project's base flags (``-fno-math-errno``) also let TSQRT/TRSQRT
vectorise: checked against the build without that flag and against numpy's IEEE sqrt.
"""
from __future__ import annotations

import ctypes

import ml_dtypes
import numpy as np
import pytest

from ptokit.runtime.compilers import GCC_BASE_FLAGS
from tile_lib_util import compile_cxx, finish
from vector_sums import column_sum

P = ctypes.c_void_p
I = ctypes.c_int

CASES = r"""
#include <string.h>
#include "pto/pto-inst.hpp"
using namespace pto;

namespace {
template <typename T, int R, int C, BLayout L = BLayout::RowMajor>
using VT = Tile<TileType::Vec, T, R, C, L, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;

// op 0..2: TROWSUM/TROWMAX/TROWMIN into rows[R]; 3..5: TCOLSUM/TCOLMAX/TCOLMIN into cols[C];
// 6: the binary-tree TCOLSUM (scratch tile, isBinary) into cols[C].
// overlap: the result tile starts at the source's first element (an in-place reduction).
template <typename T, int R, int C>
void red(int op, const void* a, void* rows, void* cols, int vr, int vc, int overlap) {
    constexpr int kB = (R * C * (int)sizeof(T) + 127) / 128 * 128;
    VT<T, R, C> src(vr, vc), tmp(vr, vc);
    VT<T, R, 1, BLayout::ColMajor> rv(vr, 1);
    VT<T, 1, C> cv(1, vc);
    TASSIGN(src, 0);
    TASSIGN(tmp, kB);
    TASSIGN(rv, overlap ? 0 : 2 * kB);
    TASSIGN(cv, overlap ? 0 : 2 * kB + 4096);
    memcpy(src.data(), a, sizeof(T) * R * C);
    switch (op) {
        case 0: TROWSUM(rv, src, tmp); break;
        case 1: TROWMAX(rv, src, tmp); break;
        case 2: TROWMIN(rv, src, tmp); break;
        case 3: TCOLSUM(cv, src); break;
        case 4: TCOLMAX(cv, src); break;
        case 5: TCOLMIN(cv, src); break;
        case 6: TCOLSUM(cv, src, tmp, true); break;
    }
    if (op < 3) memcpy(rows, rv.data(), sizeof(T) * vr);
    else memcpy(cols, cv.data(), sizeof(T) * vc);
}

template <typename T, int R, int C>
void unary(int op, const void* a, void* out) {
    VT<T, R, C> src(R, C), dst(R, C);
    TASSIGN(src, 0);
    TASSIGN(dst, 65536);
    memcpy(src.data(), a, sizeof(T) * R * C);
    if (op == 0) TSQRT(dst, src);
    else TRSQRT(dst, src);
    memcpy(out, dst.data(), sizeof(T) * R * C);
}
}  // namespace

#define RED(NAME, T, R, C) \
    extern "C" void NAME(int op, const void* a, void* rows, void* cols, int vr, int vc, int ov) { \
        red<T, R, C>(op, a, rows, cols, vr, vc, ov); }
RED(red_f32, float, 64, 128)
RED(red_f32_odd, float, 16, 40)
RED(red_f16, half, 32, 128)
RED(red_bf16, bfloat16_t, 32, 64)
RED(red_i32, int32_t, 32, 64)
RED(red_i16, int16_t, 16, 64)

extern "C" void un_f32(int op, const void* a, void* out) { unary<float, 32, 64>(op, a, out); }
extern "C" void un_f16(int op, const void* a, void* out) { unary<half, 32, 64>(op, a, out); }
"""

SHAPES = {"red_f32": (np.float32, 64, 128), "red_f32_odd": (np.float32, 16, 40), "red_f16": (np.float16, 32, 128),
          "red_bf16": (ml_dtypes.bfloat16, 32, 64), "red_i32": (np.int32, 32, 64), "red_i16": (np.int16, 16, 64)}
BASE = [f for f in GCC_BASE_FLAGS if f not in ("-fPIC", "-shared")]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tile_reduce")
    src = d / "reduce_cases.cpp"
    src.write_text(CASES)
    builds = {"fast": BASE,
              "ref": [f for f in BASE if f != "-fno-math-errno"] + ["-DPTO_CPU_REFERENCE_LOOPS"]}
    procs = {tag: compile_cxx([src], d / f"red_{tag}.so", opt="-O2", extra=("-DPTO_CPU_STANDALONE", *flags))
             for tag, flags in builds.items()}
    out = {}
    for tag, proc in procs.items():
        finish(proc)
        so = ctypes.CDLL(str(d / f"red_{tag}.so"))
        for name in SHAPES:
            getattr(so, name).argtypes = [I, P, P, P, I, I, I]
        for name in ("un_f32", "un_f16"):
            getattr(so, name).argtypes = [I, P, P]
        out[tag] = so
    return out


def _input(dt, R, C, special, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "i":
        return rng.integers(-300, 300, (R, C)).astype(dt)
    a = (rng.standard_normal((R, C)) * 100).astype(dt)
    if special:
        a[0, 0] = np.nan                  # a NaN first: kept by max/min
        a[1, 5] = np.nan                  # a NaN later: skipped by the comparisons
        a[2, :] = -0.0                    # all negative zeros: the sum's 0 + -0 is +0
        a[3, 0], a[3, 1] = 0.0, -0.0      # equal zeros: max/min keep the first
        a[4, 7] = np.inf
        a[5, 3] = -np.inf
        a[:, 2] = np.where(np.arange(R) % 2 == 0, -0.0, 0.0)
    return a


def _run(so, name, op, a, vr, vc, overlap):
    dt, R, C = SHAPES[name]
    rows = np.full(R, 7, dt)
    cols = np.full(C, 7, dt)
    getattr(so, name)(op, a.ctypes.data, rows.ctypes.data, cols.ctypes.data, vr, vc, overlap)
    return rows[:vr] if op < 3 else cols[:vc]   # op 6 is a column sum too


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint8)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_fast_reductions_equal_the_reference_loop(libs, name):
    dt, R, C = SHAPES[name]
    checked = 0
    for seed, special in ((1, False), (2, True)):
        if special and np.dtype(dt).kind == "i":
            continue
        a = _input(dt, R, C, special, seed)
        for vr, vc in ((R, C), (R - 3, C - 5), (1, C), (R, 1)):
            for overlap in (0, 1):
                for op in range(7):
                    fast = _run(libs["fast"], name, op, a, vr, vc, overlap)
                    ref = _run(libs["ref"], name, op, a, vr, vc, overlap)
                    assert np.array_equal(_bits(fast), _bits(ref)), (name, op, vr, vc, overlap, special, fast, ref)
                    checked += 1
                    if overlap or special or np.dtype(dt).kind == "i":
                        continue
                    if op in (3, 6):   # column sums: every addition in the dtype
                        want = column_sum(a[:vr, :vc], binary=op == 6)
                        assert np.array_equal(_bits(fast), _bits(want)), (name, op, vr, vc, fast, want)
                        continue
                    # numpy in the same order: a running double sum (cumsum), exact max/min
                    x = a[:vr, :vc].astype(np.float64)
                    axis = 1 if op < 3 else 0
                    want = {0: lambda: np.cumsum(x, axis=axis).take(-1, axis=axis), 1: lambda: x.max(axis=axis),
                            2: lambda: x.min(axis=axis)}[op % 3]()
                    got = fast if dt is np.float32 else fast.astype(np.float32)
                    exp = want.astype(np.float32) if dt is np.float32 else want.astype(np.float32).astype(dt).astype(
                        np.float32)
                    assert np.array_equal(got, exp), (name, op, vr, vc)
    assert checked >= 56


def test_sqrt_vectorised_keeps_the_ieee_bits(libs):
    rng = np.random.default_rng(5)
    for name, dt in (("un_f32", np.float32), ("un_f16", np.float16)):
        a = np.abs(rng.standard_normal((32, 64)) * 50).astype(dt)
        a[0, :4] = [0.0, -0.0, np.inf, np.nan]
        a[1, :2] = [-1.0, -np.inf]        # NaN results
        for op in (0, 1):
            fast = np.zeros_like(a)
            ref = np.zeros_like(a)
            getattr(libs["fast"], name)(op, a.ctypes.data, fast.ctypes.data)
            getattr(libs["ref"], name)(op, a.ctypes.data, ref.ctypes.data)
            assert np.array_equal(_bits(fast), _bits(ref)), (name, op)
            x = a.astype(np.float32)
            with np.errstate(invalid="ignore", divide="ignore"):
                want = np.sqrt(x) if op == 0 else np.float32(1) / np.sqrt(x)
            assert np.array_equal(_bits(fast), _bits(want.astype(dt))), (name, op)


def test_reference_loops_switch_reaches_the_tree_build_and_its_key(monkeypatch, tmp_path):
    from ptokit.runtime import build as B
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PTOKIT_TILE_REFERENCE_LOOPS", raising=False)
    src = tmp_path / "k.cpp"
    src.write_text('#include "pto/pto-inst.hpp"\n')
    fast_key = B.build_key(src, include_dirs=[B.INCLUDE_DIR], extra_flags=B.tree_flags())
    assert "-DPTO_CPU_REFERENCE_LOOPS" not in B.tree_flags()
    monkeypatch.setenv("PTOKIT_TILE_REFERENCE_LOOPS", "1")
    flags = B.tree_flags()
    assert "-DPTO_CPU_REFERENCE_LOOPS" in flags and "-fmath-errno" in flags
    assert B.build_key(src, include_dirs=[B.INCLUDE_DIR], extra_flags=flags) != fast_key
