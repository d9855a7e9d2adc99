// libptosim's second translation unit: the cube's blocked inner product (pto_cpu_gemm_f32,
// pto_cpu_widen16; pto/cpu/gemm_hooks.hpp), compiled once per cache, apart from the runtime
// (ptosim.cpp) so that the two compile at the same time (runtime/sim/driver.py LIBRARY_UNITS).
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
#include "pto/cpu/gemm_hooks.hpp"
