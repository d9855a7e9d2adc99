// libptosim -- the CPU simulator runtime: device (core threads, per-core memory),
// scheduler, TensorMap dependency tracking, rings with back-pressure, both runtime
// kinds, crash containment and the block timeline.  See docs/simulator.md.
//
// Locking: one mutex per device (`Device::mu`) guards every piece of scheduling
// state.  Kernels and the orchestration function run without it.  Every wait is a
// condition-variable wait with a timeout; nothing spins.
#define PTO2_RUNTIME_INTERNAL 1

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

#if __has_include("pto/cpu_sim_hooks.h")
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
#define PTOSIM_HAVE_FIFO_HOOKS 1
#else
// The hook ABI of docs/contracts.md ("C hooks between the CPU tile library and the simulator").
extern "C" {
typedef struct PtoCpuCore {
    uint8_t* space_base[6];
    uint64_t space_size[6];
    int32_t core_id, cluster_id, lane;
    int32_t debug_nan_fill;
    void* runtime;
} PtoCpuCore;
PtoCpuCore* pto_cpu_current_core(void);
void pto_cpu_fatal(const char* instr, const char* message);
int pto_cpu_check_gm(const void* p, uint64_t bytes);
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

constexpr int kRings = PTO2_MAX_SCOPE_DEPTH + 1;  // depth 0 (outside any scope) .. 4
constexpr int kRingShift = 48;
constexpr uint64_t kLocalMask = (1ull << kRingShift) - 1;
constexpr uint64_t kHeapAlign = 512;
constexpr size_t kAltStack = 64 * 1024;
constexpr size_t kOrchStack = 256ull << 20;  // virtual; pages are touched only as used
constexpr uint64_t kRecChunk = 4096;
enum { CT_AIC = 0, CT_AIV = 1 };

// Buffer capacities (runtime.md): Vec, Mat, Left, Right, Acc, Bias.
const uint64_t kCapA2A3[6] = {188416, 524288, 65536, 65536, 131072, 1024};
const uint64_t kCapA5[6] = {245760, 524288, 65536, 65536, 262144, 4096};

struct Task {
    uint64_t id = 0, seq = 0, local = 0;
    int32_t ring = 0, kind = 0;
    int32_t func[3] = {-1, -1, -1};
    int32_t block_num = 1, next_block = 0, lanes_per_block = 1, lanes_done = 0;
    bool sync_start = false;
    int32_t pending = 0, fanout_refs = 0;
    bool completed = false, scope_released = false, retired = false;
    uint64_t heap_begin = 0, heap_len = 0, heap_end = 0, edges_held = 0;
    int64_t t_submit = 0, t_ready = 0;
    uint32_t ntensors = 0, nscalars = 0;
    std::vector<uint64_t> fanout, fanin;
    std::vector<ChipTensor> tensors;
    uint64_t scalars[CORE_MAX_SCALAR_ARGS];
};

struct Ring {
    std::vector<Task> slots;
    uint64_t size = 0;
    uint64_t head = 0, tail = 0;  // local sequence numbers: next to allocate, oldest live
    uint8_t* heap = nullptr;
    uint64_t heap_size = 0, heap_head = 0, heap_tail = 0, heap_used = 0;
    uint64_t dep_used = 0, dep_cap = 0;
    uint64_t scope_begin = 0;
    Task& slot(uint64_t local) { return slots[local % size]; }
};

struct JumpCtx {
    sigjmp_buf jb;
    volatile sig_atomic_t armed = 0;
    volatile int sig = 0;
    void* addr = nullptr;
    char msg[600] = {0};
};

struct Device;
struct Run;

struct Work {
    Task* task = nullptr;
    int32_t block_idx = 0;
    int32_t func_id = -1;
    uint64_t rec = 0;
};

struct Core {
    int32_t id = 0, cluster = 0, lane = -1, type = CT_AIC;
    Device* dev = nullptr;
    std::thread th;
    std::condition_variable cv;
    bool busy = false, has_work = false, sleeping = false, woken = false;
    Work work, cur;
    int64_t cur_start = 0;
    PtoCpuCore hw;
    uint8_t* mem = nullptr;
    size_t mem_size = 0;
    LocalContext lc;
    GlobalContext gc;
    alignas(64) int64_t args[PTO_ARGS_ARRAY_SIZE];
    JumpCtx jctx;
};

typedef void (*KernelFn)(int64_t*);
typedef void (*BindFn)(const PTO2RuntimeOps*, void*);
typedef void (*EntryFn)(const ChipTaskArgs&);
typedef PTO2OrchestrationConfig (*ConfigFn)(const ChipTaskArgs&);

struct KernelInfo {
    KernelFn fn = nullptr;
    std::string name;
    int32_t core_type = -1;
};

struct TMEntry {
    uint64_t writer;
    uint64_t start, end;  // element range [start, end) relative to the buffer
    uint32_t ndims;
    uint32_t shapes[CHIP_TENSOR_MAX_DIMS];
    uint32_t strides[CHIP_TENSOR_MAX_DIMS];
    bool contiguous;
};

struct Fifo {
    uint32_t slot_size = 0, slot_num = 0;
    std::deque<std::vector<uint8_t>> queued;
    bool held = false;
};

struct Device {
    int32_t platform = 0, clusters = 0;
    std::vector<std::unique_ptr<Core>> cores;
    std::mutex mu;
    bool shutdown = false, abandoned = false;
    Run* run = nullptr;
    int32_t free_count[2] = {0, 0};
    int32_t waking[2] = {0, 0};  // cores given work while asleep that have not picked it up yet
    uint32_t rr[2] = {0, 0};
    Ring rings[kRings];
    // cross-core FIFOs: key (cluster, pipe, dir, lane) -> FIFO; guarded by fifo_mu
    std::mutex fifo_mu;
    std::condition_variable fifo_cv;
    std::map<std::tuple<int32_t, int32_t, int32_t, int32_t>, struct Fifo> fifos;
    Core* core(int i) { return cores[i].get(); }
    int32_t ncores_of(int type) const { return type == CT_AIC ? clusters : 2 * clusters; }
};

struct Run {
    Device* dev = nullptr;
    PtoSimConfig cfg;
    bool hbg = false;
    std::vector<KernelInfo> kernels;
    std::vector<std::pair<uint64_t, uint64_t>> gm;  // external buffers [addr, addr+size)
    std::vector<ChipTensor> orch_tensors;
    std::vector<uint64_t> orch_scalars;
    ChipTaskArgs orch_args;
    BindFn bind = nullptr;
    EntryFn entry = nullptr;
    ConfigFn config = nullptr;
    std::string orch_name;
    JumpCtx orch_jctx;

    int32_t depth = 0;
    uint64_t seq = 0, completed = 0, blocks = 0, retired = 0;
    std::atomic<uint64_t> progress{0};
    bool orch_done = false, orch_exited = false, finished = false, failed = false, dispatch_enabled = false;
    bool orch_waiting = false, abandoned = false;
    int32_t code = 0;
    std::string msg;
    std::condition_variable orch_cv, done_cv;
    std::deque<Task*> queues[3];
    std::unordered_map<uint64_t, std::vector<TMEntry>> tmap;
    std::vector<std::unique_ptr<PtoSimBlockRecord[]>> chunks;
    uint64_t nrec = 0;
    std::vector<PtoSimEdge> edges;
    std::vector<uint32_t> targs;  // cfg.record_args: tensor args per task (ptosim_result_args)
    std::vector<PtoSimFifoWait> fifo_waits;  // cfg.record_args: blocked TPUSH/TPOP (guarded by fifo_mu)
    int64_t t0 = 0;

    PtoSimBlockRecord* rec(uint64_t i) { return &chunks[i / kRecChunk][i % kRecChunk]; }
    uint64_t alloc_rec() {
        if (nrec / kRecChunk >= chunks.size()) chunks.emplace_back(new PtoSimBlockRecord[kRecChunk]);
        return nrec++;
    }
    Ring& ring(int i) { return dev->rings[i]; }
    int64_t rel(int64_t t) const { return t - t0; }
};

// ---------------------------------------------------------------------------
// thread-local identity and signal handling
// ---------------------------------------------------------------------------

__thread Core* t_core __attribute__((tls_model("initial-exec"))) = nullptr;
__thread JumpCtx* t_jctx __attribute__((tls_model("initial-exec"))) = nullptr;

// Cores given work while the device lock is held; woken after it is released, so a woken
// core does not immediately block on the lock its waker still holds.
thread_local std::vector<Core*> t_wakes;

void flush_wakes() {
    for (Core* c : t_wakes) c->cv.notify_one();
    t_wakes.clear();
}

const int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL};
struct sigaction g_old_actions[NSIG];
bool g_handlers_installed = false;
std::atomic<Run*> g_active_run{nullptr};

void on_fault(int sig, siginfo_t* info, void* uctx) {
    JumpCtx* j = t_jctx;
    if (j && j->armed) {
        j->armed = 0;
        j->sig = sig;
        j->addr = info ? info->si_addr : nullptr;
        siglongjmp(j->jb, 1);
    }
    // not ours: chain to the previous handler
    struct sigaction& old = g_old_actions[sig];
    if (old.sa_flags & SA_SIGINFO) {
        if (old.sa_sigaction) {
            old.sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (old.sa_handler == SIG_IGN) {
        return;
    } else if (old.sa_handler != SIG_DFL && old.sa_handler) {
        old.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void install_handlers() {
    if (g_handlers_installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) sigaction(s, &sa, &g_old_actions[s]);
    g_handlers_installed = true;
}

void restore_handlers() {
    if (!g_handlers_installed) return;
    for (int s : kSignals) sigaction(s, &g_old_actions[s], nullptr);
    g_handlers_installed = false;
}

void setup_altstack() {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = malloc(kAltStack);  // lives as long as the thread (leaked with it)
    ss.ss_size = kAltStack;
    if (ss.ss_sp) sigaltstack(&ss, nullptr);
}

const char* signame(int s) {
    switch (s) {
        case SIGSEGV: return "SIGSEGV";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGABRT: return "SIGABRT";
        case SIGILL: return "SIGILL";
    }
    return "signal";
}

// ---------------------------------------------------------------------------
// scheduling (all with Device::mu held)
// ---------------------------------------------------------------------------

void fail_locked(Run* r, int32_t code, const std::string& msg) {
    if (!r->failed) {
        r->failed = true;
        r->code = code;
        r->msg = msg;
    }
    r->done_cv.notify_all();
    r->orch_cv.notify_all();
    std::lock_guard<std::mutex> fl(r->dev->fifo_mu);
    r->dev->fifo_cv.notify_all();
}

Task* lookup(Run* r, uint64_t id) {
    uint64_t ring = id >> kRingShift;
    if (ring >= (uint64_t)kRings) return nullptr;
    Ring& rg = r->ring((int)ring);
    uint64_t local = id & kLocalMask;
    if (rg.size == 0 || local >= rg.head || local < rg.tail) return nullptr;
    return &rg.slot(local);
}

void check_finished(Run* r) {
    if (r->orch_done && r->completed == r->seq && !r->finished) {
        r->finished = true;
        r->done_cv.notify_all();
    }
}

void try_retire(Run* r, int ring) {
    Ring& rg = r->ring(ring);
    bool any = false;
    while (rg.tail < rg.head) {
        Task& t = rg.slot(rg.tail);
        if (!(t.completed && t.scope_released && t.fanout_refs == 0)) break;
        t.retired = true;
        rg.dep_used -= t.edges_held;
        if (t.heap_len) {
            rg.heap_used -= t.heap_len;
            rg.heap_tail = t.heap_end;
        }
        ++rg.tail;
        ++r->retired;
        any = true;
    }
    if (any && r->orch_waiting) r->orch_cv.notify_all();
}

void make_ready(Run* r, Task* t) {
    t->t_ready = mono_ns();
    r->queues[t->kind].push_back(t);
}

void assign(Run* r, Core* c, Task* t, int32_t block, int32_t func, Core* self) {
    Device* d = r->dev;
    c->busy = true;
    d->free_count[c->type]--;
    uint64_t ri = r->alloc_rec();
    PtoSimBlockRecord* rec = r->rec(ri);
    rec->task_seq = t->seq;
    rec->task_id = t->id;
    rec->func_id = func;
    rec->block_idx = block;
    rec->core_id = c->id;
    rec->lane = c->lane;
    rec->submit_ns = r->rel(t->t_submit);
    rec->ready_ns = r->rel(t->t_ready);
    rec->dispatch_ns = r->rel(mono_ns());
    rec->start_ns = rec->end_ns = 0;
    c->work.task = t;
    c->work.block_idx = block;
    c->work.func_id = func;
    c->work.rec = ri;
    c->has_work = true;
    ++r->blocks;
    if (c != self && c->sleeping && !c->woken) {
        c->woken = true;
        d->waking[c->type]++;
        t_wakes.push_back(c);
    }
}

Core* pick_core(Device* d, int type, Core* self) {
    if (self && !self->busy && self->type == type) return self;
    int n = d->ncores_of(type);
    int base = type == CT_AIC ? 0 : d->clusters;
    for (int k = 0; k < n; ++k) {
        int i = (int)((d->rr[type] + k) % n);
        Core* c = d->core(base + i);
        if (!c->busy) {
            d->rr[type] = (uint32_t)(i + 1);
            return c;
        }
    }
    return nullptr;
}

Core* lane_core(Device* d, int cluster, int lane) {
    return lane == 0 ? d->core(cluster) : d->core(d->clusters + 2 * cluster + (lane - 1));
}

bool cluster_free_for(Device* d, int cl, const Task* t) {
    for (int l = 0; l < 3; ++l)
        if (t->func[l] != INVALID_KERNEL_ID && lane_core(d, cl, l)->busy) return false;
    return true;
}

int free_clusters_for(Device* d, const Task* t) {
    int n = 0;
    for (int cl = 0; cl < d->clusters; ++cl) n += cluster_free_for(d, cl, t) ? 1 : 0;
    return n;
}

void dispatch_locked(Run* r, Core* self) {
    if (!r || r->failed || !r->dispatch_enabled) return;
    Device* d = r->dev;
    static const int order[3] = {PTO2_TASK_MIXED, PTO2_TASK_AIC, PTO2_TASK_AIV};
    for (int kind : order) {
        auto& q = r->queues[kind];
        while (!q.empty()) {
            Task* t = q.front();
            if (kind == PTO2_TASK_MIXED) {
                if (t->sync_start && t->next_block == 0 && free_clusters_for(d, t) < t->block_num) break;
                int chosen = -1;
                if (self && cluster_free_for(d, self->cluster, t)) chosen = self->cluster;
                for (int cl = 0; chosen < 0 && cl < d->clusters; ++cl)
                    if (cluster_free_for(d, cl, t)) chosen = cl;
                if (chosen < 0) break;
                for (int l = 0; l < 3; ++l)
                    if (t->func[l] != INVALID_KERNEL_ID)
                        assign(r, lane_core(d, chosen, l), t, t->next_block, t->func[l], self);
            } else {
                int type = kind == PTO2_TASK_AIC ? CT_AIC : CT_AIV;
                if (d->free_count[type] == 0) break;
                if (t->sync_start && t->next_block == 0 && d->free_count[type] < t->block_num) break;
                Core* c = pick_core(d, type, self);
                if (!c) break;
                // Wake one sleeping core at a time: while a woken core has not started yet,
                // further ready tasks wait in the queue; that core wakes the next one when it
                // starts (and busy cores take queued work as they finish), so a burst of tiny
                // tasks does not cost one thread wake-up per task.
                if (c != self && c->sleeping && d->waking[type] > 0 && !t->sync_start) break;
                assign(r, c, t, t->next_block, t->func[0], self);
            }
            if (++t->next_block == t->block_num) q.pop_front();
        }
    }
}

void complete_task(Run* r, Task* t) {
    t->completed = true;
    ++r->completed;
    for (uint64_t cid : t->fanout) {
        Task* ct = lookup(r, cid);
        if (ct && --ct->pending == 0 && r->dispatch_enabled) make_ready(r, ct);
    }
    for (uint64_t pid : t->fanin) {
        Task* pt = lookup(r, pid);
        if (pt) {
            pt->fanout_refs--;
            if (pt->ring != t->ring) try_retire(r, pt->ring);
        }
    }
    try_retire(r, t->ring);
    if (r->orch_waiting) r->orch_cv.notify_all();
    check_finished(r);
}

// ---------------------------------------------------------------------------
// TensorMap
// ---------------------------------------------------------------------------

TMEntry region_of(const ChipTensor& t, uint64_t writer) {
    TMEntry e;
    e.writer = writer;
    e.ndims = std::min<uint32_t>(t.ndims, CHIP_TENSOR_MAX_DIMS);
    for (uint32_t i = 0; i < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++i) {
        e.shapes[i] = i < e.ndims ? t.shapes[i] : 1;
        e.strides[i] = i < e.ndims ? t.strides[i] : 0;
    }
    e.start = t.start_offset;
    uint64_t ext = t.extent_elems();
    e.end = e.start + ext;
    e.contiguous = ext == t.numel();
    return e;
}

// Per-dimension coordinates of a window's origin under nested strides; false if not nested.
bool coords_of(const TMEntry& e, uint64_t* c) {
    uint64_t rem = e.start;
    for (uint32_t i = 0; i < e.ndims; ++i) {
        if (e.strides[i] == 0) return false;
        if (i > 0 && (e.strides[i - 1] % e.strides[i] != 0)) return false;
        c[i] = rem / e.strides[i];
        rem -= c[i] * e.strides[i];
        if (i > 0 && c[i] + e.shapes[i] > e.strides[i - 1] / e.strides[i]) return false;
    }
    return rem == 0;
}

bool same_strides(const TMEntry& a, const TMEntry& b) {
    if (a.ndims != b.ndims) return false;
    for (uint32_t i = 0; i < a.ndims; ++i)
        if (a.strides[i] != b.strides[i]) return false;
    return true;
}

bool overlaps(const TMEntry& a, const TMEntry& b) {
    if (a.end <= b.start || b.end <= a.start) return false;
    if (a.start == a.end || b.start == b.end) return false;
    if (same_strides(a, b)) {
        uint64_t ca[CHIP_TENSOR_MAX_DIMS], cb[CHIP_TENSOR_MAX_DIMS];
        if (coords_of(a, ca) && coords_of(b, cb)) {
            for (uint32_t i = 0; i < a.ndims; ++i)
                if (ca[i] + a.shapes[i] <= cb[i] || cb[i] + b.shapes[i] <= ca[i]) return false;
            return true;
        }
    }
    return true;
}

// Does the new write region `w` fully cover entry `e`?
bool covers(const TMEntry& w, const TMEntry& e) {
    if (w.contiguous) return w.start <= e.start && e.end <= w.end;
    if (same_strides(w, e)) {
        uint64_t cw[CHIP_TENSOR_MAX_DIMS], ce[CHIP_TENSOR_MAX_DIMS];
        if (coords_of(w, cw) && coords_of(e, ce)) {
            for (uint32_t i = 0; i < w.ndims; ++i)
                if (ce[i] < cw[i] || ce[i] + e.shapes[i] > cw[i] + w.shapes[i]) return false;
            return true;
        }
    }
    return false;
}

void add_unique(std::vector<uint64_t>& v, uint64_t id) {
    for (uint64_t x : v)
        if (x == id) return;
    v.push_back(id);
}

// Writers of regions overlapping `t` that have not retired; prunes retired entries.
void tensormap_lookup(Run* r, const ChipTensor& t, std::vector<uint64_t>& out) {
    auto it = r->tmap.find(t.buffer.addr);
    if (it == r->tmap.end()) return;
    TMEntry q = region_of(t, 0);
    auto& v = it->second;
    size_t w = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        Task* p = lookup(r, v[i].writer);
        if (!p) continue;  // retired writer: its entry is stale, drop it
        if (overlaps(q, v[i])) add_unique(out, v[i].writer);
        v[w++] = v[i];
    }
    v.resize(w);
    if (v.empty()) r->tmap.erase(it);
}

void tensormap_register(Run* r, const ChipTensor& t, uint64_t writer) {
    auto& v = r->tmap[t.buffer.addr];
    TMEntry e = region_of(t, writer);
    size_t w = 0;
    for (size_t i = 0; i < v.size(); ++i)
        if (!covers(e, v[i])) v[w++] = v[i];
    v.resize(w);
    v.push_back(e);
}

// ---------------------------------------------------------------------------
// the orchestration function table
// ---------------------------------------------------------------------------

[[noreturn]] void fail_throw(Run* r, std::unique_lock<std::mutex>& lk, int32_t code, const std::string& msg) {
    fail_locked(r, code, msg);
    lk.unlock();
    throw RunAbort();
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Try to place `n` bytes in the ring's heap; on success sets off/len (len includes wrap waste).
bool heap_fit(Ring& rg, uint64_t n, uint64_t& off, uint64_t& len) {
    if (n == 0) {
        off = rg.heap_head;
        len = 0;
        return true;
    }
    if (rg.heap_used == 0) {
        rg.heap_head = rg.heap_tail = 0;
        if (n > rg.heap_size) return false;
        off = 0;
        len = n;
        return true;
    }
    uint64_t h = rg.heap_head, t = rg.heap_tail;
    if (h > t) {
        if (h + n <= rg.heap_size) {
            off = h;
            len = n;
            return true;
        }
        if (n <= t) {
            off = 0;
            len = (rg.heap_size - h) + n;
            return true;
        }
        return false;
    }
    // h <= t and used > 0: free space is [h, t)
    if (h < t && h + n <= t) {
        off = h;
        len = n;
        return true;
    }
    return false;
}


void ensure_ring(Run* r, Ring& rg) {
    const PtoSimConfig& c = r->cfg;
    if (rg.size != c.task_ring_size) {
        rg.slots.clear();
        rg.slots.shrink_to_fit();
        rg.slots.resize(c.task_ring_size);
        rg.size = c.task_ring_size;
    }
    if (!rg.heap || rg.heap_size != c.heap_size) {
        if (rg.heap) munmap(rg.heap, rg.heap_size);
        void* p = mmap(nullptr, c.heap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        rg.heap = p == MAP_FAILED ? nullptr : (uint8_t*)p;
        rg.heap_size = rg.heap ? c.heap_size : 0;
    }
    rg.dep_cap = c.dep_pool_size;
}

void op_submit(void* rtp, int32_t kind, const int32_t* ids, const CoreTaskArgs* a, TaskOutputTensors* out) {
    Run* r = static_cast<Run*>(rtp);
    Device* d = r->dev;
    std::unique_lock<std::mutex> lk(d->mu);
    if (r->failed) {
        lk.unlock();
        throw RunAbort();
    }
    const uint64_t seq = r->seq;
    // ---- validation (error 5 / 7)
    if (a->error_ != PTO2_ARG_OK) {
        std::string why;
        switch (a->error_) {
            case PTO2_ARG_TENSOR_AFTER_SCALAR: why = "a tensor was added after a scalar (add every tensor before the scalars)"; break;
            case PTO2_ARG_TOO_MANY_TENSORS: why = fmt("more than %u tensor args (%u added)", CORE_MAX_TENSOR_ARGS, a->tensor_count_); break;
            case PTO2_ARG_TOO_MANY_SCALARS: why = fmt("more than %u scalar args", CORE_MAX_SCALAR_ARGS); break;
            case PTO2_ARG_TOO_MANY_DEPS: why = fmt("more than %u explicit deps", PTO2_MAX_EXPLICIT_DEPS); break;
            case PTO2_ARG_BAD_CREATE_INFO: why = "invalid TensorCreateInfo (ndims must be 1..5, dtype known)"; break;
            default: why = fmt("error %d", a->error_); break;
        }
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("invalid task args for task %llu (arg %u): %s", (unsigned long long)seq, a->error_index_, why.c_str()));
    }
    int32_t func[3] = {ids[0], ids[1], ids[2]};
    if (kind == PTO2_TASK_MIXED) {
        int valid = 0;
        for (int l = 0; l < 3; ++l) valid += func[l] != INVALID_KERNEL_ID;
        if (valid == 0) fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: MixedKernels with no valid kernel id", (unsigned long long)seq));
        if (valid == 1 && func[0] != INVALID_KERNEL_ID) {
            kind = PTO2_TASK_AIC;
        } else if (valid == 1) {
            kind = PTO2_TASK_AIV;
            func[0] = func[1] != INVALID_KERNEL_ID ? func[1] : func[2];
            func[1] = func[2] = INVALID_KERNEL_ID;
        }
    } else if (kind != PTO2_TASK_AIV && kind != PTO2_TASK_AIC) {
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: unknown task kind %d", (unsigned long long)seq, kind));
    }
    for (int l = 0; l < (kind == PTO2_TASK_MIXED ? 3 : 1); ++l) {
        int32_t f = func[l];
        if (kind == PTO2_TASK_MIXED && f == INVALID_KERNEL_ID) continue;
        if (f < 0 || f >= (int32_t)r->kernels.size() || !r->kernels[f].fn)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: func_id %d is not a kernel of this program", (unsigned long long)seq, f));
        int want = (kind == PTO2_TASK_AIC || (kind == PTO2_TASK_MIXED && l == 0)) ? CT_AIC : CT_AIV;
        int have = r->kernels[f].core_type;
        if (have >= 0 && have != want)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: kernel '%s' (func_id %d) is an %s kernel, submitted as %s", (unsigned long long)seq, r->kernels[f].name.c_str(), f, have == CT_AIC ? "aic" : "aiv", want == CT_AIC ? "aic" : "aiv"));
    }
    int32_t block_num = a->launch_spec.block_num_;
    if (block_num < 1 || block_num > 65535)
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: block_num %d out of range 1..65535", (unsigned long long)seq, block_num));
    if (a->launch_spec.sync_start_) {
        int cap = kind == PTO2_TASK_MIXED ? d->clusters : d->ncores_of(kind == PTO2_TASK_AIC ? CT_AIC : CT_AIV);
        if (block_num > cap)
            fail_throw(r, lk, PTO2_ERR_INVALID_SYNC_START, fmt("invalid sync-start: task %llu asks %d blocks to start together but only %d %s are simulated", (unsigned long long)seq, block_num, cap, kind == PTO2_TASK_MIXED ? "clusters" : "cores of its type"));
    }
    const uint32_t nt = a->tensor_count_, ns = a->scalar_count_;
    uint64_t heap_bytes = 0;
    uint32_t nout = 0;
    for (uint32_t i = 0; i < nt; ++i) {
        const ChipTensor& t = a->tensors_[i];
        if (t.ndims < 1 || t.ndims > (uint32_t)CHIP_TENSOR_MAX_DIMS || get_element_size(t.dtype) == 0)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: tensor arg %u has invalid ndims %u or dtype %u", (unsigned long long)seq, i, t.ndims, (unsigned)t.dtype));
        if (a->kinds_[i] == PTO2ArgKind::OUTPUT) {
            heap_bytes += align_up(std::max<uint64_t>(t.numel() * get_element_size(t.dtype), 1), kHeapAlign);
            ++nout;
        } else if (t.buffer.addr == 0) {
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: tensor arg %u has a null buffer", (unsigned long long)seq, i));
        }
    }
    // ---- dependencies
    std::vector<uint64_t> prods;
    for (uint32_t i = 0; i < nt; ++i) {
        PTO2ArgKind k = a->kinds_[i];
        if (k == PTO2ArgKind::OUTPUT || k == PTO2ArgKind::NO_DEP) continue;
        const ChipTensor& t = a->tensors_[i];
        if (t.owner_task_id != PTO2_INVALID_TASK_ID && lookup(r, t.owner_task_id)) add_unique(prods, t.owner_task_id);
        if (!t.manual_dep) tensormap_lookup(r, t, prods);
    }
    const int ringi = r->hbg ? 0 : r->depth;
    Ring& rg = r->ring(ringi);
    for (uint32_t i = 0; i < a->dep_count_; ++i) {
        uint64_t id = a->deps_[i];
        uint64_t dr = id >> kRingShift;
        if (dr >= (uint64_t)kRings || r->ring((int)dr).size == 0 || (id & kLocalMask) >= r->ring((int)dr).head)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: explicit dep on unknown task id 0x%llx", (unsigned long long)seq, (unsigned long long)id));
        if (lookup(r, id)) add_unique(prods, id);
    }
    // ---- ring space (back-pressure)
    ensure_ring(r, rg);
    if (!rg.heap) fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("cannot map a heap ring of heap_size=%llu bytes", (unsigned long long)r->cfg.heap_size));
    if (heap_bytes > rg.heap_size)
        fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("heap-ring deadlock: task %llu needs %llu bytes of outputs but heap_size=%llu", (unsigned long long)seq, (unsigned long long)heap_bytes, (unsigned long long)rg.heap_size));
    if (prods.size() > rg.dep_cap)
        fail_throw(r, lk, PTO2_ERR_DEP_POOL_OVERFLOW, fmt("dependency-pool overflow: task %llu has %zu dependencies but dep_pool_size=%llu", (unsigned long long)seq, prods.size(), (unsigned long long)rg.dep_cap));
    uint64_t off = 0, len = 0;
    uint64_t seen_retired = r->retired;
    auto deadline = Clock::now() + std::chrono::duration<double>(r->cfg.timeout_s);
    for (;;) {
        if (r->failed) {
            lk.unlock();
            throw RunAbort();
        }
        bool slot_ok = rg.head - rg.tail < rg.size;
        bool heap_ok = heap_fit(rg, heap_bytes, off, len);
        bool dep_ok = rg.dep_used + prods.size() <= rg.dep_cap;
        if (slot_ok && heap_ok && dep_ok) break;
        if (r->hbg) {
            if (!slot_ok)
                fail_throw(r, lk, PTO2_ERR_FLOW_CONTROL_DEADLOCK, fmt("host_build_graph: the task graph does not fit: task %llu exceeds task_ring_size=%llu (raise RunConfig.task_ring_size)", (unsigned long long)seq, (unsigned long long)rg.size));
            if (!heap_ok)
                fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("host_build_graph: the task graph does not fit: outputs of task %llu exceed heap_size=%llu bytes (raise RunConfig.heap_size)", (unsigned long long)seq, (unsigned long long)rg.heap_size));
            fail_throw(r, lk, PTO2_ERR_DEP_POOL_OVERFLOW, fmt("host_build_graph: the task graph does not fit: dependencies of task %llu exceed dep_pool_size=%llu (raise RunConfig.dep_pool_size)", (unsigned long long)seq, (unsigned long long)rg.dep_cap));
        }
        if (rg.tail < rg.head && !rg.slot(rg.tail).scope_released) {
            // the ring is held by the scope that is still open: it can never drain
            if (!slot_ok)
                fail_throw(r, lk, PTO2_ERR_SCOPE_DEADLOCK, fmt("scope deadlock: the task ring of scope depth %d is full (task_ring_size=%llu) with tasks held by the open PTO2_SCOPE; task %llu cannot be submitted", ringi, (unsigned long long)rg.size, (unsigned long long)seq));
            if (!heap_ok)
                fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("heap-ring deadlock: the heap ring of scope depth %d (heap_size=%llu) is full of outputs held by the open PTO2_SCOPE; task %llu needs %llu bytes", ringi, (unsigned long long)rg.heap_size, (unsigned long long)seq, (unsigned long long)heap_bytes));
            fail_throw(r, lk, PTO2_ERR_DEP_POOL_OVERFLOW, fmt("dependency-pool overflow: the dependency pool of scope depth %d (dep_pool_size=%llu) is full of edges held by the open PTO2_SCOPE", ringi, (unsigned long long)rg.dep_cap));
        }
        r->orch_waiting = true;
        auto st = r->orch_cv.wait_until(lk, deadline);
        r->orch_waiting = false;
        if (r->retired != seen_retired) {
            seen_retired = r->retired;
            deadline = Clock::now() + std::chrono::duration<double>(r->cfg.timeout_s);
        } else if (st == std::cv_status::timeout) {
            fail_throw(r, lk, PTO2_ERR_FLOW_CONTROL_DEADLOCK, fmt("flow-control deadlock: no task retired for %.3g s while the orchestrator waits for ring space (depth %d)", r->cfg.timeout_s, ringi));
        }
    }
    // ---- commit
    const uint64_t local = rg.head++;
    Task& t = rg.slot(local);
    t.id = ((uint64_t)ringi << kRingShift) | local;
    t.seq = seq;
    t.local = local;
    t.ring = ringi;
    t.kind = kind;
    t.func[0] = func[0];
    t.func[1] = func[1];
    t.func[2] = func[2];
    t.block_num = block_num;
    t.next_block = 0;
    t.lanes_per_block = 1;
    if (kind == PTO2_TASK_MIXED) {
        t.lanes_per_block = 0;
        for (int l = 0; l < 3; ++l) t.lanes_per_block += func[l] != INVALID_KERNEL_ID;
    }
    t.lanes_done = 0;
    t.sync_start = a->launch_spec.sync_start_;
    t.pending = 0;
    t.fanout_refs = 0;
    t.completed = t.scope_released = t.retired = false;
    t.heap_begin = rg.heap_head;
    t.heap_len = len;
    t.heap_end = rg.heap_head;
    if (len) {
        uint64_t e = off + heap_bytes;
        if (e == rg.heap_size) e = 0;
        t.heap_end = e;
        rg.heap_head = e;
        rg.heap_used += len;
    }
    t.fanout.clear();
    t.fanin.clear();
    t.t_submit = mono_ns();
    t.t_ready = 0;
    t.ntensors = nt;
    t.nscalars = ns;
    t.tensors.assign(a->tensors_, a->tensors_ + nt);
    memcpy(t.scalars, a->scalars_, sizeof(uint64_t) * ns);
    if (r->cfg.record_args) {  // for traces: kind, dtype and shape of each tensor arg
        r->targs.push_back((uint32_t)seq);
        r->targs.push_back((uint32_t)(seq >> 32));
        r->targs.push_back(nt);
        for (uint32_t i = 0; i < nt; ++i) {
            const ChipTensor& x = a->tensors_[i];
            uint32_t nd = std::min<uint32_t>(x.ndims, CHIP_TENSOR_MAX_DIMS);
            r->targs.push_back((uint32_t)a->kinds_[i] | ((uint32_t)x.dtype << 8) | (nd << 16));
            for (uint32_t d = 0; d < nd; ++d) r->targs.push_back(x.shapes[d]);
        }
    }
    out->task_id_ = t.id;
    out->count_ = 0;
    out->base_ = t.tensors.data();
    uint64_t cursor = off;
    for (uint32_t i = 0; i < nt; ++i) {
        if (a->kinds_[i] != PTO2ArgKind::OUTPUT) continue;
        ChipTensor& o = t.tensors[i];
        uint64_t bytes = o.numel() * get_element_size(o.dtype);
        o.buffer.addr = (uint64_t)(uintptr_t)(rg.heap + cursor);
        o.buffer.size = bytes;
        o.owner_task_id = t.id;
        o.start_offset = 0;
        o.version = 0;
        cursor += align_up(std::max<uint64_t>(bytes, 1), kHeapAlign);
        out->index_[out->count_++] = (uint8_t)i;
    }
    for (uint64_t p : prods) {
        Task* pt = lookup(r, p);
        if (!pt) continue;
        pt->fanout_refs++;
        t.fanin.push_back(p);
        if (!pt->completed) {
            pt->fanout.push_back(t.id);
            ++t.pending;
        }
        r->edges.push_back(PtoSimEdge{pt->seq, seq});
    }
    t.edges_held = t.fanin.size();
    rg.dep_used += t.edges_held;
    for (uint32_t i = 0; i < nt; ++i) {
        PTO2ArgKind k = a->kinds_[i];
        if ((k == PTO2ArgKind::INOUT || k == PTO2ArgKind::OUTPUT_EXISTING) && !t.tensors[i].manual_dep)
            tensormap_register(r, t.tensors[i], t.id);
    }
    ++r->seq;
    ++r->progress;
    if (t.pending == 0 && r->dispatch_enabled) {
        make_ready(r, &t);
        dispatch_locked(r, nullptr);
    }
    lk.unlock();
    flush_wakes();
}

void op_scope_begin(void* rtp) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    if (r->failed) {
        lk.unlock();
        throw RunAbort();
    }
    if (r->depth >= PTO2_MAX_SCOPE_DEPTH)
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("PTO2_SCOPE nested deeper than %d", PTO2_MAX_SCOPE_DEPTH));
    ++r->depth;
    if (!r->hbg) {
        Ring& rg = r->ring(r->depth);
        rg.scope_begin = rg.head;
    }
}

void release_range(Run* r, int ringi, uint64_t from) {
    Ring& rg = r->ring(ringi);
    if (rg.size == 0) return;
    for (uint64_t l = std::max(from, rg.tail); l < rg.head; ++l) rg.slot(l).scope_released = true;
    try_retire(r, ringi);
}

void op_scope_end(void* rtp) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    if (r->depth <= 0) return;
    if (!r->hbg && !r->failed) release_range(r, r->depth, r->ring(r->depth).scope_begin);
    --r->depth;
}

void op_fatal(void* rtp, int32_t code, const char* message) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    fail_throw(r, lk, code, fmt("orchestration fatal: %s", message ? message : "(no message)"));
}

void wait_for_producers(Run* r, std::unique_lock<std::mutex>& lk, std::vector<uint64_t>& prods, const char* what) {
    if (prods.empty()) return;
    if (r->hbg)
        fail_throw(r, lk, PTO2_ERR_TENSOR_WAIT_TIMEOUT, fmt("tensor-wait: %s cannot complete under host_build_graph (no task runs before the orchestration returns)", what));
    auto deadline = Clock::now() + std::chrono::duration<double>(r->cfg.timeout_s);
    for (;;) {
        if (r->failed) {
            lk.unlock();
            throw RunAbort();
        }
        bool all = true;
        for (uint64_t p : prods) {
            Task* t = lookup(r, p);
            if (t && !t->completed) all = false;
        }
        if (all) return;
        r->orch_waiting = true;
        auto st = r->orch_cv.wait_until(lk, deadline);
        r->orch_waiting = false;
        if (st == std::cv_status::timeout)
            fail_throw(r, lk, PTO2_ERR_TENSOR_WAIT_TIMEOUT, fmt("tensor-wait timeout: %s did not complete within %.3g s", what, r->cfg.timeout_s));
    }
}

void op_wait_tensor(void* rtp, const ChipTensor* t) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    std::vector<uint64_t> prods;
    if (t->owner_task_id != PTO2_INVALID_TASK_ID && lookup(r, t->owner_task_id)) prods.push_back(t->owner_task_id);
    tensormap_lookup(r, *t, prods);
    wait_for_producers(r, lk, prods, "the writers of a tensor");
}

void op_wait_task(void* rtp, PTO2TaskId id) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    std::vector<uint64_t> prods;
    if (lookup(r, id)) prods.push_back(id);
    wait_for_producers(r, lk, prods, "a task");
}

const PTO2RuntimeOps g_ops = {PTO2_RUNTIME_OPS_VERSION, sizeof(PTO2RuntimeOps), op_submit, op_scope_begin,
                              op_scope_end, op_fatal, op_wait_tensor, op_wait_task};

// ---------------------------------------------------------------------------
// threads
// ---------------------------------------------------------------------------

void orchestration_done(Run* r) {
    Device* d = r->dev;
    std::unique_lock<std::mutex> lk(d->mu);
    for (int i = 0; i < kRings; ++i) release_range(r, i, 0);
    r->depth = 0;
    r->orch_done = true;
    if (r->hbg && !r->failed) {
        r->dispatch_enabled = true;
        Ring& rg = r->ring(0);
        for (uint64_t l = rg.tail; rg.size && l < rg.head; ++l) {
            Task& t = rg.slot(l);
            if (t.pending == 0 && !t.completed) make_ready(r, &t);
        }
        dispatch_locked(r, nullptr);
    }
    check_finished(r);
    lk.unlock();
    flush_wakes();
}

void orch_main(Run* r) {
    setup_altstack();
    t_jctx = &r->orch_jctx;
    try {
        if (sigsetjmp(r->orch_jctx.jb, 1) == 0) {
            r->orch_jctx.armed = 1;
            r->bind(&g_ops, r);
            if (r->config) {
                PTO2OrchestrationConfig c = r->config(r->orch_args);
                if (c.expected_arg_count != (int32_t)r->orch_args.arg_count()) {
                    r->orch_jctx.armed = 0;
                    std::unique_lock<std::mutex> lk(r->dev->mu);
                    fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("orchestration '%s' expects %d args, got %u (%u tensors + %u scalars)", r->orch_name.c_str(), c.expected_arg_count, r->orch_args.arg_count(), r->orch_args.tensor_count(), r->orch_args.scalar_count()));
                }
            }
            r->entry(r->orch_args);
            r->orch_jctx.armed = 0;
        } else {
            std::unique_lock<std::mutex> lk(r->dev->mu);
            fail_locked(r, PTO2_ERR_KERNEL_FAULT, fmt("orchestration '%s' crashed with %s (address %p)", r->orch_name.c_str(), signame(r->orch_jctx.sig), r->orch_jctx.addr));
        }
    } catch (RunAbort&) {
    } catch (std::exception& e) {
        std::unique_lock<std::mutex> lk(r->dev->mu);
        fail_locked(r, PTO2_ERR_EXPLICIT_FATAL, fmt("orchestration '%s' threw: %s", r->orch_name.c_str(), e.what()));
    } catch (...) {
        std::unique_lock<std::mutex> lk(r->dev->mu);
        fail_locked(r, PTO2_ERR_EXPLICIT_FATAL, fmt("orchestration '%s' threw a C++ exception", r->orch_name.c_str()));
    }
    r->orch_jctx.armed = 0;
    t_jctx = nullptr;
    orchestration_done(r);
    std::lock_guard<std::mutex> lk(r->dev->mu);
    r->orch_exited = true;
    r->done_cv.notify_all();
}

void* orch_thread(void* arg) {
    orch_main(static_cast<Run*>(arg));
    return nullptr;
}

bool run_block(Core* c, Run* r, const Work& w) {
    Task* t = w.task;
    PtoSimBlockRecord* rec = r->rec(w.rec);
    for (uint32_t i = 0; i < t->ntensors; ++i) c->args[i] = (int64_t)(uintptr_t)&t->tensors[i];
    for (uint32_t j = 0; j < t->nscalars; ++j) c->args[t->ntensors + j] = (int64_t)t->scalars[j];
    c->lc.block_idx = w.block_idx;
    c->lc.block_num = t->block_num;
    c->lc.task_id = t->id;
    c->lc.core_id = c->id;
    c->args[PTO_ARGS_LOCAL_CONTEXT_INDEX] = (int64_t)(uintptr_t)&c->lc;
    c->args[PTO_ARGS_GLOBAL_CONTEXT_INDEX] = (int64_t)(uintptr_t)&c->gc;
    KernelFn fn = r->kernels[w.func_id].fn;
    c->jctx.sig = 0;
    c->jctx.msg[0] = 0;
    rec->start_ns = r->rel(mono_ns());
    ++r->progress;
    volatile bool ok = false;
    if (sigsetjmp(c->jctx.jb, 1) == 0) {
        c->jctx.armed = 1;
        fn(c->args);
        c->jctx.armed = 0;
        ok = true;
    }
    c->jctx.armed = 0;
    rec->end_ns = r->rel(mono_ns());
    return ok;
}

void block_done(Run* r, Core* c, const Work& w, bool ok) {
    Device* d = r->dev;
    c->busy = false;
    d->free_count[c->type]++;
    ++r->progress;
    Task* t = w.task;
    if (!ok) {
        const std::string& kn = r->kernels[w.func_id].name;
        std::string what = c->jctx.sig ? fmt("crashed with %s (address %p)", signame(c->jctx.sig), c->jctx.addr)
                                       : fmt("failed: %s", c->jctx.msg);
        fail_locked(r, PTO2_ERR_KERNEL_FAULT, fmt("kernel '%s' (func_id %d) %s in task %llu (id 0x%llx), block %d on core %d", kn.c_str(), w.func_id, what.c_str(), (unsigned long long)t->seq, (unsigned long long)t->id, w.block_idx, c->id));
    }
    if (++t->lanes_done == t->block_num * t->lanes_per_block) complete_task(r, t);
    if (r->failed) r->done_cv.notify_all();
}

void core_main(Core* c) {
    setup_altstack();
    t_core = c;
    t_jctx = &c->jctx;
    Device* d = c->dev;
    std::unique_lock<std::mutex> lk(d->mu);
    for (;;) {
        if (c->has_work) {
            Work w = c->work;
            c->has_work = false;
            if (c->woken) {
                c->woken = false;
                d->waking[c->type]--;
                if (d->run && (!d->run->queues[PTO2_TASK_AIV].empty() || !d->run->queues[PTO2_TASK_AIC].empty()))
                    dispatch_locked(d->run, nullptr);
            }
            c->cur = w;
            c->cur_start = mono_ns();
            Run* r = d->run;
            lk.unlock();
            flush_wakes();
            bool ok = run_block(c, r, w);
            lk.lock();
            if (d->abandoned) break;
            block_done(r, c, w, ok);
            dispatch_locked(r, c);
            if (!t_wakes.empty()) {
                lk.unlock();
                flush_wakes();
                lk.lock();
            }
            continue;
        }
        if (d->shutdown || d->abandoned) break;
        c->sleeping = true;
        c->cv.wait_for(lk, std::chrono::seconds(1));
        c->sleeping = false;
    }
}

Device* create_device(int32_t platform, int32_t clusters) {
    Device* d = new Device;
    d->platform = platform;
    d->clusters = clusters;
    const uint64_t* cap = platform == 1 ? kCapA5 : kCapA2A3;
    int n = 3 * clusters;
    for (int i = 0; i < n; ++i) {
        std::unique_ptr<Core> c(new Core);
        c->id = i;
        c->dev = d;
        if (i < clusters) {
            c->cluster = i;
            c->lane = -1;
            c->type = CT_AIC;
        } else {
            c->cluster = (i - clusters) / 2;
            c->lane = (i - clusters) % 2;
            c->type = CT_AIV;
        }
        size_t total = 0;
        size_t offs[6];
        for (int s = 0; s < 6; ++s) {
            offs[s] = total;
            total += align_up(cap[s], 4096);
        }
        void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        c->mem = p == MAP_FAILED ? nullptr : (uint8_t*)p;
        c->mem_size = total;
        memset(&c->hw, 0, sizeof c->hw);
        for (int s = 0; s < 6; ++s) {
            c->hw.space_base[s] = c->mem ? c->mem + offs[s] : nullptr;
            c->hw.space_size[s] = cap[s];
        }
        c->hw.core_id = i;
        c->hw.cluster_id = c->cluster;
        c->hw.lane = c->lane;
        c->hw.runtime = c.get();
        memset(&c->lc, 0, sizeof c->lc);
        memset(&c->gc, 0, sizeof c->gc);
        c->gc.sub_block_id = c->lane < 0 ? 0 : c->lane;
        c->gc.cluster_id = c->cluster;
        c->gc.core_id = i;
        c->gc.core_type = c->type;
        d->cores.push_back(std::move(c));
    }
    d->free_count[CT_AIC] = clusters;
    d->free_count[CT_AIV] = 2 * clusters;
    for (auto& c : d->cores) c->th = std::thread(core_main, c.get());
    return d;
}

void destroy_device(Device* d) {
    {
        std::lock_guard<std::mutex> lk(d->mu);
        d->shutdown = true;
        for (auto& c : d->cores) c->cv.notify_all();
    }
    for (auto& c : d->cores)
        if (c->th.joinable()) c->th.join();
    for (auto& c : d->cores)
        if (c->mem) munmap(c->mem, c->mem_size);
    for (auto& rg : d->rings)
        if (rg.heap) munmap(rg.heap, rg.heap_size);
    delete d;
}

std::mutex g_run_mu;
Device* g_dev = nullptr;
std::map<std::string, void*> g_handles;

void* load_so(const std::string& path, std::string& err) {
    auto it = g_handles.find(path);
    if (it != g_handles.end()) return it->second;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        err = e ? e : "dlopen failed";
        return nullptr;
    }
    g_handles[path] = h;  // never dlclosed: a zombie kernel may still run its code
    return h;
}

std::string diagnose_stall(Run* r) {
    Device* d = r->dev;
    int64_t now = mono_ns();
    for (auto& c : d->cores) {
        if (c->busy && !c->has_work && c->cur.task) {
            const Work& w = c->cur;
            return fmt("task %llu (kernel '%s', func_id %d, block %d) stalled running on core %d for %.3f s", (unsigned long long)w.task->seq, r->kernels[w.func_id].name.c_str(), w.func_id, w.block_idx, c->id, (now - c->cur_start) / 1e9);
        }
    }
    size_t ready = r->queues[0].size() + r->queues[1].size() + r->queues[2].size();
    if (ready) {
        const char* k = !r->queues[PTO2_TASK_MIXED].empty() ? "a mixed task needs a whole free cluster" : "no free core of the right type";
        return fmt("%zu ready task(s) but no core takes them (%s)", ready, k);
    }
    if (!r->orch_done)
        return fmt("orchestrator starved: the orchestration function has not returned (%llu task(s) submitted, %llu completed)", (unsigned long long)r->seq, (unsigned long long)r->completed);
    return fmt("dependency cycle: %llu task(s) wait on dependencies that never complete", (unsigned long long)(r->seq - r->completed));
}

}  // namespace

// ---------------------------------------------------------------------------
// hooks for the CPU tile library (docs/contracts.md)
// ---------------------------------------------------------------------------

extern "C" __attribute__((visibility("default"))) PtoCpuCore* pto_cpu_current_core(void) {
    return t_core ? &t_core->hw : nullptr;
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_fatal(const char* instr, const char* message) {
    JumpCtx* j = t_jctx;
    if (j && j->armed) {
        snprintf(j->msg, sizeof j->msg, "%s: %s", instr ? instr : "?", message ? message : "");
        j->armed = 0;
        j->sig = 0;
        siglongjmp(j->jb, 2);
    }
    fprintf(stderr, "ptosim: fatal outside a kernel: %s: %s\n", instr ? instr : "?", message ? message : "");
    abort();
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_check_gm(const void* p, uint64_t bytes) {
    Run* r = g_active_run.load(std::memory_order_acquire);
    if (!r) return 0;
    uint64_t a = (uint64_t)(uintptr_t)p, e = a + bytes;
    for (auto& g : r->gm)
        if (a >= g.first && e <= g.second) return 1;
    for (int i = 0; i < kRings; ++i) {
        const Ring& rg = r->dev->rings[i];
        uint64_t b = (uint64_t)(uintptr_t)rg.heap;
        if (rg.heap && a >= b && e <= b + rg.heap_size) return 1;
    }
    return 0;
}


#ifdef PTOSIM_HAVE_FIFO_HOOKS
// ---------------------------------------------------------------------------
// cross-core FIFOs (TPUSH/TPOP/TFREE), one per (cluster, pipe, direction, lane)
// ---------------------------------------------------------------------------

namespace {
Fifo* fifo_get(Device* d, PtoCpuCore* core, int32_t pipe, int32_t dir, int32_t lane, uint32_t slot_size, uint32_t slot_num) {
    auto key = std::make_tuple(core->cluster_id, pipe, dir, lane);
    auto it = d->fifos.find(key);
    if (it == d->fifos.end()) {
        Fifo f;
        f.slot_size = slot_size;
        f.slot_num = slot_num ? slot_num : 2;
        it = d->fifos.emplace(key, std::move(f)).first;
    }
    return &it->second;
}

// Wait on the device FIFO condition until pred() or the run fails / times out.
template <typename Pred>
int fifo_wait(Device* d, Run* r, std::unique_lock<std::mutex>& lk, Pred pred) {
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(r->cfg.timeout_s * 0.9));
    while (!pred()) {
        if (r->failed) return PTO_CPU_FIFO_ERROR;
        if (d->fifo_cv.wait_until(lk, deadline) == std::cv_status::timeout && !pred()) return PTO_CPU_FIFO_TIMEOUT;
    }
    return r->failed ? PTO_CPU_FIFO_ERROR : PTO_CPU_FIFO_OK;
}

// Trace record of a TPUSH/TPOP that waited (only when tracing; the caller holds fifo_mu).
void fifo_note_wait(Run* r, PtoCpuCore* core, int32_t pipe, int32_t dir, int32_t lane, int32_t op, int64_t t0) {
    Core* c = static_cast<Core*>(core->runtime);
    PtoSimFifoWait w;
    w.task_seq = c->cur.task ? c->cur.task->seq : 0;
    w.core_id = c->id;
    w.lane = c->lane;
    w.pipe = pipe;
    w.dir = dir;
    w.op = op;
    w.fifo_lane = lane;
    w.start_ns = r->rel(t0);
    w.end_ns = r->rel(mono_ns());
    r->fifo_waits.push_back(w);
}

Run* core_run(PtoCpuCore* core, Device** dout) {
    if (!core || !core->runtime) return nullptr;
    Device* d = static_cast<Core*>(core->runtime)->dev;
    *dout = d;
    return d->run;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int pto_cpu_fifo_push(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane,
                                                                        const void* src, uint64_t bytes, uint32_t slot_size, uint32_t slot_num) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    if (!r) return PTO_CPU_FIFO_ERROR;
    std::unique_lock<std::mutex> lk(d->fifo_mu);
    Fifo* f = fifo_get(d, core, pipe_id, dir, lane, slot_size, slot_num);
    if (bytes > f->slot_size) return PTO_CPU_FIFO_BAD_SIZE;
    auto has_room = [&] { return f->queued.size() + (f->held ? 1 : 0) < f->slot_num; };
    int64_t waited = r->cfg.record_args && !has_room() ? mono_ns() : 0;
    int rc = fifo_wait(d, r, lk, has_room);
    if (rc) return rc;
    if (waited) fifo_note_wait(r, core, pipe_id, dir, lane, 0, waited);
    f->queued.emplace_back((const uint8_t*)src, (const uint8_t*)src + bytes);
    ++r->progress;
    d->fifo_cv.notify_all();
    return PTO_CPU_FIFO_OK;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_fifo_pop(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane,
                                                                       void* dst, uint64_t bytes, uint32_t slot_size, uint32_t slot_num) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    if (!r) return PTO_CPU_FIFO_ERROR;
    std::unique_lock<std::mutex> lk(d->fifo_mu);
    Fifo* f = fifo_get(d, core, pipe_id, dir, lane, slot_size, slot_num);
    if (f->held) {
        f->held = false;  // the next pop releases the slot the previous one held
        d->fifo_cv.notify_all();
    }
    auto has_data = [&] { return !f->queued.empty(); };
    int64_t waited = r->cfg.record_args && !has_data() ? mono_ns() : 0;
    int rc = fifo_wait(d, r, lk, has_data);
    if (rc) return rc;
    if (waited) fifo_note_wait(r, core, pipe_id, dir, lane, 1, waited);
    std::vector<uint8_t>& slot = f->queued.front();
    if (slot.size() != bytes) return PTO_CPU_FIFO_BAD_SIZE;
    memcpy(dst, slot.data(), bytes);
    f->queued.pop_front();
    f->held = true;
    ++r->progress;
    d->fifo_cv.notify_all();
    return PTO_CPU_FIFO_OK;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_fifo_free(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    if (!r) return PTO_CPU_FIFO_ERROR;
    std::unique_lock<std::mutex> lk(d->fifo_mu);
    auto it = d->fifos.find(std::make_tuple(core->cluster_id, pipe_id, dir, lane));
    if (it != d->fifos.end() && it->second.held) {
        it->second.held = false;
        d->fifo_cv.notify_all();
    }
    return PTO_CPU_FIFO_OK;
}
#endif

// ---------------------------------------------------------------------------
// C API
// ---------------------------------------------------------------------------

extern "C" __attribute__((visibility("default"))) int ptosim_run(
    const PtoSimConfig* cfg, const char* orch_path, const char* orch_func, const PtoSimKernel* kernels, int32_t nkernels,
    const ChipTensor* tensors, int32_t ntensors, const uint64_t* scalars, int32_t nscalars, char* err, int32_t errlen,
    PtoSimStats* stats, void** result) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);
    auto set_err = [&](int code, const std::string& m) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "%s", m.c_str());
        return code;
    };
    if (result) *result = nullptr;
    if (stats) memset(stats, 0, sizeof *stats);
    if (err && errlen > 0) err[0] = 0;
    if (cfg->clusters < 1 || cfg->task_ring_size < 1 || cfg->dep_pool_size < 1 || cfg->heap_size < kHeapAlign)
        return set_err(PTO2_ERR_INVALID_ARGS, "invalid simulator configuration");
    if (ntensors < 0 || (uint32_t)ntensors > CHIP_MAX_TENSOR_ARGS)
        return set_err(PTO2_ERR_INVALID_ARGS, fmt("%d tensor args: at most %u", ntensors, CHIP_MAX_TENSOR_ARGS));

    // ---- load binaries
    std::unique_ptr<Run> r(new Run);
    r->cfg = *cfg;
    r->hbg = cfg->runtime_kind == 1;
    r->orch_name = orch_func ? orch_func : "aicpu_orchestration_entry";
    std::string e;
    void* oh = load_so(orch_path, e);
    if (!oh) return set_err(PTO2_ERR_LOAD, fmt("cannot load the orchestration %s: %s", orch_path, e.c_str()));
    r->bind = (BindFn)dlsym(oh, "pto2_orchestration_bind");
    r->entry = (EntryFn)dlsym(oh, r->orch_name.c_str());
    r->config = (ConfigFn)dlsym(oh, "aicpu_orchestration_config");
    if (!r->bind)
        return set_err(PTO2_ERR_LOAD, fmt("%s does not export pto2_orchestration_bind: build it with ptokit's pto_orchestration_api.h included in exactly one source file", orch_path));
    if (!r->entry) return set_err(PTO2_ERR_LOAD, fmt("%s does not export the orchestration function '%s'", orch_path, r->orch_name.c_str()));
    for (int32_t i = 0; i < nkernels; ++i) {
        const PtoSimKernel& k = kernels[i];
        if (k.func_id < 0 || k.func_id > 1 << 20) return set_err(PTO2_ERR_LOAD, fmt("invalid func_id %d", k.func_id));
        void* kh = load_so(k.path, e);
        if (!kh) return set_err(PTO2_ERR_LOAD, fmt("cannot load kernel '%s' (%s): %s", k.name ? k.name : "?", k.path, e.c_str()));
        KernelFn fn = (KernelFn)dlsym(kh, "kernel_entry");
        if (!fn) return set_err(PTO2_ERR_LOAD, fmt("kernel '%s' (%s) does not export kernel_entry", k.name ? k.name : "?", k.path));
        if ((int32_t)r->kernels.size() <= k.func_id) r->kernels.resize(k.func_id + 1);
        r->kernels[k.func_id].fn = fn;
        r->kernels[k.func_id].name = k.name ? k.name : fmt("func_%d", k.func_id);
        r->kernels[k.func_id].core_type = k.core_type;
    }
    r->orch_tensors.assign(tensors, tensors + ntensors);
    r->orch_scalars.assign(scalars, scalars + nscalars);
    r->orch_args.tensors_ = r->orch_tensors.data();
    r->orch_args.tensor_count_ = (uint32_t)ntensors;
    r->orch_args.scalars_ = r->orch_scalars.data();
    r->orch_args.scalar_count_ = (uint32_t)nscalars;
    for (auto& t : r->orch_tensors) r->gm.emplace_back(t.buffer.addr, t.buffer.addr + t.buffer.size);

    // ---- device
    if (g_dev && (g_dev->platform != cfg->platform || g_dev->clusters != cfg->clusters)) {
        destroy_device(g_dev);
        g_dev = nullptr;
    }
    if (!g_dev) g_dev = create_device(cfg->platform, cfg->clusters);
    Device* d = g_dev;
    r->dev = d;
    {
        std::lock_guard<std::mutex> lk(d->mu);
        for (auto& rg : d->rings) {
            rg.head = rg.tail = 0;
            rg.heap_head = rg.heap_tail = rg.heap_used = 0;
            rg.dep_used = 0;
            rg.scope_begin = 0;
        }
        for (auto& c : d->cores) c->hw.debug_nan_fill = cfg->debug_nan_fill;
        std::lock_guard<std::mutex> fl(d->fifo_mu);
        d->fifos.clear();
        ensure_ring(r.get(), d->rings[0]);
        r->dispatch_enabled = !r->hbg;
        d->run = r.get();
    }
    g_active_run.store(r.get(), std::memory_order_release);
    install_handlers();
    r->t0 = mono_ns();

    // ---- run and monitor
    // The orchestrator gets a large stack: generated orchestration functions keep one
    // CoreTaskArgs (~4.7 KB) per submission in a single frame.
    pthread_t orch;
    {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, kOrchStack);
        int rc = pthread_create(&orch, &attr, orch_thread, r.get());
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            restore_handlers();
            g_active_run.store(nullptr, std::memory_order_release);
            std::lock_guard<std::mutex> lk(d->mu);
            d->run = nullptr;
            return set_err(PTO2_ERR_LOAD, "cannot start the orchestrator thread");
        }
    }
    bool abandoned = false;
    {
        std::unique_lock<std::mutex> lk(d->mu);
        uint64_t seen = r->progress.load();
        auto window = std::chrono::duration<double>(cfg->timeout_s);
        auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(window);
        while (!r->finished && !r->failed) {
            if (r->done_cv.wait_until(lk, deadline) == std::cv_status::timeout) {
                if (r->finished || r->failed) break;
                if (r->progress != seen) {
                    seen = r->progress;
                    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(window);
                    continue;
                }
                fail_locked(r.get(), PTO2_ERR_SCHEDULER_TIMEOUT, fmt("scheduler timeout: no progress for %.3g s: %s", cfg->timeout_s, diagnose_stall(r.get()).c_str()));
            }
        }
        // quiesce: the orchestrator has exited and no core is inside a kernel
        auto grace = Clock::now() + std::chrono::milliseconds(r->failed ? 500 : 60000);
        auto idle = [&] {
            return r->orch_exited && d->free_count[CT_AIC] == d->clusters && d->free_count[CT_AIV] == 2 * d->clusters;
        };
        while (!idle()) {
            if (r->done_cv.wait_until(lk, grace) == std::cv_status::timeout && !idle()) {
                abandoned = true;
                break;
            }
        }
        if (abandoned) {
            d->abandoned = true;
            r->abandoned = true;
            for (auto& c : d->cores) c->cv.notify_all();
        } else {
            d->run = nullptr;
        }
    }
    int64_t elapsed = mono_ns() - r->t0;
    restore_handlers();
    g_active_run.store(nullptr, std::memory_order_release);
    if (abandoned) {
        pthread_detach(orch);
        g_dev = nullptr;  // leaked on purpose: its threads may still be inside user code
    } else {
        pthread_join(orch, nullptr);
    }
    if (stats) {
        stats->elapsed_ns = elapsed;
        stats->tasks = r->seq;
        stats->blocks = r->blocks;
        stats->edges = r->edges.size();
        stats->records = r->nrec;
        stats->abandoned = abandoned ? 1 : 0;
        int def = cfg->platform == 1 ? 5 : 4;
        stats->schedulers = (cfg->aicpu_thread_num > 0 ? cfg->aicpu_thread_num : def) - 1;
    }
    int code = r->failed ? r->code : 0;
    std::string msg = r->msg;
    Run* raw = r.release();
    if (result) {
        *result = raw;
    } else if (!abandoned) {
        delete raw;
    }
    if (code) return set_err(code, msg);
    return 0;
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_records(void* result, PtoSimBlockRecord* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min(cap, r->nrec);
    if (out)
        for (uint64_t i = 0; i < n; ++i) out[i] = *r->rec(i);
    return r->nrec;
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_edges(void* result, PtoSimEdge* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min<uint64_t>(cap, r->edges.size());
    if (out && n) memcpy(out, r->edges.data(), n * sizeof(PtoSimEdge));
    return r->edges.size();
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_args(void* result, uint32_t* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min<uint64_t>(cap, r->targs.size());
    if (out && n) memcpy(out, r->targs.data(), n * sizeof(uint32_t));
    return r->targs.size();
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_fifo_waits(void* result, PtoSimFifoWait* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min<uint64_t>(cap, r->fifo_waits.size());
    if (out && n) memcpy(out, r->fifo_waits.data(), n * sizeof(PtoSimFifoWait));
    return r->fifo_waits.size();
}

extern "C" __attribute__((visibility("default"))) void ptosim_result_free(void* result) {
    Run* r = static_cast<Run*>(result);
    if (r && !r->abandoned) delete r;
}

extern "C" __attribute__((visibility("default"))) void ptosim_shutdown(void) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);
    if (g_dev) {
        destroy_device(g_dev);
        g_dev = nullptr;
    }
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_sizeof(int32_t which) {
    switch (which) {
        case 0: return sizeof(ChipTensor);
        case 1: return sizeof(PtoSimConfig);
        case 2: return sizeof(PtoSimKernel);
        case 3: return sizeof(PtoSimStats);
        case 4: return sizeof(PtoSimBlockRecord);
        case 5: return sizeof(PtoSimEdge);
        case 6: return sizeof(LocalContext);
        case 7: return sizeof(GlobalContext);
        case 8: return sizeof(PtoCpuCore);
        case 9: return sizeof(PtoSimFifoWait);
    }
    return 0;
}
