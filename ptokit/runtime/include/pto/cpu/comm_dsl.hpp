// CPU tile library: what the pld ops of kernel code lower to (the call-form rows of the dialect,
// pto.comm.* and pto.addptr). Each takes the CommContext address as an int64 (the window
// parameter's hidden comm_ctx scalar). A peer outside 0..rankNum-1 and a null context are fatal
// errors naming the instruction, never an access of a neighbour's memory.
#ifndef PTO_CPU_COMM_DSL_HPP
#define PTO_CPU_COMM_DSL_HPP

#include "comm_context.h"
#include "pto/cpu/comm.hpp"

namespace pto {
namespace cpu {
inline const CommContext* comm_ctx_of(const char* instr, int64_t ctx) {
    const CommContext* c = reinterpret_cast<const CommContext*>((uintptr_t)ctx);
    if (!c) cpu::fatal(instr, "the window's CommContext is null: the kernel runs outside a distributed program");
    return c;
}
}  // namespace cpu

inline int32_t PTO_COMM_RANK(int64_t ctx) { return cpu::comm_ctx_of("RANK", ctx)->rankId; }
inline int32_t PTO_COMM_NRANKS(int64_t ctx) { return cpu::comm_ctx_of("NRANKS", ctx)->rankNum; }

template <typename T, typename P>
inline auto PTO_COMM_PEER(__gm__ T* local, int64_t ctx, P peer) -> __gm__ T* {
    const CommContext* c = cpu::comm_ctx_of("PEER", ctx);
    if ((int64_t)peer < 0 || (int64_t)peer >= (int64_t)c->rankNum)
        cpu::fatal("PEER", "peer %lld is out of range: the program runs on %d ranks (0 .. %d)", (long long)peer,
                   (int)c->rankNum, (int)c->rankNum - 1);
    return comm_peer_ptr(c, local, (int32_t)peer);
}

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
