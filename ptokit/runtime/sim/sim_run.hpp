// sim_run.hpp -- the state of one run and how it fails (part of the single translation
// unit ptosim.cpp; not a public header).
//
// Owns: `Run` -- the configuration, the loaded kernels and orchestration entry points,
// the external GM buffers, the orchestrator's progress flags, the ready queues, the
// TensorMap and the recorded timeline (block records, edges, tensor args, FIFO waits) --
// and the failure path: `fail_locked` keeps the first error (code + message) and wakes
// every waiter; `fail_throw` also unwinds the orchestrator.  It also binds the
// ring and TensorMap parts to a run (task lookup, retirement, scope release).
// Everything here runs with `Device::mu` held unless said otherwise.
#pragma once

#include "sim_common.hpp"
#include "sim_device.hpp"
#include "sim_rings.hpp"
#include "sim_tensormap.hpp"
#include "sim_race.hpp"

namespace {

constexpr uint64_t kRecChunk = 4096;

typedef void (*KernelFn)(int64_t*);
typedef void (*BindFn)(const PTO2RuntimeOps*, void*);
typedef void (*EntryFn)(const ChipTaskArgs&);
typedef PTO2OrchestrationConfig (*ConfigFn)(const ChipTaskArgs&);

struct KernelInfo {
    KernelFn fn = nullptr;
    std::string name;
    int32_t core_type = -1;
};

struct Run {
    Device* dev = nullptr;
    PtoSimConfig cfg;
    bool hbg = false;
    std::vector<KernelInfo> kernels;
    std::vector<std::pair<uint64_t, uint64_t>> gm;  // external buffers [addr, addr+size)
    std::vector<uint64_t> readonly;                 // (addr, size, orchestration argument) triples never written
    std::vector<uint64_t> comm_ctx;                 // the CommContexts its kernels read (ptosim_set_comm_ctx)
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
    std::atomic<int64_t> progress_ns{0};  // mono_ns of the last progress event (submit, block start/end, FIFO move)
    bool orch_done = false, orch_exited = false, finished = false, failed = false, dispatch_enabled = false;
    bool orch_waiting = false, abandoned = false;
    int32_t code = 0;
    std::string msg;
    std::condition_variable orch_cv, done_cv;
    std::deque<Task*> queues[3];
    TensorMap tmap;
    std::vector<std::unique_ptr<PtoSimBlockRecord[]>> chunks;
    uint64_t nrec = 0;
    std::vector<PtoSimEdge> edges;
    std::vector<uint32_t> targs;  // cfg.record_args: tensor args per task (ptosim_result_args)
    std::vector<PtoSimFifoWait> fifo_waits;  // cfg.record_args: blocked TPUSH/TPOP (guarded by fifo_mu)
    std::deque<Task*> instant;     // ready tasks that complete without a core (dummy, predicate false)
    bool draining = false;         // complete_task is working through `instant`
    std::vector<uint64_t> skipped; // seqs of tasks whose predicate was false
    std::vector<PtoSimDump> dumps; // cfg.dump_args: dumped tensor args ...
    std::vector<uint8_t> dump_data;  // ... and their bytes
    RaceState race;                // cfg.race_check (sim_race.hpp)
    std::vector<PtoSimEstimate> estimates;  // cfg.estimate: by record index (guarded by Device::mu)
    // MANUAL scopes: tensor-derived producers submitted at or after `manual_from` (the first
    // submission of the outermost open MANUAL scope) are not dependencies; UINT64_MAX: none open
    uint64_t manual_from = UINT64_MAX;
    std::vector<uint64_t> manual_stack;  // manual_from of the enclosing scopes
    bool adversarial = false;      // schedule != 0: one block at a time, in the schedule's order
    int schedule = 0;              // the order in force: 0 default, 1 reverse, 2 seeded random
    // cfg.schedule 3 (auto) under race_check 1: switch to reverse at the first task submitted
    // in a MANUAL scope (switch_to_adversarial, sim_orchestration.hpp)
    bool auto_pending = false;
    uint64_t schedule_from = 0;    // the submission number the order in force holds from
    uint64_t rng = 0;              // schedule 2: xorshift64 state
    uint64_t ready_no = 0;         // make_ready counter (schedule 1: newest first)
    int64_t t0 = 0;

    PtoSimBlockRecord* rec(uint64_t i) { return &chunks[i / kRecChunk][i % kRecChunk]; }
    uint64_t alloc_rec() {
        if (nrec / kRecChunk >= chunks.size()) chunks.emplace_back(new PtoSimBlockRecord[kRecChunk]);
        return nrec++;
    }
    Ring& ring(int i) { return dev->rings[i]; }
    int64_t rel(int64_t t) const { return t - t0; }
};

// A task was submitted, a block started or ended, or a FIFO moved data, at `now` (mono_ns):
// the monitor fails the run when nothing like it happens for the timeout.
inline void note_progress(Run* r, int64_t now) { r->progress_ns.store(now, std::memory_order_relaxed); }

// The run the tile-library hooks check GM accesses against (set while a run is active).
std::atomic<Run*> g_active_run{nullptr};

// ---------------------------------------------------------------------------
// failure
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

[[noreturn]] void fail_throw(Run* r, std::unique_lock<std::mutex>& lk, int32_t code, const std::string& msg) {
    fail_locked(r, code, msg);
    lk.unlock();
    throw RunAbort();
}

// ---------------------------------------------------------------------------
// rings and TensorMap of a run
// ---------------------------------------------------------------------------

Task* lookup(Run* r, uint64_t id) { return ring_lookup(r->dev->rings, id); }

void check_finished(Run* r) {
    if (r->orch_done && r->completed == r->seq && !r->finished) {
        r->finished = true;
        r->done_cv.notify_all();
    }
}

void try_retire(Run* r, int ring) {
    uint64_t n = ring_retire(r->ring(ring));
    r->retired += n;
    if (n && r->orch_waiting) r->orch_cv.notify_all();
}

void release_range(Run* r, int ringi, uint64_t from) {
    if (ring_release_from(r->ring(ringi), from)) try_retire(r, ringi);
}

// Live writers of regions overlapping `t` (appended to `out`, without duplicates).  Inside a
// MANUAL scope, writers submitted in it are left out (only explicit deps order its tasks).
// (`for_task` false: every live writer, for the orchestration's own waits.)
void tensormap_lookup(Run* r, const ChipTensor& t, std::vector<uint64_t>& out, bool for_task = true) {
    const uint64_t from = for_task ? r->manual_from : UINT64_MAX;
    tensormap_lookup(r->tmap, t, [r](uint64_t writer) { return lookup(r, writer) != nullptr; }, out,
                     [r, from](uint64_t writer) {
                         Task* w = lookup(r, writer);
                         return w != nullptr && w->seq < from;
                     });
}

// A tensor-derived producer of the task being submitted: live, and not submitted inside the
// open MANUAL scope.
bool tracked_producer(Run* r, uint64_t id) {
    Task* p = lookup(r, id);
    return p != nullptr && p->seq < r->manual_from;
}

void tensormap_register(Run* r, const ChipTensor& t, uint64_t writer) { tensormap_register(r->tmap, t, writer); }

}  // namespace
