"""The cube's blocked inner product (pto/cpu/gemm.hpp) against a plain reference, bit for bit.

The tile library's TMATMUL sums each output element from +0.0f over k ascending, one f32 multiply
and one f32 add per step (no fused multiply-add); blocking for registers and vectors must not
change a single bit of that. The reference below is numpy doing exactly those steps in float32
(``acc = acc + a[:, k] * b[k, :]``), so it is independent of the C++.

Cases: f32 (operands used in place), f16 and bf16 (converted to f32 once per call), the
transposed-layout (ZN Left / NZ Right) tiles, a Right tile whose row is narrower than the widest
vector block (the operand is packed), odd shapes (1, primes, one past a block), TMATMUL_ACC in
place and from another Acc tile, TMATMUL_BIAS, TMATMUL_MX (E4M3 x E8M0 scales); each in four
builds (BUILDS: stand-alone with and without the AVX2 copy, through the runtime library's hooks,
and the plain loops of a kernel without a runtime library), which must all agree with the
reference and so with each other.
"""
from __future__ import annotations

import ctypes
import json
import platform
import subprocess
import sys
from pathlib import Path

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
template <typename T>
using GT = GlobalTensor<T, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<-1, -1, -1, -1, 1>, pto::Layout::ND>;

template <typename T>
GT<T> gview(T* p, int vr, int vc, int ld) {
    return GT<T>(p, pto::Shape<1, 1, 1, -1, -1>(1, 1, 1, vr, vc),
                 pto::Stride<-1, -1, -1, -1, 1>((int64_t)vr * ld, (int64_t)vr * ld, (int64_t)vr * ld, ld, 1));
}

// Two operands of each side fit the L0 buffers (64 KiB each on a2a3).
// a: M x K (ld K), b: K x N (ld N) of T; a2/b2 the same shapes; bias: 1 x N f32; out: M x N f32.
// mode 0: TMATMUL(a, b); 1: then TMATMUL_ACC(c, c, a2, b2) (in place); 2: c2 = a2 @ b2, then
// TMATMUL_ACC(c, c2, a, b) (another Acc tile as input); 3: TMATMUL_BIAS(a, b, bias).
template <typename T, typename L, typename R, int AR, int AC>
void mm(int mode, const void* a, const void* b, const void* a2, const void* b2, const float* bias, float* out,
        int M, int K, int N) {
    using A = Tile<TileType::Acc, float, AR, AC, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    using B = Tile<TileType::Bias, float, 1, AC, BLayout::RowMajor, -1, -1>;
    L l(M, K), l2(M, K);
    R r(K, N), r2(K, N);
    A c(M, N), c2(M, N);
    B bt(1, N);
    TASSIGN(l, 0);
    TASSIGN(l2, (int64_t)sizeof(T) * L::Rows * L::Cols);
    TASSIGN(r, 0);
    TASSIGN(r2, (int64_t)sizeof(T) * R::Rows * R::Cols);
    TASSIGN(c, 0);
    TASSIGN(c2, (int64_t)sizeof(float) * AR * AC);
    TASSIGN(bt, 0);
    GT<T> ga = gview((T*)a, M, K, K), gb = gview((T*)b, K, N, N);
    GT<T> ga2 = gview((T*)a2, M, K, K), gb2 = gview((T*)b2, K, N, N);
    GT<float> gbias = gview((float*)bias, 1, N, N), go = gview(out, M, N, N);
    TLOAD(l, ga);
    TLOAD(r, gb);
    TLOAD(l2, ga2);
    TLOAD(r2, gb2);
    TLOAD(bt, gbias);
    switch (mode) {
        case 0: TMATMUL(c, l, r); break;
        case 1: TMATMUL(c, l, r); TMATMUL_ACC(c, c, l2, r2); break;
        case 2: TMATMUL(c2, l2, r2); TMATMUL_ACC(c, c2, l, r); break;
        case 3: TMATMUL_BIAS(c, l, r, bt); break;
    }
    TSTORE(go, c);
}

template <typename T, int MM, int KK>
using LeftT = Tile<TileType::Left, T, MM, KK, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
template <typename T, int MM, int KK>   // ZN: stored transposed
using LeftZN = Tile<TileType::Left, T, MM, KK, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
template <typename T, int KK, int NN>
using RightT = Tile<TileType::Right, T, KK, NN, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
template <typename T, int KK, int NN>   // NZ: stored transposed
using RightNZ = Tile<TileType::Right, T, KK, NN, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
template <typename T, int KK, int NN>   // no fractal box: any column count
using RightPlain = Tile<TileType::Right, T, KK, NN, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512>;
}  // namespace

using mm_f32_L = LeftT<float, 64, 128>;
using mm_f32_R = RightT<float, 128, 48>;
using mm_f16_L = LeftT<half, 128, 128>;
using mm_f16_R = RightT<half, 128, 128>;
using mm_bf16_L = LeftT<bfloat16_t, 64, 128>;
using mm_bf16_R = RightT<bfloat16_t, 128, 64>;
using mm_f32_zn_nz_L = LeftZN<float, 48, 64>;
using mm_f32_zn_nz_R = RightNZ<float, 64, 48>;
using mm_f16_zn_nz_L = LeftZN<half, 48, 64>;
using mm_f16_zn_nz_R = RightNZ<half, 64, 48>;
using mm_f32_narrow_L = LeftT<float, 32, 40>;
using mm_f32_narrow_R = RightPlain<float, 40, 20>;

// name, element type, Acc rows, Acc columns (Left / Right: the NAME_L / NAME_R aliases)
#define MM_CASE(NAME, T, AR, AC)                                                                          \
    extern "C" void NAME(int mode, const void* a, const void* b, const void* a2, const void* b2,          \
                         const float* bias, float* out, int M, int K, int N) {                            \
        mm<T, NAME##_L, NAME##_R, AR, AC>(mode, a, b, a2, b2, bias, out, M, K, N);                        \
    }
MM_CASE(mm_f32, float, 64, 48)
MM_CASE(mm_f16, half, 128, 128)
MM_CASE(mm_bf16, bfloat16_t, 64, 64)
MM_CASE(mm_f32_zn_nz, float, 48, 48)
MM_CASE(mm_f16_zn_nz, half, 48, 48)
MM_CASE(mm_f32_narrow, float, 32, 32)

// TMATMUL_MX (mode 0) / its accumulating form onto c2 = 0-initialised by a first MX call
// (mode 1): a, b E4M3 codes; sa [M, G], sb [G, N] E8M0 codes (G = ceil(K / 32)).
extern "C" void mm_mx(int mode, const void* a, const void* b, const void* sa, const void* sb, float* out, int M,
                      int K, int N) {
    using L = Tile<TileType::Left, float8_e4m3_t, 32, 96, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using R = Tile<TileType::Right, float8_e4m3_t, 96, 48, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    using SL = Tile<TileType::ScaleLeft, float8_e8m0_t, 32, 3, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 32>;
    using SR = Tile<TileType::ScaleRight, float8_e8m0_t, 3, 48, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 32>;
    using A = Tile<TileType::Acc, float, 32, 48, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    const int G = (K + 31) / 32;
    L l(M, K);
    R r(K, N);
    SL sl(M, G);
    SR sr(G, N);
    A c(M, N);
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(sl, 0);
    TASSIGN(sr, 0);
    TASSIGN(c, 0);
    GT<float8_e4m3_t> ga = gview((float8_e4m3_t*)a, M, K, K), gb = gview((float8_e4m3_t*)b, K, N, N);
    GT<float8_e8m0_t> gsa = gview((float8_e8m0_t*)sa, M, G, G), gsb = gview((float8_e8m0_t*)sb, G, N, N);
    GT<float> go = gview(out, M, N, N);
    TLOAD(l, ga);
    TLOAD(r, gb);
    TLOAD(sl, gsa);
    TLOAD(sr, gsb);
    TMATMUL_MX(c, l, sl, r, sr);
    if (mode == 1) TMATMUL_MX(c, c, l, sl, r, sr);
    TSTORE(go, c);
}
"""

# name -> (numpy dtype, max M, max K, max N)
CASE_SHAPES = {
    "mm_f32": (np.float32, 64, 128, 48),
    "mm_f16": (np.float16, 128, 128, 128),
    "mm_bf16": (ml_dtypes.bfloat16, 64, 128, 64),
    "mm_f32_zn_nz": (np.float32, 48, 64, 48),
    "mm_f16_zn_nz": (np.float16, 48, 64, 48),
    "mm_f32_narrow": (np.float32, 32, 40, 20),
}

# (M, K, N) as fractions of the case's maximum: full, odd, one-element, one past a block
SHAPES = [
    lambda m, k, n: (m, k, n),
    lambda m, k, n: (1, 1, 1),
    lambda m, k, n: (min(m, 7), min(k, 5), min(n, 3)),
    lambda m, k, n: (m - 1, k - 3, n - 1),
    lambda m, k, n: (min(m, 17), min(k, 33), min(n, 9)),
    lambda m, k, n: (5, k, min(n, 17)),
]


HOOKS = r"""
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
#include "pto/cpu/gemm_hooks.hpp"
"""

# build -> (extra flags, extra sources): the stand-alone library inlines the blocked code (with the
# AVX2 copy, and the baseline copy alone); a kernel built for the simulator calls the runtime
# library's hooks ("hooked": a source defining them, as the simulator's library does) or, with no
# runtime library, plain loops ("plain")
BUILDS = {
    "fast": (("-DPTO_CPU_STANDALONE",), ()),
    "baseline": (("-DPTO_CPU_STANDALONE", "-DPTO_CPU_NO_AVX2"), ()),
    "hooked": ((), ("hooks.cpp",)),
    "plain": ((), ()),
}


# builds whose kernels reach for the simulator's hooks: run in a child process, where no runtime
# library is loaded (in this one another test may have loaded libptosim, and the kernels' weak
# hooks would bind to it)
SIM_BUILDS = ("hooked", "plain")
STANDALONE_BUILDS = tuple(sorted(set(BUILDS) - set(SIM_BUILDS)))


def _load(path):
    so = ctypes.CDLL(str(path))
    for name in CASE_SHAPES:
        getattr(so, name).argtypes = [I, P, P, P, P, P, P, I, I, I]
    so.mm_mx.argtypes = [I, P, P, P, P, P, I, I, I]
    return so


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tile_gemm")
    src = d / "gemm_cases.cpp"
    src.write_text(CASES)
    (d / "hooks.cpp").write_text(HOOKS)
    procs = {tag: compile_cxx([src, *(d / x for x in more)], d / f"gemm_{tag}.so", opt="-O2",
                              extra=("-fvect-cost-model=dynamic", *extra))
             for tag, (extra, more) in BUILDS.items()}
    for proc in procs.values():
        finish(proc)
    out = {tag: _load(d / f"gemm_{tag}.so") for tag in STANDALONE_BUILDS}
    out["paths"] = {tag: d / f"gemm_{tag}.so" for tag in BUILDS}
    return out


def sequential_f32(a, b):
    """Each element from +0 over k ascending, one f32 multiply and one f32 add per step."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = acc + a32[:, k:k + 1] * b32[k:k + 1, :]
    return acc


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint32)


RNG = np.random.default_rng(33)


def _operand(dt, shape):
    x = RNG.standard_normal(shape) * 2
    x[RNG.random(shape) < 0.05] = 0.0     # zeros, negative zeros and exact cancellations too
    x[RNG.random(shape) < 0.02] = -0.0
    return x.astype(dt)


def _check_mm(lib, name, mode):
    dt, mm, kk, nn = CASE_SHAPES[name]
    for shape in SHAPES:
        M, K, N = shape(mm, kk, nn)
        a, b, a2, b2 = _operand(dt, (M, K)), _operand(dt, (K, N)), _operand(dt, (M, K)), _operand(dt, (K, N))
        bias = RNG.standard_normal((1, N)).astype(np.float32)
        out = np.full((M, N), np.nan, np.float32)
        getattr(lib, name)(mode, a.ctypes.data, b.ctypes.data, a2.ctypes.data, b2.ctypes.data, bias.ctypes.data,
                           out.ctypes.data, M, K, N)
        ref = sequential_f32(a, b)
        if mode in (1, 2):   # the Acc input plus the new sums, as the library adds them
            ref = sequential_f32(a2, b2) + ref if mode == 2 else ref + sequential_f32(a2, b2)
        elif mode == 3:
            ref = ref + bias
        assert np.array_equal(_bits(out), _bits(ref)), (name, mode, (M, K, N))


def _check_mx(lib, mode):
    for M, K, N in ((32, 96, 48), (1, 1, 1), (7, 33, 17), (31, 64, 40)):
        G = (K + 31) // 32
        a = _operand(np.float32, (M, K)).astype(ml_dtypes.float8_e4m3fn)
        b = _operand(np.float32, (K, N)).astype(ml_dtypes.float8_e4m3fn)
        sa = RNG.integers(120, 134, (M, G)).astype(np.uint8)   # E8M0: 2^(code - 127)
        sb = RNG.integers(120, 134, (G, N)).astype(np.uint8)
        out = np.full((M, N), np.nan, np.float32)
        lib.mm_mx(mode, a.ctypes.data, b.ctypes.data, sa.ctypes.data, sb.ctypes.data, out.ctypes.data, M, K, N)
        ks = np.arange(K) // 32
        scaled_a = a.astype(np.float32) * np.exp2(sa[:, ks].astype(np.float32) - 127)
        scaled_b = b.astype(np.float32) * np.exp2(sb[ks, :].astype(np.float32) - 127)
        ref = sequential_f32(scaled_a, scaled_b)
        if mode == 1:
            ref = ref + ref
        assert np.array_equal(_bits(out), _bits(ref)), ("mm_mx", mode, (M, K, N))


def _check_all(path):
    """Every case of one build (run in a child process): the failures, and how many ran."""
    lib, failures, ran = _load(path), [], 0
    checks = [(_check_mm, (name, mode)) for name in sorted(CASE_SHAPES) for mode in range(4)]
    checks += [(_check_mx, (mode,)) for mode in range(2)]
    for fn, args in checks:
        ran += 1
        try:
            fn(lib, *args)
        except AssertionError as e:
            failures.append(str(e))
    return {"ran": ran, "failures": failures}


@pytest.mark.parametrize("tag", STANDALONE_BUILDS)
@pytest.mark.parametrize("name", sorted(CASE_SHAPES))
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_matmul_bits_equal_sequential_reference(libs, tag, name, mode):
    _check_mm(libs[tag], name, mode)


@pytest.mark.parametrize("tag", STANDALONE_BUILDS)
@pytest.mark.parametrize("mode", [0, 1])
def test_mx_matmul_bits_equal_sequential_reference(libs, tag, mode):
    _check_mx(libs[tag], mode)


@pytest.mark.parametrize("tag", SIM_BUILDS)
def test_kernels_built_for_the_simulator_bits_equal_sequential_reference(libs, tag):
    code = ("import json, sys; sys.path[:0] = [sys.argv[1]]; import test_tile_lib_gemm as t; "
            "print(json.dumps(t._check_all(sys.argv[2])))")
    p = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent), str(libs["paths"][tag])],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    assert res["ran"] == 4 * len(CASE_SHAPES) + 2 and res["failures"] == [], res


def test_the_reference_is_not_numpys_blocked_product():
    """The comparison above can fail: a different summation order changes bits on such data."""
    a, b = _operand(np.float32, (64, 128)), _operand(np.float32, (128, 64))
    pairwise = (a[:, :64] @ b[:64]) + (a[:, 64:] @ b[64:])
    assert not np.array_equal(_bits(sequential_f32(a, b)), _bits(pairwise.astype(np.float32)))


def _symbols(path):
    return subprocess.run(["nm", "-C", str(path)], capture_output=True, text=True).stdout


def test_avx2_gemm_is_built_on_x86(libs):
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the AVX2 dispatch exists on x86 only")
    syms = {tag: _symbols(p) for tag, p in libs["paths"].items()}
    assert "run_avx2" in syms["fast"] and "widen_rows_avx2" in syms["fast"]
    assert "run_avx2" not in syms["baseline"]


def test_kernels_for_the_simulator_call_the_hooks_not_the_blocked_code(libs):
    """The blocked code is compiled once, in the runtime library: a kernel only calls the hook."""
    plain, hooked = _symbols(libs["paths"]["plain"]), _symbols(libs["paths"]["hooked"])
    assert "gemm::blocked" not in plain and "gemm::widen" not in plain
    assert "w pto_cpu_gemm_f32" in plain and "w pto_cpu_widen16" in plain
    assert "T pto_cpu_gemm_f32" in hooked and "gemm::blocked" in hooked
