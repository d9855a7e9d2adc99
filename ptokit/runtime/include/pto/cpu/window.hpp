// CPU tile library: window memory of distributed programs (docs/distributed.md).
//
// An access to a window address never touches the bytes directly: it goes through the
// simulator's comm hooks and so through the transport table the rank installed
// (pto/cpu_sim_hooks.h, PtoCommOps). Without a simulator there are no windows.
#ifndef PTO_CPU_WINDOW_HPP
#define PTO_CPU_WINDOW_HPP

#include "pto/cpu/atomic.hpp"
#include "pto/cpu/core.hpp"

namespace pto { namespace cpu {

inline const PtoCommOps* comm_ops() {
    if (auto hook = PTO_CPU_HOOK(pto_cpu_comm_ops)) return hook();
    return nullptr;
}

inline const char* comm_error_text(int rc) {
    switch (rc) {
        case PTO_COMM_TIMEOUT: return "timed out (0.9 x the run's timeout)";
        case PTO_COMM_BAD_ADDRESS: return "the address is not inside one window";
        case PTO_COMM_ERROR: return "the run is failing or the transport reported an error";
    }
    return "unknown error";
}

// True when [p, p+bytes) lies in a window (then use window_read / window_write), false when it
// touches no window; a span that leaves the window it starts in is a fatal error.
inline bool in_window(const char* instr, const void* p, uint64_t bytes) {
    const PtoCommOps* ops = comm_ops();
    if (!ops || !bytes) return false;
    const PtoCommWindow* w = nullptr;
    uint64_t off = 0;
    const int rc = pto_comm_find(ops, p, bytes, &w, &off);
    if (rc < 0)
        fatal(instr, "global access of %llu bytes at %p runs past the end of a window (or into one)",
              (unsigned long long)bytes, p);
    return rc == 1;
}

inline void window_read(const char* instr, const void* src, void* dst, uint64_t bytes) {
    auto hook = PTO_CPU_HOOK(pto_cpu_comm_read);
    if (!hook) fatal(instr, "window access needs the simulator (pto_cpu_comm_read is missing)");
    const int rc = hook(instr, src, dst, bytes);
    if (rc != PTO_COMM_OK)
        fatal(instr, "window read of %llu bytes at %p failed: %s", (unsigned long long)bytes, src, comm_error_text(rc));
}

inline void window_write(const char* instr, void* dst, const void* src, uint64_t bytes, bool atomic, int32_t dtype) {
    auto hook = PTO_CPU_HOOK(pto_cpu_comm_write);
    if (!hook) fatal(instr, "window access needs the simulator (pto_cpu_comm_write is missing)");
    const int rc = hook(instr, dst, src, bytes, atomic ? PTO_COMM_WRITE_ATOMIC_ADD : PTO_COMM_WRITE_PLAIN, dtype);
    if (rc != PTO_COMM_OK)
        fatal(instr, "window write of %llu bytes at %p failed: %s", (unsigned long long)bytes, dst, comm_error_text(rc));
}

// Element-wise atomic add of n elements of T into plain (non-window) global memory.
template <typename T>
inline void local_atomic_add(const char* instr, T* dst, const T* src, uint64_t n) {
    if (!atomic_add_bytes(dst, src, n * sizeof(T), datatype_code<T>()))
        fatal(instr, "atomic add is not supported for this element type");
}

}}  // namespace pto::cpu

#endif
