// CPU tile library: SIMD dispatch.
#ifndef PTO_CPU_SIMD_HPP
#define PTO_CPU_SIMD_HPP

namespace pto {
namespace cpu {
// The element-wise row loops and the cube's inner product (gemm.hpp) are compiled twice: for
// the build's baseline (SSE2 on x86-64 at -O2) and, through target("avx2"), for AVX2, which runs
// when the CPU has it. Both copies do the same IEEE operations element by element, so results are
// bit-identical; only the vector width differs. The avx2 target has no FMA: g++ contracts a
// multiply and an add into one fused operation (one rounding) wherever the target has FMA,
// -std=c++17 or not, so a target with FMA (fma, avx512f) would change results. PTO_CPU_NO_AVX2 keeps the baseline loops only (the tests compare
// the two builds); a build that already targets AVX2 needs no dispatch.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__AVX2__) && !defined(PTO_CPU_NO_AVX2)
#define PTO_CPU_AVX2_DISPATCH 1
inline bool cpu_has_avx2() {
    static const bool v = (__builtin_cpu_init(), __builtin_cpu_supports("avx2") != 0);
    return v;
}
#else
#define PTO_CPU_AVX2_DISPATCH 0
#endif
}  // namespace cpu
}  // namespace pto

#endif
