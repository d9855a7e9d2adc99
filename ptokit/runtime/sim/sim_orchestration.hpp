// sim_orchestration.hpp -- the orchestration side of a run (part of the single
// translation unit ptosim.cpp; not a public header).
//
// Owns: the PTO2RuntimeOps table handed to the orchestration .so through
// pto2_orchestration_bind -- submit (argument validation, dependency discovery through
// owner ids, the TensorMap and explicit deps, back-pressure on the task ring / heap /
// dependency pool with the deadlock diagnoses, then the commit of the task slot), scope
// begin/end, fatal, and the tensor/task waits -- plus the orchestrator thread itself
// (config check, entry call, crash and exception containment, and the end of the
// orchestration that releases every scope and, under host_build_graph, starts dispatch).
#pragma once

#include "sim_common.hpp"
#include "sim_device.hpp"
#include "sim_rings.hpp"
#include "sim_run.hpp"
#include "sim_scheduler.hpp"

namespace {

constexpr size_t kOrchStack = 256ull << 20;  // virtual; pages are touched only as used

// ---------------------------------------------------------------------------
// the orchestration function table
// ---------------------------------------------------------------------------

void make_built_graph_ready(Run* r);

// What op_submit has worked out about one submission before it takes a task slot.
struct Submission {
    uint64_t seq = 0;
    int32_t kind = 0;
    int32_t func[3] = {INVALID_KERNEL_ID, INVALID_KERNEL_ID, INVALID_KERNEL_ID};
    int32_t block_num = 1;
    uint64_t heap_bytes = 0;      // outputs, each rounded up to kHeapAlign
    std::vector<uint64_t> prods;  // live producers, without duplicates
    std::vector<uint64_t> holds;  // creators inside the open MANUAL scope: referenced (their buffer
                                  // stays alive while this task may run), not waited for
    uint64_t off = 0, len = 0;    // heap placement found by heap_fit (len includes wrap waste)
};

// Validate the kind, kernel ids, launch spec and tensor args (errors 5 / 7); a MixedKernels
// with a single valid id becomes a plain AIC or AIV task.
void check_submission(Run* r, std::unique_lock<std::mutex>& lk, int32_t kind, const int32_t* ids,
                      const CoreTaskArgs* a, Submission& s) {
    Device* d = r->dev;
    const uint64_t seq = s.seq;
    if (a->error_ != PTO2_ARG_OK) {
        std::string why;
        switch (a->error_) {
            case PTO2_ARG_TENSOR_AFTER_SCALAR: why = "a tensor was added after a scalar (add every tensor before the scalars)"; break;
            case PTO2_ARG_TOO_MANY_TENSORS: why = fmt("more than %u tensor args (%u added)", CORE_MAX_TENSOR_ARGS, a->tensor_count_); break;
            case PTO2_ARG_TOO_MANY_SCALARS: why = fmt("more than %u scalar args", CORE_MAX_SCALAR_ARGS); break;
            case PTO2_ARG_TOO_MANY_DEPS: why = fmt("more than %u explicit deps", PTO2_MAX_EXPLICIT_DEPS); break;
            case PTO2_ARG_BAD_CREATE_INFO: why = "invalid TensorCreateInfo (ndims must be 1..5, dtype known)"; break;
            case PTO2_ARG_BAD_PREDICATE: why = "invalid predicate (one index per tensor dimension, each in range; a known comparison)"; break;
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
    } else if (kind == PTO2_TASK_DUMMY) {
        // a dummy task takes explicit deps, and runtime-created outputs (alloc_tensors: zero-filled)
        bool only_created = true;
        for (uint32_t i = 0; i < a->tensor_count_ && i < CORE_MAX_TENSOR_ARGS; ++i)
            only_created = only_created && a->kinds_[i] == PTO2ArgKind::OUTPUT;
        if (!only_created || a->scalar_count_ || a->predicate_.active)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: a dummy task takes only explicit deps and created outputs (no other tensors, scalars or predicate)", (unsigned long long)seq));
    } else if (kind != PTO2_TASK_AIV && kind != PTO2_TASK_AIC) {
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: unknown task kind %d", (unsigned long long)seq, kind));
    }
    for (int l = 0; l < (kind == PTO2_TASK_MIXED ? 3 : kind == PTO2_TASK_DUMMY ? 0 : 1); ++l) {
        int32_t f = func[l];
        if (kind == PTO2_TASK_MIXED && f == INVALID_KERNEL_ID) continue;
        if (f < 0 || f >= (int32_t)r->kernels.size() || !r->kernels[f].fn)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: func_id %d is not a kernel of this program", (unsigned long long)seq, f));
        int want = (kind == PTO2_TASK_AIC || (kind == PTO2_TASK_MIXED && l == 0)) ? CT_AIC : CT_AIV;
        int have = r->kernels[f].core_type;
        if (have >= 0 && have != want)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: kernel '%s' (func_id %d) is an %s kernel, submitted as %s", (unsigned long long)seq, r->kernels[f].name.c_str(), f, have == CT_AIC ? "aic" : "aiv", want == CT_AIC ? "aic" : "aiv"));
    }
    int32_t block_num = kind == PTO2_TASK_DUMMY ? 1 : a->launch_spec.block_num_;
    if (block_num < 1 || block_num > 65535)
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: block_num %d out of range 1..65535", (unsigned long long)seq, block_num));
    if (a->launch_spec.sync_start_ && kind != PTO2_TASK_DUMMY) {
        int cap = kind == PTO2_TASK_MIXED ? d->clusters : d->ncores_of(kind == PTO2_TASK_AIC ? CT_AIC : CT_AIV);
        if (block_num > cap)
            fail_throw(r, lk, PTO2_ERR_INVALID_SYNC_START, fmt("invalid sync-start: task %llu asks %d blocks to start together but only %d %s are simulated", (unsigned long long)seq, block_num, cap, kind == PTO2_TASK_MIXED ? "clusters" : "cores of its type"));
    }
    const uint32_t nt = a->tensor_count_;
    uint64_t heap_bytes = 0;
    for (uint32_t i = 0; i < nt; ++i) {
        const ChipTensor& t = a->tensors_[i];
        if (t.ndims < 1 || t.ndims > (uint32_t)CHIP_TENSOR_MAX_DIMS || get_element_size(t.dtype) == 0)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: tensor arg %u has invalid ndims %u or dtype %u", (unsigned long long)seq, i, t.ndims, (unsigned)t.dtype));
        if (a->kinds_[i] == PTO2ArgKind::OUTPUT) {
            heap_bytes += align_up(std::max<uint64_t>(t.numel() * get_element_size(t.dtype), 1), kHeapAlign);
        } else if (t.buffer.addr == 0) {
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: tensor arg %u has a null buffer", (unsigned long long)seq, i));
        }
    }
    s.kind = kind;
    for (int l = 0; l < 3; ++l) s.func[l] = func[l];
    s.block_num = block_num;
    s.heap_bytes = heap_bytes;
}

// Producers of the task: owners and TensorMap writers of its inputs (a NO_DEP arg or a
// manual_dep tensor keeps only its creator, which also keeps its buffer alive), writers of its
// predicate's tensor, and explicit deps.  Inside a MANUAL scope the tensor-derived ones submitted
// in that scope are left out: only explicit deps order its tasks among themselves.
void find_producers(Run* r, std::unique_lock<std::mutex>& lk, const CoreTaskArgs* a, Submission& s) {
    const uint64_t seq = s.seq;
    const uint32_t nt = a->tensor_count_;
    std::vector<uint64_t>& prods = s.prods;
    for (uint32_t i = 0; i < nt; ++i) {
        PTO2ArgKind k = a->kinds_[i];
        if (k == PTO2ArgKind::OUTPUT) continue;
        const ChipTensor& t = a->tensors_[i];
        if (t.owner_task_id != PTO2_INVALID_TASK_ID && lookup(r, t.owner_task_id))
            add_unique(tracked_producer(r, t.owner_task_id) ? prods : s.holds, t.owner_task_id);
        if (k != PTO2ArgKind::NO_DEP && !t.manual_dep) tensormap_lookup(r, t, prods);
    }
    if (a->predicate_.active) {
        const ChipTensor& t = a->predicate_.tensor;
        if (t.owner_task_id != PTO2_INVALID_TASK_ID && tracked_producer(r, t.owner_task_id)) add_unique(prods, t.owner_task_id);
        if (!t.manual_dep) tensormap_lookup(r, t, prods);
    }
    for (uint32_t i = 0; i < a->dep_count_; ++i) {
        uint64_t id = a->deps_[i];
        uint64_t dr = id >> kRingShift;
        if (dr >= (uint64_t)kRings || r->ring((int)dr).size == 0 || (id & kLocalMask) >= r->ring((int)dr).head)
            fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("task %llu: explicit dep on unknown task id 0x%llx", (unsigned long long)seq, (unsigned long long)id));
        if (lookup(r, id)) add_unique(prods, id);
    }
    size_t w = 0;
    for (uint64_t h : s.holds)
        if (std::find(prods.begin(), prods.end(), h) == prods.end()) s.holds[w++] = h;
    s.holds.resize(w);
}

// What to do about a ring that an open scope fills up (error 1, 2 or 4).
std::string scope_remedy(const char* limit, const char* what) {
    return fmt("Either raise the limit above the number of %s (RunConfig(%s=...)), or give each loop "
               "iteration a scope of its own, so that the tasks of finished iterations retire "
               "(in hand-written orchestration C++: PTO2_SCOPE() { ... } around the iteration's submissions)",
               what, limit);
}

// Back-pressure: wait until ring `ringi` has a slot, heap room for the outputs and
// dependency-pool room; fail on what can never drain (host_build_graph, an open scope
// holding the ring, no retirement within the timeout).
void wait_for_ring_space(Run* r, std::unique_lock<std::mutex>& lk, Ring& rg, int ringi, Submission& s) {
    const uint64_t seq = s.seq;
    const uint64_t heap_bytes = s.heap_bytes;
    const std::vector<uint64_t>& prods = s.prods;
    uint64_t& off = s.off;
    uint64_t& len = s.len;
    ensure_ring(r->cfg, rg);
    if (!rg.heap) fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("cannot map a heap ring of heap_size=%llu bytes", (unsigned long long)r->cfg.heap_size));
    if (heap_bytes > rg.heap_size)
        fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("heap-ring deadlock: task %llu needs %llu bytes of outputs but heap_size=%llu", (unsigned long long)seq, (unsigned long long)heap_bytes, (unsigned long long)rg.heap_size));
    const size_t nedges = prods.size() + s.holds.size();
    if (nedges > rg.dep_cap)
        fail_throw(r, lk, PTO2_ERR_DEP_POOL_OVERFLOW, fmt("dependency-pool overflow: task %llu has %zu dependencies but dep_pool_size=%llu", (unsigned long long)seq, nedges, (unsigned long long)rg.dep_cap));
    uint64_t seen_retired = r->retired;
    auto deadline = Clock::now() + std::chrono::duration<double>(r->cfg.timeout_s);
    for (;;) {
        if (r->failed) {
            lk.unlock();
            throw RunAbort();
        }
        bool slot_ok = rg.head - rg.tail < rg.size;
        bool heap_ok = heap_fit(rg, heap_bytes, off, len);
        bool dep_ok = rg.dep_used + nedges <= rg.dep_cap;
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
            const std::string held = ringi == 0 ? std::string("held until the orchestration function returns (they were submitted outside any PTO2_SCOPE)")
                                                : fmt("held by the open PTO2_SCOPE (depth %d)", ringi);
            if (!slot_ok)
                fail_throw(r, lk, PTO2_ERR_SCOPE_DEADLOCK, fmt("scope deadlock: task %llu cannot be submitted: the task ring of scope depth %d is full (task_ring_size=%llu) of tasks %s. %s", (unsigned long long)seq, ringi, (unsigned long long)rg.size, held.c_str(), scope_remedy("task_ring_size", "tasks one scope submits").c_str()));
            if (!heap_ok)
                fail_throw(r, lk, PTO2_ERR_HEAP_RING_DEADLOCK, fmt("heap-ring deadlock: task %llu needs %llu bytes of outputs but the heap ring of scope depth %d (heap_size=%llu) is full of outputs of tasks %s. %s", (unsigned long long)seq, (unsigned long long)heap_bytes, ringi, (unsigned long long)rg.heap_size, held.c_str(), scope_remedy("heap_size", "output bytes one scope creates").c_str()));
            fail_throw(r, lk, PTO2_ERR_DEP_POOL_OVERFLOW, fmt("dependency-pool overflow: the dependency pool of scope depth %d (dep_pool_size=%llu) is full of edges of tasks %s. %s", ringi, (unsigned long long)rg.dep_cap, held.c_str(), scope_remedy("dep_pool_size", "dependencies one scope creates").c_str()));
        }
        if (r->adversarial && !r->dispatch_enabled) {
            // an adversarial schedule defers dispatch; a full ring needs tasks to run now (from
            // here on tasks run as they become ready, in the schedule's order)
            make_built_graph_ready(r);
            lk.unlock();
            flush_wakes();
            lk.lock();
            continue;
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
}

// Take the slot: fill the task, place its outputs in the heap, link it to its producers
// and register what it writes in the TensorMap.
Task& commit_task(Run* r, Ring& rg, int ringi, const CoreTaskArgs* a, const Submission& s, TaskOutputTensors* out) {
    const uint64_t seq = s.seq;
    const int32_t kind = s.kind;
    const int32_t* func = s.func;
    const int32_t block_num = s.block_num;
    const uint32_t nt = a->tensor_count_, ns = a->scalar_count_;
    const uint64_t off = s.off, len = s.len, heap_bytes = s.heap_bytes;
    const std::vector<uint64_t>& prods = s.prods;
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
    heap_take(rg, t, off, len, heap_bytes);
    t.fanout.clear();
    t.fanin.clear();
    t.t_submit = mono_ns();
    t.t_ready = 0;
    t.ntensors = nt;
    t.nscalars = ns;
    t.tensors.assign(a->tensors_, a->tensors_ + nt);
    for (uint32_t i = 0; i < nt; ++i) t.kinds[i] = (uint8_t)a->kinds_[i];
    memcpy(t.scalars, a->scalars_, sizeof(uint64_t) * ns);
    t.race_touch = t.race_manual = false;
    t.touch.clear();
    t.has_pred = a->predicate_.active;
    t.skipped = false;
    if (t.has_pred) {
        t.pred_addr = a->predicate_.tensor.buffer.addr;
        t.pred_dtype = a->predicate_.tensor.dtype;
        t.pred_elem = a->predicate_.element;
        t.pred_op = a->predicate_.op;
        t.pred_lit = a->predicate_.literal;
    }
    t.dump_mask = a->dump_mask_;
    t.arg_names.clear();
    if (r->cfg.dump_args && a->arg_names_)
        for (uint32_t i = 0; i < nt; ++i) t.arg_names.emplace_back(a->arg_names_[i] ? a->arg_names_[i] : "");
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
        memset(rg.heap + cursor, 0, bytes);   // pl.create_tensor's buffers are zero-filled
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
    for (uint64_t h : s.holds) {   // a reference only: released when this task completes
        Task* pt = lookup(r, h);
        if (!pt) continue;
        pt->fanout_refs++;
        t.fanin.push_back(h);
    }
    t.edges_held = t.fanin.size();
    rg.dep_used += t.edges_held;
    for (uint32_t i = 0; i < nt; ++i) {
        PTO2ArgKind k = a->kinds_[i];
        if ((k == PTO2ArgKind::INOUT || k == PTO2ArgKind::OUTPUT_EXISTING) && !t.tensors[i].manual_dep)
            tensormap_register(r, t.tensors[i], t.id);
    }
    return t;
}

void wait_for_producers(Run* r, std::unique_lock<std::mutex>& lk, std::vector<uint64_t>& prods, const char* what);

// schedule auto, race_check manual: the first task submitted in a MANUAL scope switches the run
// to the reverse schedule.  The tasks before it are waited for first (under the default order),
// so that from here on the order depends only on the graph, as when the run starts reversed.
void switch_to_adversarial(Run* r, std::unique_lock<std::mutex>& lk) {
    r->auto_pending = false;
    std::vector<uint64_t> live;
    for (int ri = 0; ri < kRings; ++ri) {
        Ring& rg = r->ring(ri);
        for (uint64_t l = rg.tail; rg.size && l < rg.head; ++l)
            if (!rg.slot(l).completed) live.push_back(rg.slot(l).id);
    }
    wait_for_producers(r, lk, live, "the tasks submitted before the first MANUAL scope");
    r->schedule = 1;
    r->schedule_from = r->seq;
    r->adversarial = true;
    r->dispatch_enabled = false;
}

void op_submit(void* rtp, int32_t kind, const int32_t* ids, const CoreTaskArgs* a, TaskOutputTensors* out) {
    Run* r = static_cast<Run*>(rtp);
    Device* d = r->dev;
    std::unique_lock<std::mutex> lk(d->mu);
    if (r->failed) {
        lk.unlock();
        throw RunAbort();
    }
    if (r->auto_pending && r->manual_from != UINT64_MAX) switch_to_adversarial(r, lk);
    Submission s;
    s.seq = r->seq;
    check_submission(r, lk, kind, ids, a, s);
    find_producers(r, lk, a, s);
    const int ringi = r->hbg ? 0 : r->depth;
    Ring& rg = r->ring(ringi);
    wait_for_ring_space(r, lk, rg, ringi, s);
    Task& t = commit_task(r, rg, ringi, a, s, out);
    if (r->race.mode) {
        std::vector<uint64_t> pseqs;
        for (uint64_t p : s.prods)
            if (Task* pt = lookup(r, p)) pseqs.push_back(pt->seq);
        race_submit(r->race, t.seq, a->site_, t.func[0] >= 0 ? t.func[0] : t.func[1], pseqs, t.tensors.data(), t.kinds,
                    t.ntensors, a->nodep_read_only_);
        t.race_touch = race_checked_now(r->race);
        t.race_manual = r->race.scopes.back().manual;
    }
    ++r->seq;
    note_progress(r, t.t_submit);
    if (t.pending == 0 && r->dispatch_enabled) {
        make_ready(r, &t);
        dispatch_locked(r, nullptr);
    }
    lk.unlock();
    flush_wakes();
}

void scope_begin(Run* r, bool manual) {
    std::unique_lock<std::mutex> lk(r->dev->mu);
    if (r->failed) {
        lk.unlock();
        throw RunAbort();
    }
    if (r->depth >= PTO2_MAX_SCOPE_DEPTH)
        fail_throw(r, lk, PTO2_ERR_INVALID_ARGS, fmt("PTO2_SCOPE nested deeper than %d", PTO2_MAX_SCOPE_DEPTH));
    ++r->depth;
    if (!r->hbg) ring_open_scope(r->ring(r->depth));
    r->manual_stack.push_back(r->manual_from);
    if (manual && r->manual_from == UINT64_MAX) r->manual_from = r->seq;
    race_scope_begin(r->race, manual);
}

void op_scope_begin(void* rtp) { scope_begin(static_cast<Run*>(rtp), false); }
void op_scope_begin_manual(void* rtp) { scope_begin(static_cast<Run*>(rtp), true); }

void op_scope_end(void* rtp) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    if (r->depth <= 0) return;
    if (!r->hbg && !r->failed) release_range(r, r->depth, r->ring(r->depth).scope_begin);
    --r->depth;
    if (!r->manual_stack.empty()) {
        r->manual_from = r->manual_stack.back();
        r->manual_stack.pop_back();
    }
    race_scope_end(r->race);
}

void op_fatal(void* rtp, int32_t code, const char* message) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    fail_throw(r, lk, code, fmt("orchestration fatal: %s", message ? message : "(no message)"));
}

// host_build_graph: the orchestration waits on a task, so the graph built so far is run now
// (every task submitted until here becomes dispatchable); the orchestration then goes on
// building, and what it submits later waits for its end as usual.
// (The adversarial schedules do the same under tensormap_and_ringbuffer: every ring.)
void make_built_graph_ready(Run* r) {
    r->dispatch_enabled = true;
    for (int ri = 0; ri < (r->hbg ? 1 : kRings); ++ri) {
        Ring& rg = r->ring(ri);
        for (uint64_t l = rg.tail; rg.size && l < rg.head; ++l) {
            Task& t = rg.slot(l);
            if (t.pending == 0 && !t.completed && t.t_ready == 0) make_ready(r, &t);
        }
    }
    dispatch_locked(r, nullptr);
}

void run_built_graph(Run* r) {
    make_built_graph_ready(r);
    flush_wakes();
}

void wait_for_producers(Run* r, std::unique_lock<std::mutex>& lk, std::vector<uint64_t>& prods, const char* what) {
    if (prods.empty()) return;
    bool segment = false;
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
        if (all) {
            if (segment) r->dispatch_enabled = false;
            return;
        }
        if ((r->hbg || r->adversarial) && !segment && !r->dispatch_enabled) {
            segment = true;
            run_built_graph(r);
            continue;
        }
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
    tensormap_lookup(r, *t, prods, false);
    wait_for_producers(r, lk, prods, "the writers of a tensor");
}

// Host access to `t` (pl.read / pl.write in orchestration): wait for every unfinished task with
// an argument overlapping it that may write it (a write also waits for its readers, and for a
// task whose predicate reads it).  Found by scanning the live tasks, so NO_DEP args and
// manual_dep tensors are covered too.
void op_wait_access(void* rtp, const ChipTensor* t, int32_t for_write) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    std::vector<uint64_t> prods;
    if (t->owner_task_id != PTO2_INVALID_TASK_ID && lookup(r, t->owner_task_id)) prods.push_back(t->owner_task_id);
    const TMEntry q = region_of(*t, 0);
    for (int ri = 0; ri < kRings; ++ri) {
        Ring& rg = r->ring(ri);
        for (uint64_t l = rg.tail; rg.size && l < rg.head; ++l) {
            const Task& x = rg.slot(l);
            if (x.completed) continue;
            bool uses = for_write && x.has_pred && x.pred_addr == t->buffer.addr;
            for (uint32_t j = 0; j < x.ntensors && !uses; ++j) {
                const ChipTensor& a = x.tensors[j];
                if (a.buffer.addr != t->buffer.addr) continue;
                if (!for_write && (PTO2ArgKind)x.kinds[j] == PTO2ArgKind::INPUT) continue;
                uses = overlaps(q, region_of(a, 0));
            }
            if (uses) add_unique(prods, x.id);
        }
    }
    wait_for_producers(r, lk, prods, for_write ? "the tasks using a tensor the orchestration writes" : "the tasks writing a tensor the orchestration reads");
}

void op_wait_task(void* rtp, PTO2TaskId id) {
    Run* r = static_cast<Run*>(rtp);
    std::unique_lock<std::mutex> lk(r->dev->mu);
    std::vector<uint64_t> prods;
    if (lookup(r, id)) prods.push_back(id);
    wait_for_producers(r, lk, prods, "a task");
}

int32_t op_available_cores(void* rtp, int32_t kind) {
    const Run* r = static_cast<Run*>(rtp);
    return kind == 1 ? r->dev->ncores_of(CT_AIV) : r->dev->clusters;
}

const PTO2RuntimeOps g_ops = {PTO2_RUNTIME_OPS_VERSION, sizeof(PTO2RuntimeOps), op_submit, op_scope_begin,
                              op_scope_end, op_fatal, op_wait_tensor, op_wait_task, op_wait_access,
                              op_scope_begin_manual, op_available_cores};

// ---------------------------------------------------------------------------
// the orchestrator thread
// ---------------------------------------------------------------------------

void orchestration_done(Run* r) {
    Device* d = r->dev;
    std::unique_lock<std::mutex> lk(d->mu);
    for (int i = 0; i < kRings; ++i) release_range(r, i, 0);
    r->depth = 0;
    r->orch_done = true;
    if ((r->hbg || r->adversarial) && !r->failed) make_built_graph_ready(r);
    r->manual_stack.clear();
    r->manual_from = UINT64_MAX;
    check_finished(r);
    lk.unlock();
    flush_wakes();
}

// One run's orchestration on the orchestrator thread (orch_thread then marks it exited).
void orch_main(Run* r) {
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
}

// The stack the orchestrator thread runs on: [lo, hi).
struct StackRange {
    uintptr_t lo = 0, hi = 0;
};

StackRange own_stack() {
    StackRange s;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* addr = nullptr;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            s.lo = (uintptr_t)addr;
            s.hi = s.lo + size;
        }
        pthread_attr_destroy(&attr);
    }
    return s;
}

// Hand the stack pages a run's orchestration touched below this frame back to the kernel (a
// large generated orchestration keeps one frame of several MiB): the thread stays, its
// memory does not, as when each run had a thread of its own.
void release_stack_below(const StackRange& s) {
    volatile char here = 0;
    const uintptr_t sp = (uintptr_t)&here;
    const uintptr_t top = (sp - (64u << 10)) & ~(uintptr_t)4095;   // keep this frame and a margin
    if (s.lo && top > s.lo && top < s.hi) madvise((void*)s.lo, top - s.lo, MADV_DONTNEED);
}

// The orchestrator thread: runs each run's orchestration it is handed (Device::orch_job) until
// the device shuts down or is abandoned. One thread for all runs: a run starts by waking it, not
// by creating a thread (with its 256 MiB stack mapping) and joining it again.
void* orch_thread(void* arg) {
    Device* d = static_cast<Device*>(arg);
    setup_altstack();
    const StackRange stack = own_stack();
    std::unique_lock<std::mutex> lk(d->mu);
    for (;;) {
        if (Run* r = d->orch_job) {
            d->orch_job = nullptr;
            lk.unlock();
            orch_main(r);
            release_stack_below(stack);
            lk.lock();
            r->orch_exited = true;   // from here on the run may be freed at any moment
            r->done_cv.notify_all();
            continue;
        }
        if (d->shutdown || d->abandoned) break;
        d->orch_wake.wait_for(lk, std::chrono::seconds(1));
    }
    return nullptr;
}

// Start the device's orchestrator thread if it is not running; false when it cannot be.
bool ensure_orchestrator(Device* d) {
    if (d->orch_started) return true;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kOrchStack);
    int rc = pthread_create(&d->orch_th, &attr, orch_thread, d);
    pthread_attr_destroy(&attr);
    d->orch_started = rc == 0;
    return d->orch_started;
}

// Hand run `r` to the orchestrator thread.
void start_orchestration(Device* d, Run* r) {
    {
        std::lock_guard<std::mutex> lk(d->mu);
        d->orch_job = r;
    }
    d->orch_wake.notify_one();
}

}  // namespace
