// CPU tile library: the cube hooks of cpu_sim_hooks.h (pto_cpu_gemm_f32, pto_cpu_widen16), for
// a runtime library to define in exactly one of its sources, after
// `#define PTO_CPU_SIM_HOOKS_IMPL` and `#include "pto/cpu_sim_hooks.h"`. The simulator's runtime
// library (ptokit/runtime/sim) does; its kernels then call the blocked code compiled here.
#ifndef PTO_CPU_GEMM_HOOKS_HPP
#define PTO_CPU_GEMM_HOOKS_HPP

#ifndef PTO_CPU_SIM_HOOKS_IMPL
#error "gemm_hooks.hpp defines hooks: #define PTO_CPU_SIM_HOOKS_IMPL and include pto/cpu_sim_hooks.h first"
#endif

#include "pto/cpu/simd.hpp"
#include "pto/cpu/gemm.hpp"

extern "C" __attribute__((visibility("default"))) void pto_cpu_gemm_f32(int32_t m, int32_t n, int32_t kk,
                                                                      const float* a, int64_t lda, const float* b,
                                                                      int64_t ldb, float* c, int64_t ldc) {
    pto::cpu::gemm::blocked(m, n, kk, a, lda, b, ldb, c, ldc);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_widen16(int32_t bf16, const uint16_t* src, int64_t lds,
                                                                     float* dst, int64_t ldd, int32_t rows,
                                                                     int32_t n) {
    if (bf16)
        pto::cpu::gemm::widen<true>(src, lds, dst, ldd, rows, n);
    else
        pto::cpu::gemm::widen<false>(src, lds, dst, ldd, rows, n);
}

#endif
