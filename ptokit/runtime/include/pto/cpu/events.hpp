// CPU tile library: cross-core events (SYNC_SET / SYNC_WAIT), the FFTS workspace (SET_FFTS) and the
// barrier of all launched cores (SYNCALL), over the simulator's hooks (pto/cpu_sim_hooks.h).
// Every wait is bounded: an event nobody raises, or a barrier some core never reaches, ends in a
// fatal error naming the instruction, the lane and the event (the run reports the kernel).
#ifndef PTO_CPU_EVENTS_HPP
#define PTO_CPU_EVENTS_HPP

#include "pto/cpu/ops.hpp"

namespace pto {

enum SyncAllCore : int { SYNCALL_MIX = 0, SYNCALL_AIV_ONLY = 1, SYNCALL_AIC_ONLY = 2 };

namespace cpu {
inline const char* lane_name(const PtoCpuCore* c) { return c->lane < 0 ? "AIC" : (c->lane == 0 ? "AIV0" : "AIV1"); }

inline void check_event(const char* instr, int event) {
    if (event < 0 || event > 15) fatal(instr, "event id %d is outside 0..15", event);
}
}  // namespace cpu

// The pipe argument orders the event after that pipe's earlier work; the CPU runs each core's
// instructions in order, so it is only checked.
inline RecordEvent SYNC_SET(int pipe, int event, int ffts_mode = 0) {
    (void)pipe;
    cpu::check_event("SYNC_SET", event);
    auto hook = PTO_CPU_HOOK(pto_cpu_event_set);
    if (!hook) cpu::fatal("SYNC_SET", "cross-core events need the simulator (pto_cpu_event_set is missing)");
    PtoCpuCore* c = cpu::core();
    if (hook(c, event, ffts_mode) != PTO_CPU_FIFO_OK)
        cpu::fatal("SYNC_SET", "cannot raise event %d on %s", event, cpu::lane_name(c));
    return {};
}

inline RecordEvent SYNC_WAIT(int pipe, int event) {
    (void)pipe;
    cpu::check_event("SYNC_WAIT", event);
    auto hook = PTO_CPU_HOOK(pto_cpu_event_wait);
    if (!hook) cpu::fatal("SYNC_WAIT", "cross-core events need the simulator (pto_cpu_event_wait is missing)");
    PtoCpuCore* c = cpu::core();
    const int rc = hook(c, event);
    if (rc == PTO_CPU_FIFO_TIMEOUT)
        cpu::fatal("SYNC_WAIT", "timed out on %s waiting for cross-core event %d, which the peer core never raised",
                   cpu::lane_name(c), event);
    if (rc != PTO_CPU_FIFO_OK) cpu::fatal("SYNC_WAIT", "wait for event %d on %s failed", event, cpu::lane_name(c));
    return {};
}

// a2a3: the FFTS workspace of the events (the CPU keeps event state itself; the pointer is checked).
template <typename T>
inline RecordEvent SET_FFTS(T* workspace) {
    if (workspace == nullptr) cpu::fatal("SET_FFTS", "null FFTS workspace");
    return {};
}

inline void syncall_wait(const char* instr, int core_type) {
    auto hook = PTO_CPU_HOOK(pto_cpu_syncall);
    if (!hook) cpu::fatal(instr, "pto.syncall needs the simulator (pto_cpu_syncall is missing)");
    PtoCpuCore* c = cpu::core();
    int32_t n = 0, arrived = 0, missing = -1;
    const int rc = hook(c, core_type, &n, &arrived, &missing);
    if (rc == PTO_CPU_FIFO_TIMEOUT) {
        const char* kind = core_type == SYNCALL_AIV_ONLY ? "aiv_only" : core_type == SYNCALL_AIC_ONLY ? "aic_only" : "mix";
        cpu::fatal(instr, "timed out on %s at the %s barrier (core_type %s) of the task's %d cores: %d arrived, "
                   "the first block short of its cores is %d (every block must reach the same syncall -- not skip "
                   "it under an if on its block index -- and a hard syncall needs every block running at once: "
                   "launch at most the available clusters, with sync_start)",
                   cpu::lane_name(c), instr, kind, n, arrived, missing);
    }
    if (rc != PTO_CPU_FIFO_OK)
        cpu::fatal(instr, "%s cannot take part in this barrier (core_type %d)", cpu::lane_name(c), core_type);
}

inline RecordEvent SYNCALL(int core_type) {
    syncall_wait("SYNCALL", core_type);
    return {};
}

// The soft barrier counts in a GM workspace on the device; the CPU uses the same barrier as the
// hard one (the workspace is checked, used_cores must cover the participants or be 0).
template <typename T>
inline RecordEvent SYNCALL_SOFT(int core_type, T* workspace, int used_cores = 0) {
    if (workspace == nullptr) cpu::fatal("SYNCALL", "null soft-barrier workspace");
    (void)used_cores;
    syncall_wait("SYNCALL", core_type);
    return {};
}

}  // namespace pto

#endif
