// A tiny stand-in for the simulator runtime: defines the hooks of pto/cpu_sim_hooks.h.
// Loaded RTLD_GLOBAL before hook_kernel.so by tests/runtime/test_tile_lib_errors.py.
#define PTO_CPU_SIM_HOOKS_IMPL
#include "pto/cpu_sim_hooks.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace {
const uint64_t kCap[6] = {188416, 524288, 65536, 65536, 131072, 1024};
PtoCpuCore g_cores[3];  // cluster 0: AIC, AIV0, AIV1
thread_local PtoCpuCore* t_core = nullptr;
thread_local jmp_buf* t_jmp = nullptr;
thread_local char t_msg[512];
int g_fatal_count = 0;
const void* g_gm_lo[8];
uint64_t g_gm_n[8];
int g_gm_count = 0;
int g_timeout_ms = 2000;

struct Fifo {
    int used = 0, cluster, pipe, dir, lane;
    uint32_t slot_size = 0, slot_num = 0;
    char* data = nullptr;
    uint64_t sizes[16];
    int head = 0, count = 0, held = 0;
};
Fifo g_fifos[16];
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;

Fifo* find(PtoCpuCore* c, int pipe, int dir, int lane, uint32_t size, uint32_t num) {
    for (Fifo& f : g_fifos)
        if (f.used && f.cluster == c->cluster_id && f.pipe == pipe && f.dir == dir && f.lane == lane) return &f;
    if (!size) return nullptr;
    for (Fifo& f : g_fifos)
        if (!f.used) {
            f.used = 1; f.cluster = c->cluster_id; f.pipe = pipe; f.dir = dir; f.lane = lane;
            f.slot_size = size; f.slot_num = num > 16 ? 16 : num;
            f.data = (char*)calloc(f.slot_num, size);
            return &f;
        }
    return nullptr;
}

// Waits (mutex held) until pred(); 0 on success, 1 on timeout.
template <typename F>
int wait_until(F pred) {
    timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += g_timeout_ms / 1000;
    dl.tv_nsec += (long)(g_timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) { dl.tv_sec++; dl.tv_nsec -= 1000000000L; }
    while (!pred())
        if (pthread_cond_timedwait(&g_cv, &g_mu, &dl) != 0 && !pred()) return 1;
    return 0;
}
void release_held(Fifo* f) {
    if (f->held) {
        f->held = 0;
        f->head = (f->head + 1) % (int)f->slot_num;
        f->count--;
        pthread_cond_broadcast(&g_cv);
    }
}
}  // namespace

extern "C" {
PtoCpuCore* pto_cpu_current_core(void) { return t_core; }

void pto_cpu_fatal(const char* instr, const char* message) {
    snprintf(t_msg, sizeof t_msg, "%s: %s", instr, message);
    __atomic_add_fetch(&g_fatal_count, 1, __ATOMIC_SEQ_CST);
    if (t_jmp) longjmp(*t_jmp, 1);
    fprintf(stderr, "fake runtime fatal outside a guarded call: %s\n", t_msg);
    abort();
}

int pto_cpu_check_gm(const void* p, uint64_t bytes) {
    const char* q = (const char*)p;
    for (int i = 0; i < g_gm_count; ++i) {
        const char* lo = (const char*)g_gm_lo[i];
        if (q >= lo && q + bytes <= lo + g_gm_n[i]) return 1;
    }
    return 0;
}

int pto_cpu_fifo_push(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane, const void* src, uint64_t bytes,
                      uint32_t slot_size, uint32_t slot_num) {
    pthread_mutex_lock(&g_mu);
    Fifo* f = find(core, pipe_id, dir, lane, slot_size, slot_num);
    int rc = PTO_CPU_FIFO_ERROR;
    if (f && bytes <= f->slot_size) {
        rc = wait_until([&] { return f->count < (int)f->slot_num; });
        if (rc == 0) {
            const int s = (f->head + f->count) % (int)f->slot_num;
            memcpy(f->data + (size_t)s * f->slot_size, src, bytes);
            f->sizes[s] = bytes;
            f->count++;
            pthread_cond_broadcast(&g_cv);
        }
    } else if (f) {
        rc = PTO_CPU_FIFO_BAD_SIZE;
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

int pto_cpu_fifo_pop(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane, void* dst, uint64_t bytes,
                     uint32_t slot_size, uint32_t slot_num) {
    pthread_mutex_lock(&g_mu);
    Fifo* f = find(core, pipe_id, dir, lane, slot_size, slot_num);
    int rc = PTO_CPU_FIFO_ERROR;
    if (f) {
        release_held(f);
        rc = wait_until([&] { return f->count > 0; });
        if (rc == 0) {
            if (f->sizes[f->head] != bytes) {
                rc = PTO_CPU_FIFO_BAD_SIZE;
            } else {
                memcpy(dst, f->data + (size_t)f->head * f->slot_size, bytes);
                f->held = 1;
            }
        }
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

int pto_cpu_fifo_free(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane) {
    pthread_mutex_lock(&g_mu);
    Fifo* f = find(core, pipe_id, dir, lane, 0, 0);
    if (f) release_held(f);
    pthread_mutex_unlock(&g_mu);
    return PTO_CPU_FIFO_OK;
}

// ---- test control ----
void rt_init(void) {
    for (int i = 0; i < 3; ++i) {
        PtoCpuCore& c = g_cores[i];
        for (int s = 0; s < 6; ++s) {
            c.space_base[s] = (uint8_t*)aligned_alloc(4096, (kCap[s] + 4095) / 4096 * 4096);
            memset(c.space_base[s], 0, kCap[s]);
            c.space_size[s] = kCap[s];
        }
        c.core_id = i;
        c.cluster_id = 0;
        c.lane = i - 1;
        c.debug_nan_fill = 0;
        c.runtime = nullptr;
    }
}
void rt_bind(int core) { t_core = core < 0 ? nullptr : &g_cores[core]; }
void* rt_space_base(int core, int space) { return g_cores[core].space_base[space]; }
void rt_register_gm(const void* p, uint64_t bytes) { g_gm_lo[g_gm_count] = p; g_gm_n[g_gm_count++] = bytes; }
void rt_clear_gm(void) { g_gm_count = 0; }
void rt_set_timeout_ms(int ms) { g_timeout_ms = ms; }
int rt_fatal_count(void) { return g_fatal_count; }
// Binds the calling thread to `core`, runs fn(args); 0 if it returned, 1 if it failed
// through pto_cpu_fatal (message in rt_last_fatal(), per thread).
int rt_run(int core, void (*fn)(const int64_t*), const int64_t* args, char* msg_out, int msg_len) {
    jmp_buf jb;
    t_core = &g_cores[core];
    t_msg[0] = 0;
    t_jmp = &jb;
    volatile int failed = 0;
    if (setjmp(jb) == 0) fn(args);
    else failed = 1;
    t_jmp = nullptr;
    t_core = nullptr;
    if (msg_out && msg_len > 0) snprintf(msg_out, (size_t)msg_len, "%s", t_msg);
    return failed;
}
}
