// CPU tile library: the out-of-line row and column reductions of cpu_sim_hooks.h
// (pto_cpu_op_reduce). Apart from the other operations (pto/cpu/ops_hooks_main.hpp) because its
// loops need g++'s -O2 to vectorise (max and min run 2x slower at -O1 with the vectoriser), while
// the others are as fast at the cheaper flags the simulator's runtime library gives them.
#ifndef PTO_CPU_OPS_HOOKS_REDUCE_HPP
#define PTO_CPU_OPS_HOOKS_REDUCE_HPP

#include "pto/cpu/ops_hooks_common.hpp"

namespace pto { namespace cpu { namespace ool {

template <typename T>
inline void reduce_typed(int32_t kind, bool is_row, const PtoCpuTileRef* d, const PtoCpuTileRef* s) {
    T* pd = (T*)d->data;
    const T* ps = (const T*)s->data;
    const Ix di = ix_of(d), si = ix_of(s);
    if (is_row) {
        if (kind == 0) reduce_rt<true, 0>(pd, di, ps, si, s->vr, s->vc);
        else if (kind == 1) reduce_rt<true, 1>(pd, di, ps, si, s->vr, s->vc);
        else reduce_rt<true, 2>(pd, di, ps, si, s->vr, s->vc);
    } else {
        if (kind == 0) reduce_rt<false, 0>(pd, di, ps, si, s->vr, s->vc);
        else if (kind == 1) reduce_rt<false, 1>(pd, di, ps, si, s->vr, s->vc);
        else reduce_rt<false, 2>(pd, di, ps, si, s->vr, s->vc);
    }
}

}}}  // namespace pto::cpu::ool

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_reduce(int32_t kind, int32_t is_row,
                                                                       const PtoCpuTileRef* dst,
                                                                       const PtoCpuTileRef* src) {
    using namespace pto::cpu;
    if (!ool::with_arith(dst->dtype, [&](auto t) { ool::reduce_typed<decltype(t)>(kind, is_row != 0, dst, src); }))
        ool::unsupported("PTO", dst->dtype, dst->dtype);
}

#endif
