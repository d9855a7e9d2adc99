// CPU tile library: the f32 inner product of the cube (TMATMUL and its forms), blocked for
// registers.
//
// c[i][j] = sum over k of a[i][k] * b[k][j], for i < m and j < n, where every element is summed
// exactly as the plain loop does it: start from +0.0f, then add a[i][k] * b[k][j] for k = 0, 1,
// ..., K-1, one IEEE multiply and one IEEE add each (no fused multiply-add). Blocking only changes
// which elements are worked on side by side (a block of MR rows x NV vectors of columns keeps its
// sums in registers for the whole of K), never the order of one element's operations, so the
// result is bit-identical to the plain loop (tests/runtime/test_tile_lib_gemm.py compares them).
//
// The tile library calls it through the runtime library's hooks (pto_cpu_gemm_f32,
// pto_cpu_widen16 in cpu_sim_hooks.h, defined by gemm_hooks.hpp), so that it is compiled once per
// cache rather than in every cube kernel; a stand-alone build (PTO_CPU_STANDALONE) inlines it.
//
// The block is written with the compiler's vector extension, compiled for the build's baseline
// (SSE2 on x86-64) and, through target("avx2"), for AVX2 when the CPU has it (ops.hpp's dispatch;
// the avx2 target has no FMA, so nothing can be contracted). Columns are worked on a whole vector
// at a time: `b` must be readable (any values) up to the next multiple of the vector width past
// n, and the columns computed there are not stored.
#ifndef PTO_CPU_GEMM_HPP
#define PTO_CPU_GEMM_HPP

#include <stdint.h>
#include <string.h>

// The block's loops over its rows and vectors are unrolled, so its sums stay in registers.
#if defined(__clang__)
#define PTO_CPU_GEMM_UNROLL _Pragma("unroll")
#else
#define PTO_CPU_GEMM_UNROLL _Pragma("GCC unroll 16")
#endif

namespace pto {
namespace cpu {
namespace gemm {

// Rows of a register block, and the widest block in vectors of columns.
constexpr int kRows = 6;
constexpr int kVecs = 2;

template <int W>
struct vec {
    typedef float type __attribute__((vector_size(W * sizeof(float))));
};

// One block: rows [0, R) x the vector columns [0, NV * W) of c (c's row stride ldc). `cols`
// (<= NV * W) is how many of them are stored.
template <int W, int R, int NV>
__attribute__((always_inline)) inline void block(int K, const float* a, int64_t lda, const float* b, int64_t ldb,
                                                 float* c, int64_t ldc, int cols) {
    typedef typename vec<W>::type V;
    V acc[R][NV];
    PTO_CPU_GEMM_UNROLL
    for (int r = 0; r < R; ++r)
        PTO_CPU_GEMM_UNROLL
        for (int v = 0; v < NV; ++v) acc[r][v] = V{};
    for (int k = 0; k < K; ++k) {
        V bv[NV];
        PTO_CPU_GEMM_UNROLL
        for (int v = 0; v < NV; ++v) memcpy(&bv[v], b + (int64_t)k * ldb + v * W, sizeof(V));
        PTO_CPU_GEMM_UNROLL
        for (int r = 0; r < R; ++r) {
            const float x = a[(int64_t)r * lda + k];
            PTO_CPU_GEMM_UNROLL
            for (int v = 0; v < NV; ++v) {
                const V p = bv[v] * x;
                acc[r][v] = acc[r][v] + p;
            }
        }
    }
    PTO_CPU_GEMM_UNROLL
    for (int r = 0; r < R; ++r) {
        float* cr = c + (int64_t)r * ldc;
        if (cols == NV * W) {
            for (int v = 0; v < NV; ++v) memcpy(cr + v * W, &acc[r][v], sizeof(V));
        } else {
            float t[NV * W];
            for (int v = 0; v < NV; ++v) memcpy(t + v * W, &acc[r][v], sizeof(V));
            memcpy(cr, t, sizeof(float) * (size_t)cols);
        }
    }
}

// A band of R rows across all n columns: blocks of kVecs vectors, then single vectors.
template <int W, int R>
__attribute__((always_inline)) inline void band(int n, int K, const float* a, int64_t lda, const float* b, int64_t ldb,
                                                float* c, int64_t ldc) {
    int j = 0;
    for (; j + kVecs * W <= n; j += kVecs * W) block<W, R, kVecs>(K, a, lda, b + j, ldb, c + j, ldc, kVecs * W);
    for (; j < n; j += W) block<W, R, 1>(K, a, lda, b + j, ldb, c + j, ldc, n - j < W ? n - j : W);
}

template <int W>
__attribute__((always_inline)) inline void run(int m, int n, int K, const float* a, int64_t lda, const float* b,
                                               int64_t ldb, float* c, int64_t ldc) {
    int i = 0;
    for (; i + kRows <= m; i += kRows)
        band<W, kRows>(n, K, a + (int64_t)i * lda, lda, b, ldb, c + (int64_t)i * ldc, ldc);
    for (; i < m; ++i) band<W, 1>(n, K, a + (int64_t)i * lda, lda, b, ldb, c + (int64_t)i * ldc, ldc);
}

// Vector width (floats) of the baseline build.
#if defined(__AVX2__)
constexpr int kBaseWidth = 8;
#else
constexpr int kBaseWidth = 4;
#endif

#if PTO_CPU_AVX2_DISPATCH
__attribute__((target("avx2"), noinline)) inline void run_avx2(int m, int n, int K, const float* a, int64_t lda,
                                                              const float* b, int64_t ldb, float* c, int64_t ldc) {
    run<8>(m, n, K, a, lda, b, ldb, c, ldc);
}
#endif

// Rows of IEEE half (Bf16 = false) or bfloat16 bits as f32: the same values as types.hpp's
// f16_to_f32 / bf16_to_f32 (exact conversions), written without branches so that it vectorises.
template <bool Bf16>
__attribute__((always_inline)) inline void widen_rows(const uint16_t* src, int64_t lds, float* dst, int64_t ldd,
                                                      int rows, int n) {
    for (int r = 0; r < rows; ++r) {
        const uint16_t* s = src + (int64_t)r * lds;
        float* d = dst + (int64_t)r * ldd;
        if (Bf16) {
            for (int i = 0; i < n; ++i) d[i] = __builtin_bit_cast(float, (uint32_t)s[i] << 16);
            continue;
        }
        for (int i = 0; i < n; ++i) {
            const uint32_t h = s[i];
            const uint32_t em = h & 0x7fffu, sign = (h & 0x8000u) << 16, e = em >> 10;
            // e == 0: m * 2^-24 (zero or subnormal); e == 31: inf / NaN; else rebias the exponent
            const uint32_t sub = __builtin_bit_cast(uint32_t, (float)(int32_t)em * 5.9604644775390625e-08f);
            const uint32_t wide = (em << 13) + 0x38000000u + (e == 31u) * 0x38000000u;
            const uint32_t zero = 0u - (uint32_t)(e == 0u);   // all ones when e == 0
            d[i] = __builtin_bit_cast(float, sign | (sub & zero) | (wide & ~zero));
        }
    }
}

#if PTO_CPU_AVX2_DISPATCH
template <bool Bf16>
__attribute__((target("avx2"), noinline)) void widen_rows_avx2(const uint16_t* src, int64_t lds, float* dst,
                                                             int64_t ldd, int rows, int n) {
    widen_rows<Bf16>(src, lds, dst, ldd, rows, n);
}
#endif

template <bool Bf16>
__attribute__((noinline)) inline void widen(const uint16_t* src, int64_t lds, float* dst, int64_t ldd, int rows, int n) {
#if PTO_CPU_AVX2_DISPATCH
    if (cpu_has_avx2()) {
        widen_rows_avx2<Bf16>(src, lds, dst, ldd, rows, n);
        return;
    }
#endif
    widen_rows<Bf16>(src, lds, dst, ldd, rows, n);
}

// How many floats past column n of each row of b may be read: up to the widest vector in use
// (the hook's contract in cpu_sim_hooks.h says 8).
constexpr int kMaxWidth = 8;

__attribute__((noinline)) inline void blocked(int m, int n, int K, const float* a, int64_t lda, const float* b,
                                          int64_t ldb, float* c, int64_t ldc) {
#if PTO_CPU_AVX2_DISPATCH
    if (cpu_has_avx2()) {
        run_avx2(m, n, K, a, lda, b, ldb, c, ldc);
        return;
    }
#endif
    run<kBaseWidth>(m, n, K, a, lda, b, ldb, c, ldc);
}

}  // namespace gemm
}  // namespace cpu
}  // namespace pto

#endif
