// CPU tile library: the out-of-line tile operations of cpu_sim_hooks.h (pto_cpu_op_*), for a
// runtime library to define in exactly one of its sources (after `#define PTO_CPU_SIM_HOOKS_IMPL`
// or `#define PTO_CPU_OPS_IMPL` and `#include "pto/cpu_sim_hooks.h"`). The simulator's runtime
// library (ptokit/runtime/sim) does: its kernels' element-wise instructions, loads, stores, moves,
// conversions and reductions then run the loops compiled here once, for runtime shapes,
// instead of a copy per tile type in every kernel (pto/cpu/op_refs.hpp). Each hook dispatches on
// the element types to the same templates the library inlines.
// They are two headers: pto/cpu/ops_hooks_main.hpp and pto/cpu/ops_hooks_reduce.hpp, which a library may
// also compile as two units.
#ifndef PTO_CPU_OPS_HOOKS_HPP
#define PTO_CPU_OPS_HOOKS_HPP

#include "pto/cpu/ops_hooks_main.hpp"
#include "pto/cpu/ops_hooks_reduce.hpp"

#endif
