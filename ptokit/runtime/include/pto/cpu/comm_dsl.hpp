// CPU tile library: what the pld ops of kernel code lower to (the call-form rows of the dialect,
// pto.comm.* and pto.addptr). The CommContext of a window is read with LOAD_SCALAR (pypto HEAD's
// form: rank, nranks and a peer's window base are slots of it); the simulator checks those reads
// (a peer outside 0..rankNum-1 is a fatal error naming it, docs/distributed.md).
#ifndef PTO_CPU_COMM_DSL_HPP
#define PTO_CPU_COMM_DSL_HPP

#include "comm_context.h"
#include "pto/cpu/comm.hpp"

namespace pto {
template <typename T, typename I>
inline auto PTO_ADDPTR(__gm__ T* p, I offset) -> __gm__ T* {
    return p + (int64_t)offset;
}

template <typename V, typename O>
inline void PTO_COMM_NOTIFY(__gm__ int32_t* cell, V value, O op) {
    comm::Signal s(cell);
    comm::TNOTIFY(s, (int32_t)value, (int64_t)op == 0 ? comm::NotifyOp::AtomicAdd : comm::NotifyOp::Set);
}

// WaitCmp of the DSL: Eq = 0, Ge = 1 (the C++ enum's GE is 3)
template <typename V, typename C>
inline void PTO_COMM_WAIT(__gm__ int32_t* cell, V expected, C cmp) {
    comm::Signal s(cell);
    comm::TWAIT(s, (int32_t)expected, (int64_t)cmp == 0 ? comm::WaitCmp::EQ : comm::WaitCmp::GE);
}
}  // namespace pto

#endif
