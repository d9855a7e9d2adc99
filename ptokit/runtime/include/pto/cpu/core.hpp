// CPU tile library: the calling core (buffers), fatal errors, GM checks, scratch memory.
#ifndef PTO_CPU_CORE_HPP
#define PTO_CPU_CORE_HPP

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "pto/cpu_sim_hooks.h"
#include "pto/cpu/types.hpp"

// PTO_CPU_STANDALONE: ignore the simulator hooks even when a runtime library defines them
// (stand-alone kernels and tests loaded into a process that also hosts a simulator).
#if defined(PTO_CPU_STANDALONE)
#define PTO_CPU_HOOK(name) ((decltype(&::name))nullptr)
#else
#define PTO_CPU_HOOK(name) (&::name)
#endif

namespace pto { namespace cpu {

// a2a3 capacities (runtime.md), used by the stand-alone default core.
constexpr uint64_t kDefaultCapacity[PTO_CPU_NUM_SPACES] = {188416, 524288, 65536, 65536, 131072, 1024, 0, 2048, 2048};

inline const char* space_name(int space) {
    static const char* const names[PTO_CPU_NUM_SPACES] = {"Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling",
                                                                  "LeftScale", "RightScale"};
    return (space >= 0 && space < PTO_CPU_NUM_SPACES) ? names[space] : "?";
}

// Stand-alone core (no simulator): one per thread, buffers allocated once (out of line: core() is
// inlined into every instruction, and this runs once per thread).
__attribute__((noinline)) inline PtoCpuCore* default_core() {
    static thread_local PtoCpuCore* c = nullptr;
    if (!c) {
        c = (PtoCpuCore*)calloc(1, sizeof(PtoCpuCore));
        uint64_t total = 0;
        for (int i = 0; i < PTO_CPU_NUM_SPACES; ++i) total += kDefaultCapacity[i];
        uint8_t* base = (uint8_t*)aligned_alloc(4096, (size_t)((total + 4095) / 4096 * 4096));
        if (!c || !base) {
            fprintf(stderr, "PTO fatal [TASSIGN]: cannot allocate the default core buffers\n");
            abort();
        }
        memset(base, 0, (size_t)total);
        for (int i = 0; i < PTO_CPU_NUM_SPACES; ++i) {
            c->space_base[i] = base;
            c->space_size[i] = kDefaultCapacity[i];
            base += kDefaultCapacity[i];
        }
        c->core_id = 0;
        c->cluster_id = 0;
        c->lane = -1;
        const char* env = getenv("PTO_CPU_DEBUG_NAN_FILL");
        c->debug_nan_fill = (env && env[0] && env[0] != '0') ? 1 : 0;
        c->runtime = nullptr;
    }
    return c;
}

inline PtoCpuCore* core() {
    if (auto hook = PTO_CPU_HOOK(pto_cpu_current_core)) {
        PtoCpuCore* c = hook();
        if (c) return c;
    }
    return default_core();
}

[[noreturn]] inline void fatal(const char* instr, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] inline void fatal(const char* instr, const char* fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (auto hook = PTO_CPU_HOOK(pto_cpu_fatal)) hook(instr, msg);
    fprintf(stderr, "PTO fatal [%s]: %s\n", instr, msg);
    fflush(stderr);
    abort();
}

// The race checker's record of an access (pto_cpu_note_gm_rows): `rows` spans of `len` bytes,
// `stride` apart, read / written / atomically added (PTO_CPU_TOUCH_*). 0: the running task is not
// recorded (nothing more to report about this access).
inline int note_touch(const char* instr, const void* p, uint64_t len, uint64_t stride, uint64_t rows, int kind) {
    if (auto note = PTO_CPU_HOOK(pto_cpu_note_gm_rows)) return note(instr, p, len, stride, rows, kind);
    return 0;
}

// [p, p+bytes) must lie in the tensor argument `origin` names (pto_cpu_check_gm_access), or, with
// a runtime that only has the older hook, in a live GM buffer (checked only when the simulator
// provides a hook).
// `write`: the access writes the span (pto_cpu_check_gm_write may refuse it: an input read in place).
// `note`: report the span as touched (note_touch); a caller that touches only part of it reports
// the parts itself.
inline void check_gm(const char* instr, const void* origin, const void* p, uint64_t bytes, uint64_t elem_size,
                     int rows, int cols, bool write = false, bool note = true) {
    if (!bytes) return;
    if (write)
        if (auto w = PTO_CPU_HOOK(pto_cpu_check_gm_write)) w(instr, p, bytes);
    if (auto access = PTO_CPU_HOOK(pto_cpu_check_gm_access)) {
        access(instr, origin, p, bytes, elem_size);
        if (note) note_touch(instr, p, bytes, bytes, 1, write ? PTO_CPU_TOUCH_WRITE : PTO_CPU_TOUCH_READ);
        return;
    }
    auto hook = PTO_CPU_HOOK(pto_cpu_check_gm);
    if (hook && !hook(p, bytes))
        fatal(instr, "global access of %llu bytes at %p (tile %dx%d) is outside every live buffer",
              (unsigned long long)bytes, p, rows, cols);
}

// Whether the instructions call the runtime library's out-of-line operations (pto/cpu/op_refs.hpp).
// They are found by their symbols also in a PTO_CPU_STANDALONE build, which then links
// pto/cpu/ops_hooks.hpp into itself (a test comparing them with the inlined instructions).
#if defined(PTO_CPU_OOL_OPS)
constexpr bool kOutOfLineOps = true;
#else
constexpr bool kOutOfLineOps = false;
#endif
#define PTO_CPU_OP_HOOK(name) (&::name)


// The hook, or a fatal error naming the instruction when the runtime library has none.
[[noreturn]] __attribute__((noinline, cold)) inline void ops_missing(const char* instr) {
    fatal(instr, "the runtime library does not provide the tile library's out-of-line operations (load the "
                 "simulator's runtime library first, or compile without -DPTO_CPU_OOL_OPS)");
}
template <typename F>
inline F op_hook(F hook, const char* instr) {
    if (!hook) ops_missing(instr);
    return hook;
}

// Per-thread scratch buffers (slot 0..3), grown on demand, never shrunk.
inline void* scratch(int slot, size_t bytes) {
    static thread_local void* buf[4] = {nullptr, nullptr, nullptr, nullptr};
    static thread_local size_t cap[4] = {0, 0, 0, 0};
    if (bytes > cap[slot]) {
        size_t n = bytes < 4096 ? 4096 : bytes;
        free(buf[slot]);
        buf[slot] = aligned_alloc(64, (n + 63) / 64 * 64);
        if (!buf[slot]) fatal("PTO", "out of memory (%zu bytes of scratch)", n);
        cap[slot] = n;
    }
    return buf[slot];
}

}}  // namespace pto::cpu

// The calling core's vector lane (0 = AIV0, 1 = AIV1; 0 on the cube), as the vendor's
// get_subblockid() returns it. The vendor assembler reads it to run an unsplit mixed kernel's
// vector body on one lane only (docs/mixed-kernels.md, "Which lanes take part").
#ifndef PTO_CPU_NO_SUBBLOCK_INTRINSICS
inline uint32_t get_subblockid() {
    const PtoCpuCore* c = pto::cpu::core();
    return c->lane > 0 ? (uint32_t)c->lane : 0u;
}
#endif

#endif
