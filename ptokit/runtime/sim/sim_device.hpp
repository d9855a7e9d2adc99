// sim_device.hpp -- the simulated device (part of the single translation unit
// ptosim.cpp; not a public header).
//
// Owns: cores (one thread each: AIC of cluster c is core c, its AIV lanes are
// B+2c and B+2c+1), each core's memory spaces (reserved with mmap, platform capacities),
// the per-thread identity the tile-library hooks read (`t_core`, `t_jctx`), the deferred
// wake-up list, the device's task rings and cross-core FIFO storage, and crash
// containment: the fault-signal handlers that longjmp a crashing kernel or orchestrator
// back to the simulator, chaining every other fault to the previous handler.
//
// Locking: `Device::mu` guards every piece of scheduling state (also of the Run); the
// FIFOs have their own `fifo_mu`.  The core thread loop is in sim_scheduler.hpp.
#pragma once

#include "sim_common.hpp"
#include "sim_race.hpp"
#include "sim_rings.hpp"
#include "sim_estimate.hpp"

namespace {

constexpr size_t kAltStack = 64 * 1024;

// Buffer capacities (runtime.md): Vec, Mat, Left, Right, Acc, Bias, Scaling (none), ScaleLeft,
// ScaleRight (the a5 MX scale buffers; a2a3 has none).
const uint64_t kCapA2A3[9] = {188416, 524288, 65536, 65536, 131072, 1024, 0, 0, 0};
const uint64_t kCapA5[9] = {245760, 524288, 65536, 65536, 262144, 4096, 0, 2048, 2048};

// Where a fault or pto_cpu_fatal inside user code jumps back to.
struct JumpCtx {
    sigjmp_buf jb;
    volatile sig_atomic_t armed = 0;
    volatile int sig = 0;
    void* addr = nullptr;
    char msg[600] = {0};
};

// One block of one task, handed to a core.
struct Work {
    Task* task = nullptr;
    int32_t block_idx = 0;
    int32_t func_id = -1;
    uint64_t rec = 0;
};

// The bytes a tensor argument of the running block spans: [base, base + bytes), base being
// the kernel parameter pointer (buffer.addr + start_offset elements), bytes its extent.
struct ArgRegion {
    uint64_t base = 0, bytes = 0;
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
    ArgRegion regions[CORE_MAX_TENSOR_ARGS];  // of the block running now (GM bounds checks)
    std::vector<RaceTouch> touch;  // what the running block touched in GM (race checker, checked tasks)
    JumpCtx jctx;
    EstCore est;                  // the running block's estimated device timeline (cfg.estimate)
    // A vector lane's part in the FIFOs of its current mixed-task block (guarded by
    // Device::fifo_mu; see fifo_block_begin and pto_cpu_fifo_lane_joins).
    struct FifoPart {
        uint64_t seq = 0;        // the block it belongs to: task seq and block index
        int32_t block = -1;
        uint64_t pipes = 0;      // bit k: the kernel constructed pipe k (pto_cpu_fifo_attach)
        bool ended = true;       // the kernel has returned
    } fifo_part;
};

// A cross-core FIFO (TPUSH/TPOP); the hooks are in sim_fifo.hpp.
struct Fifo {
    uint32_t slot_size = 0, slot_num = 0;
    std::deque<std::vector<uint8_t>> queued;
    std::deque<uint64_t> stamps;      // cfg.estimate: the pusher's device time of each queued slot
    bool held = false;
    // cfg.estimate, slot back-pressure: the block (task seq, block index) the pushes below belong to,
    // how many it pushed, and the consumer's device time of each slot it released, oldest first
    uint64_t est_seq = 0;
    int32_t est_block = -1;
    uint64_t est_pushes = 0;
    std::deque<uint64_t> est_freed;
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
    // The orchestrator thread (sim_orchestration.hpp): started by the first run, then it waits
    // for the next run's `orch_job`, like the cores wait for work.
    pthread_t orch_th{};
    bool orch_started = false;
    Run* orch_job = nullptr;
    std::condition_variable orch_wake;
    Core* core(int i) { return cores[i].get(); }
    int32_t ncores_of(int type) const { return type == CT_AIC ? clusters : 2 * clusters; }
};

// A vector lane starts / ends its block of a mixed task: the cube's unsplit transfers wait
// for each lane to either construct the pipe or return without it (docs/mixed-kernels.md,
// "Which lanes take part").
void fifo_block_begin(Core* c, const Task* t, int32_t block) {
    if (c->type != CT_AIV || t->kind != PTO2_TASK_MIXED) return;
    std::lock_guard<std::mutex> lk(c->dev->fifo_mu);
    c->fifo_part.seq = t->seq;
    c->fifo_part.block = block;
    c->fifo_part.pipes = 0;
    c->fifo_part.ended = false;
    c->dev->fifo_cv.notify_all();
}

void fifo_block_end(Core* c, const Task* t) {
    if (c->type != CT_AIV || t->kind != PTO2_TASK_MIXED) return;
    std::lock_guard<std::mutex> lk(c->dev->fifo_mu);
    c->fifo_part.ended = true;
    c->dev->fifo_cv.notify_all();
}

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
// device lifetime
// ---------------------------------------------------------------------------

void core_main(Core* c);  // the core thread loop (sim_scheduler.hpp)

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
        size_t offs[9];
        for (int s = 0; s < 9; ++s) {
            offs[s] = total;
            total += align_up(cap[s], 4096);
        }
        void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        c->mem = p == MAP_FAILED ? nullptr : (uint8_t*)p;
        c->mem_size = total;
        memset(&c->hw, 0, sizeof c->hw);
        for (int s = 0; s < 9; ++s) {
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
        d->orch_wake.notify_all();
    }
    for (auto& c : d->cores)
        if (c->th.joinable()) c->th.join();
    if (d->orch_started) pthread_join(d->orch_th, nullptr);
    for (auto& c : d->cores)
        if (c->mem) munmap(c->mem, c->mem_size);
    for (auto& rg : d->rings)
        if (rg.heap) munmap(rg.heap, rg.heap_size);
    delete d;
}

}  // namespace
