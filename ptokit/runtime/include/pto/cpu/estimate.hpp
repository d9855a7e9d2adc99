// CPU tile library: estimated device time (docs/estimate.md). The built-in assembler writes
//   PTO_EST(pipe, cycles, nwrites, written tiles..., read tiles...);
// after each instruction it has an estimate for; with the core's `estimate` flag off that is one
// load and a branch. set_flag / wait_flag / pipe_barrier (no-ops for the CPU's in-order execution)
// report to the same timeline.
#ifndef PTO_CPU_ESTIMATE_HPP
#define PTO_CPU_ESTIMATE_HPP

#include "pto/cpu/core.hpp"
#include "pto/cpu/tile.hpp"

namespace pto { namespace cpu {

template <typename TileT>
inline PtoCpuEstBuf est_buf(const PtoCpuCore* c, const TileT& t) {
    const int space = (int)TileT::Loc;
    const uint8_t* p = (const uint8_t*)t.data();
    const uint8_t* base = c->space_base[space];
    const uint64_t off = base && p >= base ? (uint64_t)(p - base) : (uint64_t)(uintptr_t)p;
    return PtoCpuEstBuf{space, (uint32_t)TileT::Bytes, off};
}

template <typename... Tiles>
inline void est_op(int pipe, uint32_t cycles, int nwrites, const Tiles&... tiles) {
    PtoCpuCore* c = core();
    if (__builtin_expect(!c->estimate, 1)) return;
    auto hook = PTO_CPU_HOOK(pto_cpu_est_op);
    if (!hook) return;
    const PtoCpuEstBuf bufs[sizeof...(Tiles) + 1] = {est_buf(c, tiles)..., PtoCpuEstBuf{0, 0, 0}};
    hook(c, pipe, cycles, bufs, (int)sizeof...(Tiles), nwrites);
}

inline void est_sync(int kind, int a, int b, int event) {
    PtoCpuCore* c = core();
    if (__builtin_expect(!c->estimate, 1)) return;
    if (auto hook = PTO_CPU_HOOK(pto_cpu_est_sync)) hook(c, kind, a, b, event);
}

}}  // namespace pto::cpu

#define PTO_EST(...) ::pto::cpu::est_op(__VA_ARGS__)

#ifndef PTO_CPU_NO_SYNC_INTRINSICS
inline void set_flag(int src, int dst, int event) { ::pto::cpu::est_sync(0, src, dst, event); }
inline void wait_flag(int src, int dst, int event) { ::pto::cpu::est_sync(1, src, dst, event); }
inline void pipe_barrier(int pipe) { ::pto::cpu::est_sync(2, pipe, 0, 0); }
#endif

#endif
