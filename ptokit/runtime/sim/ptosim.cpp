// libptosim -- the CPU simulator runtime: device (core threads, per-core memory),
// scheduler, TensorMap dependency tracking, rings with back-pressure, both runtime
// kinds, crash containment and the block timeline.  See docs/simulator.md.
//
// The runtime's translation unit (the library's other unit, ptosim_cube.cpp, holds the cube's
// blocked inner product): the parts live in internal headers next to it (each says what it
// owns), included in dependency order:
//
//   sim_common.hpp         includes, hook ABI, clock, fmt, RunAbort, small helpers
//   sim_tensormap.hpp      TensorMap: write regions per buffer, overlap / cover geometry
//   sim_race.hpp           the race checker: accesses per scope, paths of edges, reports
//   sim_rings.hpp          task slots, heap ring, dependency pool, scope marks, retirement
//   sim_device.hpp         cores, per-core memory, thread identity, signals, device lifetime
//   sim_run.hpp            the state of one run, failure reporting, rings/TensorMap of a run
//   sim_scheduler.hpp      ready queues, dispatch and placement, core threads, completion
//   sim_orchestration.hpp  PTO2RuntimeOps (submit, scopes, waits) and the orchestrator thread
//   sim_fifo.hpp           cross-core FIFO hooks (TPUSH/TPOP/TFREE)
//   sim_comm.hpp           windows and signals of distributed runs (comm hooks, shm transport)
//   ptosim.cpp (this)      the other tile-library hooks and the extern "C" API (ptosim_api.h)
//
// Locking: one mutex per device (`Device::mu`) guards every piece of scheduling
// state.  Kernels and the orchestration function run without it.  Every wait is a
// condition-variable wait with a timeout; nothing spins.
#define PTO2_RUNTIME_INTERNAL 1

#include "sim_common.hpp"
#include "sim_tensormap.hpp"
#include "sim_race.hpp"
#include "sim_rings.hpp"
#include "sim_device.hpp"
#include "sim_run.hpp"
#include "sim_scheduler.hpp"
#include "sim_orchestration.hpp"
#include "sim_fifo.hpp"
#include "sim_events.hpp"
#include "sim_comm.hpp"

namespace {

// One run at a time; the device (and its threads) lives across runs.
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

// Load the orchestration and kernel objects of a run and look up their entry points;
// 0, or PTO2_ERR_LOAD with `msg` saying what is missing.
int load_program(Run* r, const char* orch_path, const PtoSimKernel* kernels, int32_t nkernels, std::string& msg) {
    auto fail = [&](const std::string& m) {
        msg = m;
        return PTO2_ERR_LOAD;
    };
    std::string e;
    void* oh = load_so(orch_path, e);
    if (!oh) return fail(fmt("cannot load the orchestration %s: %s", orch_path, e.c_str()));
    r->bind = (BindFn)dlsym(oh, "pto2_orchestration_bind");
    r->entry = (EntryFn)dlsym(oh, r->orch_name.c_str());
    r->config = (ConfigFn)dlsym(oh, "aicpu_orchestration_config");
    if (!r->bind)
        return fail(fmt("%s does not export pto2_orchestration_bind: build it with ptokit's pto_orchestration_api.h included in exactly one source file", orch_path));
    if (!r->entry) return fail(fmt("%s does not export the orchestration function '%s'", orch_path, r->orch_name.c_str()));
    for (int32_t i = 0; i < nkernels; ++i) {
        const PtoSimKernel& k = kernels[i];
        if (k.func_id < 0 || k.func_id > 1 << 20) return fail(fmt("invalid func_id %d", k.func_id));
        void* kh = load_so(k.path, e);
        if (!kh) return fail(fmt("cannot load kernel '%s' (%s): %s", k.name ? k.name : "?", k.path, e.c_str()));
        KernelFn fn = (KernelFn)dlsym(kh, "kernel_entry");
        if (!fn) return fail(fmt("kernel '%s' (%s) does not export kernel_entry", k.name ? k.name : "?", k.path));
        if ((int32_t)r->kernels.size() <= k.func_id) r->kernels.resize(k.func_id + 1);
        r->kernels[k.func_id].fn = fn;
        r->kernels[k.func_id].name = k.name ? k.name : fmt("func_%d", k.func_id);
        r->kernels[k.func_id].core_type = k.core_type;
    }
    return 0;
}

// The device for this run's platform and cluster count (rebuilt only when they change),
// reset for the run and attached to it.
Device* attach_device(Run* r, const PtoSimConfig* cfg) {
    if (g_dev && (g_dev->platform != cfg->platform || g_dev->clusters != cfg->clusters)) {
        destroy_device(g_dev);
        g_dev = nullptr;
    }
    if (!g_dev) g_dev = create_device(cfg->platform, cfg->clusters);
    Device* d = g_dev;
    r->dev = d;
    {
        std::lock_guard<std::mutex> lk(d->mu);
        for (auto& rg : d->rings) ring_reset(rg);
        for (auto& c : d->cores) {
            c->hw.debug_nan_fill = cfg->debug_nan_fill;
            c->hw.no_fusion = cfg->no_fusion;
            c->hw.estimate = cfg->estimate;
        }
        std::lock_guard<std::mutex> fl(d->fifo_mu);
        d->fifos.clear();
        for (auto& c : d->cores) c->fifo_part = Core::FifoPart();
        ensure_ring(r->cfg, d->rings[0]);
        // schedule 3 (auto): reverse when every scope is checked, from the first task of a
        // MANUAL scope when those are (then reverse too), else the default order
        r->schedule = cfg->schedule != 3 ? cfg->schedule : cfg->race_check == 2 ? 1 : 0;
        r->auto_pending = cfg->schedule == 3 && cfg->race_check == 1;
        r->adversarial = r->schedule != 0;
        r->rng = cfg->schedule_seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
        race_begin_run(r->race, cfg->race_check);
        // host_build_graph and the adversarial schedules start dispatching when the orchestration
        // returns (or waits)
        r->dispatch_enabled = !r->hbg && !r->adversarial;
        d->run = r;
    }
    return d;
}

// Wait for the run to finish or fail (failing it when nothing progressed for the timeout,
// measured from the last progress event, so a stuck kernel is reported `timeout` after it
// started), then for the orchestrator and every core to be idle; true when they did not
// within the grace time and the device had to be abandoned.
constexpr int kFailGraceMs = 200;   // after a failure: how long cores get to come back

bool monitor_run(Run* r, Device* d, const PtoSimConfig* cfg) {
    bool abandoned = false;
    std::unique_lock<std::mutex> lk(d->mu);
    const int64_t window = (int64_t)(cfg->timeout_s * 1e9);
    while (!r->finished && !r->failed) {
        const int64_t last = r->progress_ns.load(std::memory_order_relaxed);
        const Clock::time_point deadline{std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(last + window))};
        if (r->done_cv.wait_until(lk, deadline) == std::cv_status::timeout) {
            if (r->finished || r->failed) break;
            const int64_t idle = mono_ns() - r->progress_ns.load(std::memory_order_relaxed);
            if (idle < window) continue;   // something progressed meanwhile
            fail_locked(r, PTO2_ERR_SCHEDULER_TIMEOUT, fmt("scheduler timeout: no progress for %.3f s (timeout %.3g s): %s", idle / 1e9, cfg->timeout_s, diagnose_stall(r).c_str()));
        }
    }
    // quiesce: the orchestrator has exited and no core is inside a kernel
    auto grace = Clock::now() + std::chrono::milliseconds(r->failed ? kFailGraceMs : 60000);
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
        d->orch_wake.notify_all();   // an idle orchestrator thread exits
    } else {
        d->run = nullptr;
    }
    return abandoned;
}

}  // namespace

// ---------------------------------------------------------------------------
// hooks for the CPU tile library (docs/contracts.md)
// ---------------------------------------------------------------------------

// the cube's inner product (pto/cpu/gemm_hooks.hpp) is the library's other unit: ptosim_cube.cpp
// the tile operations for runtime shapes (pto/cpu/ops_hooks.hpp) are its third unit: ptosim_ops.cpp

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

// A write into an input array the run reads in place (ptosim_set_readonly) fails the task before
// a byte is written: inputs are never written (docs/simulator.md, "Arguments").
extern "C" __attribute__((visibility("default"))) void pto_cpu_check_gm_write(const char* instr, const void* p,
                                                                             uint64_t bytes) {
    Run* r = g_active_run.load(std::memory_order_acquire);
    if (!r || r->readonly.empty()) return;
    const uint64_t a = (uint64_t)(uintptr_t)p, e = a + bytes;
    for (size_t i = 0; i + 2 < r->readonly.size(); i += 3) {
        const uint64_t lo = r->readonly[i], hi = lo + r->readonly[i + 1];
        if (a < hi && e > lo) {
            char msg[320];
            snprintf(msg, sizeof msg, "writes %llu bytes at byte %lld of the program's argument %llu, an input (IN) "
                     "array: inputs are never written (declare the parameter an output, pl.Out / pl.InOut)",
                     (unsigned long long)bytes, (long long)(a - lo), (unsigned long long)r->readonly[i + 2]);
            pto_cpu_fatal(instr, msg);
        }
    }
}

// Estimated device time (docs/estimate.md): the instruction stream of the block running on this core.
extern "C" __attribute__((visibility("default"))) void pto_cpu_est_op(PtoCpuCore* core, int32_t pipe, uint32_t cycles,
                                                                     const PtoCpuEstBuf* bufs, int32_t nbufs,
                                                                     int32_t nwrites) {
    if (!core || !core->runtime || !core->estimate) return;
    static_cast<Core*>(core->runtime)->est.op(pipe, cycles, bufs, nbufs, nwrites);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_est_sync(PtoCpuCore* core, int32_t kind, int32_t a,
                                                                       int32_t b, int32_t event) {
    if (!core || !core->runtime || !core->estimate) return;
    static_cast<Core*>(core->runtime)->est.sync(kind, a, b, event);
}

// The race checker's record of what a block of a checked task touched (pto_cpu_note_gm_rows).
// A span that continues, repeats or extends the core's last record (same kind) is folded into it:
// consecutive scalar accesses become one span, evenly spaced ones one record of rows.
extern "C" __attribute__((visibility("default"))) int pto_cpu_note_gm_rows(const char* instr, const void* p,
                                                                          uint64_t len, uint64_t stride,
                                                                          uint64_t rows, int kind) {
    (void)instr;
    Core* c = t_core;
    if (!c || !c->cur.task || !c->cur.task->race_touch) return 0;
    if (!len || !rows) return 1;
    const uint64_t a = (uint64_t)(uintptr_t)p;
    const uint8_t k = (uint8_t)(kind >= 0 && kind <= 2 ? kind : 1);
    if (rows > 1 && stride == len) len *= rows, rows = 1;
    std::vector<RaceTouch>& v = c->touch;
    if (!v.empty() && rows == 1 && v.back().kind == k) {
        RaceTouch& l = v.back();
        if (l.rows == 1) {
            if (l.a + l.len == a) {                                   // continues it
                l.len += len;
                l.stride = l.len;
                return 1;
            }
            if (a >= l.a && a + len <= l.a + l.len) return 1;          // inside it
            if (len == l.len && a > l.a) {                            // a second row
                l.stride = a - l.a;
                l.rows = 2;
                return 1;
            }
        } else if (len == l.len && a == l.a + l.rows * l.stride && l.rows < UINT32_MAX) {   // the next row
            ++l.rows;
            return 1;
        }
    }
    v.push_back(RaceTouch{a, rows > 1 ? stride : len, len, (uint32_t)std::min<uint64_t>(rows, UINT32_MAX), k, 0});
    return 1;
}

namespace {

const char* dtype_name(uint8_t dt) {
    static const char* const names[] = {"float32", "float16", "int32",  "int16",  "int8",   "uint8",
                                        "bfloat16", "int64",  "uint64", "uint16", "uint32", "bool"};
    return dt < sizeof names / sizeof names[0] ? names[dt] : "?";
}

const char* arg_kind_name(uint8_t k) {
    switch ((PTO2ArgKind)k) {
        case PTO2ArgKind::INPUT: return "input";
        case PTO2ArgKind::OUTPUT: return "output";
        case PTO2ArgKind::OUTPUT_EXISTING: return "output";
        case PTO2ArgKind::INOUT: return "inout";
        case PTO2ArgKind::NO_DEP: return "no-dep input";
    }
    return "?";
}

// "tensor argument 1 (input float32[64, 64], elements [0, 4095])"
std::string describe_arg(const Task* t, const ArgRegion& rg, uint32_t i, uint64_t elem) {
    const ChipTensor& x = t->tensors[i];
    std::string shape;
    for (uint32_t d = 0; d < x.ndims && d < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++d)
        shape += fmt("%s%u", d ? ", " : "", x.shapes[d]);
    const uint64_t n = elem ? rg.bytes / elem : 0;
    std::string valid = n ? fmt("elements [0, %llu]", (unsigned long long)(n - 1)) : std::string("no elements");
    return fmt("tensor argument %u (%s %s[%s], %s)", i, arg_kind_name(t->kinds[i]), dtype_name((uint8_t)x.dtype), shape.c_str(),
               valid.c_str());
}

}  // namespace

namespace {

// A read of a CommContext the run's kernels were given (a window's !pto.ptr<i64> parameter, read with
// LOAD_SCALAR as pypto HEAD writes pld.rank / nranks / a peer's window): 1 when [p, p+bytes) is one u64
// slot of one, 0 when it touches none. Anything else is fatal: a write, a read across slots, and a read of
// windowsIn[k] or windowsOut[k] for k outside 0 .. rankNum-1 (the kernel's peer is out of range).
int comm_ctx_access(const char* instr, const void* p, uint64_t bytes) {
    Run* r = g_active_run.load(std::memory_order_acquire);
    if (!r || r->comm_ctx.empty()) return 0;
    const uint64_t a = (uint64_t)(uintptr_t)p;
    for (uint64_t base : r->comm_ctx) {
        if (a + bytes <= base || a >= base + sizeof(CommContext)) continue;
        const CommContext* ctx = reinterpret_cast<const CommContext*>((uintptr_t)base);
        char msg[256];
        const uint64_t off = a - base;
        if (a < base || off % 8 || bytes != 8 || !instr || strcmp(instr, "LOAD_SCALAR") != 0) {
            snprintf(msg, sizeof msg, "%s of %llu bytes at byte %lld of the CommContext: a kernel reads it one u64 slot "
                     "at a time with pto.load_scalar", instr ? instr : "access", (unsigned long long)bytes,
                     (long long)(a - base));
            pto_cpu_fatal(instr, msg);
        }
        const uint64_t win_in = offsetof(CommContext, windowsIn), win_out = offsetof(CommContext, windowsOut);
        if (off >= win_in) {
            const long long k = (long long)((off - (off >= win_out ? win_out : win_in)) / 8);
            if (k >= ctx->rankNum) {
                snprintf(msg, sizeof msg, "peer %lld is out of range: the program runs on %d ranks (0 .. %d)", k,
                         (int)ctx->rankNum, (int)ctx->rankNum - 1);
                pto_cpu_fatal(instr, msg);
            }
        }
        return 1;
    }
    return 0;
}

}  // namespace

// The access [p, p+bytes) must lie inside the tensor argument `origin` names (the kernel
// parameter its view was made from), or -- origin unknown or naming no argument -- inside one
// tensor argument of the running block; see docs/simulator.md, "What ptokit checks".
extern "C" __attribute__((visibility("default"))) void pto_cpu_check_gm_access(const char* instr, const void* origin,
                                                                               const void* p, uint64_t bytes,
                                                                               uint64_t elem) {
    if (comm_ctx_access(instr, p, bytes)) return;
    Core* c = t_core;
    const Task* t = c ? c->cur.task : nullptr;
    char msg[512];  // pto_cpu_fatal does not return: no live std::string may be left behind it
    if (!t || t->ntensors == 0) {   // not a task with tensor arguments: the live-buffer check
        if (pto_cpu_check_gm(p, bytes)) return;
        snprintf(msg, sizeof msg, "global access of %llu bytes at %p is outside every live buffer", (unsigned long long)bytes, p);
        pto_cpu_fatal(instr, msg);
    }
    const uint64_t a = (uint64_t)(uintptr_t)p, e = a + bytes, o = (uint64_t)(uintptr_t)origin;
    auto inside = [&](uint32_t i) { return a >= c->regions[i].base && e <= c->regions[i].base + c->regions[i].bytes; };
    int named = -1;
    for (uint32_t i = 0; origin && i < t->ntensors; ++i) {
        if (c->regions[i].base != o) continue;
        if (inside(i)) return;
        if (named < 0) named = (int)i;
    }
    if (named < 0) {                 // provenance unknown: any one argument that holds the whole span
        for (uint32_t i = 0; i < t->ntensors; ++i)
            if (inside(i)) return;
        uint64_t best = UINT64_MAX;  // report against the nearest argument
        for (uint32_t i = 0; i < t->ntensors; ++i) {
            const ArgRegion& rg = c->regions[i];
            uint64_t dist = a < rg.base ? rg.base - a : (a < rg.base + rg.bytes ? 0 : a - (rg.base + rg.bytes));
            if (dist < best) best = dist, named = (int)i;
        }
    }
    {
        const ArgRegion& rg = c->regions[named];
        if (!elem) elem = 1;
        const long long lo = (long long)((int64_t)(a - rg.base) / (int64_t)elem);
        const long long hi = (long long)((int64_t)(e - rg.base) / (int64_t)elem) - 1;
        std::string where;
        for (uint32_t i = 0; i < t->ntensors; ++i)
            if ((int)i != named && a < c->regions[i].base + c->regions[i].bytes && e > c->regions[i].base) {
                where = fmt("; those bytes belong to tensor argument %u", i);
                break;
            }
        const bool store = instr && strcmp(instr, "TSTORE") == 0;
        snprintf(msg, sizeof msg, "%s elements [%lld, %lld] of %s: out of its bounds%s", store ? "writes" : "reads", lo,
                 hi, describe_arg(t, rg, (uint32_t)named, elem).c_str(), where.c_str());
    }
    pto_cpu_fatal(instr, msg);
}

// ---------------------------------------------------------------------------
// C API
// ---------------------------------------------------------------------------

extern "C" __attribute__((visibility("default"))) int ptosim_run(
    const PtoSimConfig* cfg, const char* orch_path, const char* orch_func, const PtoSimKernel* kernels, int32_t nkernels,
    const ChipTensor* tensors, int32_t ntensors, const uint64_t* scalars, int32_t nscalars, char* err, int32_t errlen,
    PtoSimStats* stats, void** result) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);
    const std::vector<std::pair<uint64_t, uint64_t>> extra_gm = std::move(g_extra_gm);   // this run's only
    g_extra_gm.clear();
    std::vector<uint64_t> readonly = std::move(g_readonly);
    g_readonly.clear();
    std::vector<uint64_t> comm_ctx = std::move(g_comm_ctx);
    g_comm_ctx.clear();
    auto set_err = [&](int code, const std::string& m) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "%s", m.c_str());
        return code;
    };
    if (result) *result = nullptr;
    if (stats) memset(stats, 0, sizeof *stats);
    if (err && errlen > 0) err[0] = 0;
    if (cfg->clusters < 1 || cfg->task_ring_size < 1 || cfg->dep_pool_size < 1 || cfg->heap_size < kHeapAlign ||
        cfg->race_check < 0 || cfg->race_check > 2 || cfg->schedule < 0 || cfg->schedule > 3)
        return set_err(PTO2_ERR_INVALID_ARGS, "invalid simulator configuration");
    if (ntensors < 0 || (uint32_t)ntensors > CHIP_MAX_TENSOR_ARGS)
        return set_err(PTO2_ERR_INVALID_ARGS, fmt("%d tensor args: at most %u", ntensors, CHIP_MAX_TENSOR_ARGS));

    // ---- load binaries
    std::unique_ptr<Run> r(new Run);
    r->cfg = *cfg;
    r->hbg = cfg->runtime_kind == 1;
    r->orch_name = orch_func ? orch_func : "aicpu_orchestration_entry";
    std::string e;
    int lc = load_program(r.get(), orch_path, kernels, nkernels, e);
    if (lc) return set_err(lc, e);
    r->orch_tensors.assign(tensors, tensors + ntensors);
    r->orch_scalars.assign(scalars, scalars + nscalars);
    r->orch_args.tensors_ = r->orch_tensors.data();
    r->orch_args.tensor_count_ = (uint32_t)ntensors;
    r->orch_args.scalars_ = r->orch_scalars.data();
    r->orch_args.scalar_count_ = (uint32_t)nscalars;
    for (auto& t : r->orch_tensors) r->gm.emplace_back(t.buffer.addr, t.buffer.addr + t.buffer.size);
    for (auto& g : extra_gm) r->gm.emplace_back(g.first, g.first + g.second);   // windows, arena
    r->readonly = std::move(readonly);
    r->comm_ctx = std::move(comm_ctx);

    // ---- device
    Device* d = attach_device(r.get(), cfg);
    // The orchestrator gets a large stack: generated orchestration functions keep one
    // CoreTaskArgs (~4.7 KB) per submission in a single frame.
    if (!ensure_orchestrator(d)) {
        std::lock_guard<std::mutex> lk(d->mu);
        d->run = nullptr;
        return set_err(PTO2_ERR_LOAD, "cannot start the orchestrator thread");
    }
    g_active_run.store(r.get(), std::memory_order_release);
    install_handlers();
    r->t0 = mono_ns();
    note_progress(r.get(), r->t0);

    // ---- run and monitor
    start_orchestration(d, r.get());
    bool abandoned = monitor_run(r.get(), d, cfg);
    int64_t elapsed = mono_ns() - r->t0;
    restore_handlers();
    g_active_run.store(nullptr, std::memory_order_release);
    if (abandoned) {
        pthread_detach(d->orch_th);   // it exits when (if ever) the orchestration returns
        g_dev = nullptr;  // leaked on purpose: its threads may still be inside user code
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
        stats->schedule = r->schedule;
        stats->schedule_from = r->schedule_from;
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

// The run's device schedule (docs/estimate.md): each block's `start` in device cycles. Tasks in submission
// order, each once its producers ended; each block on the core of its kind free first (lowest index on a
// tie), a mixed block on the cluster whose three cores are free first. Independent of how the CPU ran it.
static void est_place(Run* r) {
    const uint64_t n = std::min<uint64_t>(r->nrec, r->estimates.size());
    std::vector<uint64_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
        const PtoSimBlockRecord *x = r->rec(a), *y = r->rec(b);
        return std::make_tuple(x->task_seq, x->block_idx, x->lane) < std::make_tuple(y->task_seq, y->block_idx, y->lane);
    });
    std::vector<uint64_t> end(r->seq + 1, 0);        // by task seq: when it ends on the device
    std::vector<std::vector<uint64_t>> producers(r->seq + 1);
    for (const PtoSimEdge& e : r->edges)
        if (e.consumer_seq <= r->seq) producers[e.consumer_seq].push_back(e.producer_seq);
    const int32_t nc = std::max(1, r->cfg.clusters);
    std::vector<uint64_t> aic(nc, 0), aiv(2 * nc, 0);
    auto ready_of = [&](uint64_t seq) {
        uint64_t t = 0;
        for (uint64_t p : producers[seq]) t = std::max(t, p <= r->seq ? end[p] : 0);
        return t;
    };
    uint64_t seq_done = 0;                           // tasks before it have their end
    uint64_t k = 0;
    while (k < n) {
        const PtoSimBlockRecord* first = r->rec(order[k]);
        const uint64_t seq = first->task_seq;
        for (; seq_done < seq; ++seq_done) end[seq_done] = std::max(end[seq_done], ready_of(seq_done));  // no blocks
        const uint64_t ready = ready_of(seq);
        uint64_t task_end = ready;
        while (k < n && r->rec(order[k])->task_seq == seq) {
            uint64_t j = k, dur = 0;
            bool cube = false, vec = false;
            for (; j < n && r->rec(order[j])->task_seq == seq && r->rec(order[j])->block_idx == r->rec(order[k])->block_idx; ++j) {
                dur = std::max(dur, r->estimates[order[j]].cycles);
                (r->rec(order[j])->lane < 0 ? cube : vec) = true;
            }
            uint64_t st;
            if (cube && vec) {
                int32_t best = 0;
                uint64_t bt = UINT64_MAX;
                for (int32_t c = 0; c < nc; ++c) {
                    const uint64_t t = std::max(aic[c], std::max(aiv[2 * c], aiv[2 * c + 1]));
                    if (t < bt) { bt = t; best = c; }
                }
                st = std::max(ready, bt);
                aic[best] = aiv[2 * best] = aiv[2 * best + 1] = st + dur;
            } else {
                std::vector<uint64_t>& free = cube ? aic : aiv;
                const size_t best = std::min_element(free.begin(), free.end()) - free.begin();
                st = std::max(ready, free[best]);
                free[best] = st + dur;
            }
            for (uint64_t i = k; i < j; ++i) r->estimates[order[i]].start = st;
            task_end = std::max(task_end, st + dur);
            k = j;
        }
        end[seq] = task_end;
        seq_done = seq + 1;
    }
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_estimates(void* result, PtoSimEstimate* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r || !r->cfg.estimate) return 0;
    if (out) est_place(r);
    uint64_t n = std::min(cap, r->nrec);
    if (out)
        for (uint64_t i = 0; i < n; ++i) out[i] = i < r->estimates.size() ? r->estimates[i] : PtoSimEstimate();
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

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_skipped(void* result, uint64_t* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min<uint64_t>(cap, r->skipped.size());
    if (out && n) memcpy(out, r->skipped.data(), n * sizeof(uint64_t));
    return r->skipped.size();
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_dumps(void* result, PtoSimDump* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min<uint64_t>(cap, r->dumps.size());
    if (out && n) memcpy(out, r->dumps.data(), n * sizeof(PtoSimDump));
    return r->dumps.size();
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_dump_data(void* result, uint8_t* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    uint64_t n = std::min<uint64_t>(cap, r->dump_data.size());
    if (out && n) memcpy(out, r->dump_data.data(), n);
    return r->dump_data.size();
}

extern "C" __attribute__((visibility("default"))) uint64_t ptosim_result_races(void* result, PtoSimRace* out, uint64_t cap) {
    Run* r = static_cast<Run*>(result);
    if (!r) return 0;
    race_end_run(r->race);
    uint64_t n = std::min<uint64_t>(cap, r->race.races.size());
    if (out && n) memcpy(out, r->race.races.data(), n * sizeof(PtoSimRace));
    return r->race.found;
}

extern "C" __attribute__((visibility("default"))) void ptosim_result_free(void* result) {
    Run* r = static_cast<Run*>(result);
    if (r && !r->abandoned) delete r;
}

extern "C" __attribute__((visibility("default"))) int ptosim_comm_install(const PtoCommOps* table, PtoSimBoardRecord* board) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);   // never while a run reads the table
    return comm_install_locked(table, board);
}

extern "C" __attribute__((visibility("default"))) void ptosim_comm_shm_table(PtoCommOps* out) {
    if (!out) return;
    out->abi = PTO_COMM_ABI;
    out->ctx = nullptr;
    out->read = shm_read;
    out->write = shm_write;
    out->notify = shm_notify;
    out->wait = shm_wait;
}

extern "C" __attribute__((visibility("default"))) void ptosim_set_extra_gm(const uint64_t* pairs, int32_t n) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);
    g_extra_gm.clear();
    for (int32_t i = 0; pairs && i < n; ++i) g_extra_gm.emplace_back(pairs[2 * i], pairs[2 * i + 1]);
}

extern "C" __attribute__((visibility("default"))) void ptosim_set_comm_ctx(const uint64_t* addrs, int32_t n) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);
    g_comm_ctx.assign(addrs, addrs + (addrs && n > 0 ? (size_t)n : 0));
}

extern "C" __attribute__((visibility("default"))) void ptosim_set_readonly(const uint64_t* triples, int32_t n) {
    std::lock_guard<std::mutex> run_guard(g_run_mu);
    g_readonly.assign(triples, triples + (triples && n > 0 ? 3 * (size_t)n : 0));
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
        case 10: return sizeof(PtoSimBoardRecord);
        case 11: return sizeof(PtoCommOps);
        case 12: return sizeof(PtoCommWindow);
        case 13: return sizeof(PtoSimDump);
        case 14: return sizeof(PtoSimRace);
        case 15: return sizeof(PtoSimEstimate);
    }
    return 0;
}
