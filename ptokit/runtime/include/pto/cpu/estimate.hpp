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

// One tile of an estimated instruction as est_op passes it on: its space, size and address.
struct EstTile {
    int space;
    uint32_t bytes;
    const void* data;
};

// The calling core when it reports estimates, else null (out of line: one call per instruction
// instead of the core lookup inlined after each one).
__attribute__((noinline)) inline PtoCpuCore* est_core() {
    PtoCpuCore* c = core();
    return c->estimate && PTO_CPU_HOOK(pto_cpu_est_op) ? c : nullptr;
}

// Reports the instruction (out of line: the buffers' offsets are computed here, once).
__attribute__((noinline, cold)) inline void est_emit(PtoCpuCore* c, int pipe, uint32_t cycles, int nwrites,
                                                     const EstTile* tiles, int n) {
    PtoCpuEstBuf bufs[16];
    if (n > 16) n = 16;
    for (int i = 0; i < n; ++i) {
        const uint8_t* p = (const uint8_t*)tiles[i].data;
        const uint8_t* base = c->space_base[tiles[i].space];
        const uint64_t off = base && p >= base ? (uint64_t)(p - base) : (uint64_t)(uintptr_t)p;
        bufs[i] = PtoCpuEstBuf{tiles[i].space, tiles[i].bytes, off};
    }
    PTO_CPU_HOOK(pto_cpu_est_op)(c, pipe, cycles, bufs, n, nwrites);
}

template <typename... Tiles>
inline void est_op(int pipe, uint32_t cycles, int nwrites, const Tiles&... tiles) {
    PtoCpuCore* c = est_core();
    if (__builtin_expect(c == nullptr, 1)) return;
    const EstTile args[sizeof...(Tiles) + 1] = {EstTile{(int)Tiles::Loc, (uint32_t)Tiles::Bytes, tiles.data()}...,
                                                EstTile{0, 0, nullptr}};
    est_emit(c, pipe, cycles, nwrites, args, (int)sizeof...(Tiles));
}

__attribute__((noinline)) inline void est_sync(int kind, int a, int b, int event) {
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
