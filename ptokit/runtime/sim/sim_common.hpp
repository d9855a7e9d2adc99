// sim_common.hpp -- shared ground of libptosim (part of the single translation unit
// ptosim.cpp; not a public header).
//
// Owns: the system and project includes, the tile-library hook ABI (taken from
// pto/cpu_sim_hooks.h when present, else declared here), the clock (`mono_ns`), the
// message formatter (`fmt`), the `RunAbort` unwinding token, the core-type codes and the
// small helpers every other part uses.  Error codes are the PTO2_ERR_* constants of
// pto_orchestration_api.h; the failure paths themselves live in sim_run.hpp.
#pragma once

#ifndef PTO2_RUNTIME_INTERNAL
#define PTO2_RUNTIME_INTERNAL 1
#endif

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "intrinsic.h"
#include "pto_orchestration_api.h"
#include "ptosim_api.h"
#include "tensor.h"
#include "comm_context.h"

#if __has_include("pto/cpu_sim_hooks.h")
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
#define PTOSIM_HAVE_FIFO_HOOKS 1
#else
// The hook ABI of docs/contracts.md ("C hooks between the CPU tile library and the simulator").
extern "C" {
typedef struct PtoCpuCore {
    uint8_t* space_base[9];
    uint64_t space_size[9];
    int32_t core_id, cluster_id, lane;
    int32_t debug_nan_fill;
    int32_t no_fusion;
    int32_t estimate;
    void* runtime;
} PtoCpuCore;
typedef struct PtoCpuEstBuf {
    int32_t space;
    uint32_t bytes;
    uint64_t offset;
} PtoCpuEstBuf;
PtoCpuCore* pto_cpu_current_core(void);
void pto_cpu_fatal(const char* instr, const char* message);
int pto_cpu_check_gm(const void* p, uint64_t bytes);
void pto_cpu_check_gm_access(const char* instr, const void* origin, const void* p, uint64_t bytes, uint64_t elem_size);
}
#endif

namespace {

using Clock = std::chrono::steady_clock;

inline int64_t mono_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

struct RunAbort {};  // unwinds the orchestrator thread out of user code

enum { CT_AIC = 0, CT_AIV = 1 };

struct Device;
struct Run;

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

void add_unique(std::vector<uint64_t>& v, uint64_t id) {
    for (uint64_t x : v)
        if (x == id) return;
    v.push_back(id);
}

}  // namespace
