// sim_scheduler.hpp -- ready queues, dispatch and the core threads (part of the single
// translation unit ptosim.cpp; not a public header).
//
// Owns: how ready tasks reach cores and how finished blocks come back.  Ready queues per
// task kind (mixed, AIC, AIV; FIFO within a kind, a task stays at the head until all
// its blocks are dispatched); placement: a single-core task goes to a free core of its
// type (the dispatching core itself first, then round-robin), a mixed task takes every
// lane it uses of one whole free cluster, and a sync-start task waits until all its
// blocks can start together.  Scheduling is done by the threads that change the state
// (the orchestrator on submit, a core when it finishes a block), with at most one
// wake-up in flight per core type.  Also: the core thread loop, running one block with
// crash containment, completion (dependents become ready, producers may retire) and the
// stall diagnosis of a scheduler timeout.  All with `Device::mu` held unless said
// otherwise.
#pragma once

#include "sim_common.hpp"
#include "sim_device.hpp"
#include "sim_rings.hpp"
#include "sim_run.hpp"

namespace {

// ---------------------------------------------------------------------------
// ready queues and dispatch
// ---------------------------------------------------------------------------

void complete_task(Run* r, Task* t);

// IEEE half / bfloat16 bits -> float (predicates on FP16/BF16 tensors).
float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0 && man == 0) {
        bits = sign;
    } else if (exp == 0) {  // subnormal
        int e = -1;
        do {
            ++e;
            man <<= 1;
        } while (!(man & 0x400));
        bits = sign | (uint32_t)(112 - e) << 23 | (man & 0x3ff) << 13;
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | man << 13;
    } else {
        bits = sign | (exp + 112) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

template <typename T>
bool compare(T a, T b, int32_t op) {
    switch (op) {
        case PTO2_CMP_EQ: return a == b;
        case PTO2_CMP_NE: return a != b;
        case PTO2_CMP_LT: return a < b;
        case PTO2_CMP_LE: return a <= b;
        case PTO2_CMP_GT: return a > b;
        case PTO2_CMP_GE: return a >= b;
    }
    return false;
}

// The dispatch predicate of `t` on the current contents of its tensor element.
bool predicate_holds(const Task& t) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.pred_addr) + t.pred_elem * get_element_size(t.pred_dtype);
    auto load = [p](auto v) {
        memcpy(&v, p, sizeof v);
        return v;
    };
    const int64_t lit = t.pred_lit;
    switch (t.pred_dtype) {
        case DataType::FLOAT32: return compare<double>(load(float(0)), (double)lit, t.pred_op);
        case DataType::FLOAT16: return compare<double>(half_to_float(load(uint16_t(0))), (double)lit, t.pred_op);
        case DataType::BFLOAT16: {
            uint32_t bits = (uint32_t)load(uint16_t(0)) << 16;
            float f;
            memcpy(&f, &bits, 4);
            return compare<double>(f, (double)lit, t.pred_op);
        }
        case DataType::INT8: return compare<int64_t>(load(int8_t(0)), lit, t.pred_op);
        case DataType::INT16: return compare<int64_t>(load(int16_t(0)), lit, t.pred_op);
        case DataType::INT32: return compare<int64_t>(load(int32_t(0)), lit, t.pred_op);
        case DataType::INT64: return compare<int64_t>(load(int64_t(0)), lit, t.pred_op);
        case DataType::UINT8: return compare<int64_t>(load(uint8_t(0)), lit, t.pred_op);
        case DataType::UINT16: return compare<int64_t>(load(uint16_t(0)), lit, t.pred_op);
        case DataType::UINT32: return compare<int64_t>(load(uint32_t(0)), lit, t.pred_op);
        case DataType::BOOL: return compare<int64_t>(load(uint8_t(0)) != 0, lit, t.pred_op);
        case DataType::UINT64: {
            uint64_t v = load(uint64_t(0));
            if (lit < 0) return compare<int>(1, 0, t.pred_op);  // v > any negative literal
            return compare<uint64_t>(v, (uint64_t)lit, t.pred_op);
        }
    }
    return true;
}

// `t`'s producers are done: queue it for a core, or -- a dummy task, or a predicate that is
// false -- complete it here without running anything (iteratively: completing it may make
// more such tasks ready).
void make_ready(Run* r, Task* t) {
    t->t_ready = mono_ns();
    t->ready_no = r->ready_no++;
    if (t->kind != PTO2_TASK_DUMMY && !(t->has_pred && !predicate_holds(*t))) {
        r->queues[t->kind].push_back(t);
        return;
    }
    if (t->kind != PTO2_TASK_DUMMY) {
        t->skipped = true;
        r->skipped.push_back(t->seq);
    }
    r->instant.push_back(t);
    if (r->draining) return;
    r->draining = true;
    while (!r->instant.empty()) {
        Task* x = r->instant.front();
        r->instant.pop_front();
        complete_task(r, x);
    }
    r->draining = false;
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

// The adversarial schedules (Run::schedule 1 reverse, 2 seeded random): one dispatch unit at a
// time -- a block (every lane of a mixed block; every block of a sync-start task) -- and only
// when no core is busy, taking among all ready tasks the newest (1) or a seeded random one (2).
// Which task runs next then depends only on the graph and the seed, not on thread timing.
void dispatch_adversarial(Run* r, Core* self) {
    Device* d = r->dev;
    if (d->free_count[CT_AIC] != d->ncores_of(CT_AIC) || d->free_count[CT_AIV] != d->ncores_of(CT_AIV)) return;
    size_t n = r->queues[0].size() + r->queues[1].size() + r->queues[2].size();
    if (n == 0) return;
    int kind = -1;
    size_t pos = 0;
    if (r->schedule == 1) {
        // a queue is in the order its tasks became ready (make_ready appends, dispatch erases):
        // the newest ready task is the newest of the three queue backs
        uint64_t best = 0;
        for (int k = 0; k < 3; ++k)
            if (!r->queues[k].empty() && (kind < 0 || r->queues[k].back()->ready_no > best)) {
                best = r->queues[k].back()->ready_no;
                kind = k;
                pos = r->queues[k].size() - 1;
            }
    } else {
        r->rng ^= r->rng << 13;
        r->rng ^= r->rng >> 7;
        r->rng ^= r->rng << 17;
        size_t pick = (size_t)(r->rng % n);
        for (int k = 0; k < 3 && kind < 0; ++k) {
            if (pick < r->queues[k].size()) {
                kind = k;
                pos = pick;
            } else {
                pick -= r->queues[k].size();
            }
        }
    }
    auto& q = r->queues[kind];
    Task* t = q[pos];
    int units = t->sync_start ? t->block_num - t->next_block : 1;
    for (int u = 0; u < units; ++u) {
        if (kind == PTO2_TASK_MIXED) {
            int chosen = -1;
            for (int cl = 0; chosen < 0 && cl < d->clusters; ++cl)
                if (cluster_free_for(d, cl, t)) chosen = cl;
            if (chosen < 0) break;
            for (int l = 0; l < 3; ++l)
                if (t->func[l] != INVALID_KERNEL_ID) assign(r, lane_core(d, chosen, l), t, t->next_block, t->func[l], self);
        } else {
            Core* c = pick_core(d, kind == PTO2_TASK_AIC ? CT_AIC : CT_AIV, self);
            if (!c) break;
            assign(r, c, t, t->next_block, t->func[0], self);
        }
        ++t->next_block;
    }
    if (t->next_block == t->block_num) q.erase(q.begin() + (std::ptrdiff_t)pos);
}

void dispatch_locked(Run* r, Core* self) {
    if (!r || r->failed || !r->dispatch_enabled) return;
    if (r->adversarial) return dispatch_adversarial(r, self);
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

// All blocks of `t` are done: its dependents lose a pending producer, its producers lose
// a reference (and may retire), and the run may be finished.
// cfg.dump_args: copy the dumped tensor args of `t` (all, or those it marked) as they are now.
void dump_task(Run* r, const Task* t) {
    for (uint32_t i = 0; i < t->ntensors; ++i) {
        if (r->cfg.dump_args != 2 && !(i < 32 && (t->dump_mask >> i & 1))) continue;
        const ChipTensor& x = t->tensors[i];
        PtoSimDump d;
        memset(&d, 0, sizeof d);
        d.task_seq = t->seq;
        d.func_id = t->func[0];
        d.arg = i;
        d.kind = t->kinds[i];
        d.dtype = (uint32_t)x.dtype;
        d.ndims = std::min<uint32_t>(x.ndims, CHIP_TENSOR_MAX_DIMS);
        for (uint32_t k = 0; k < d.ndims; ++k) d.shapes[k] = x.shapes[k];
        if (i < t->arg_names.size()) snprintf(d.name, sizeof d.name, "%s", t->arg_names[i].c_str());
        const uint64_t es = x.element_size(), n = x.numel();
        d.offset = r->dump_data.size();
        d.bytes = n * es;
        r->dump_data.resize(d.offset + d.bytes);
        uint8_t* out = r->dump_data.data() + d.offset;
        const uint8_t* base = reinterpret_cast<const uint8_t*>(x.buffer.addr);
        // rows of the innermost dimension, in row-major order of the others
        const uint32_t nd = d.ndims, inner = nd ? x.shapes[nd - 1] : 1;
        uint32_t idx[CHIP_TENSOR_MAX_DIMS] = {0};
        for (uint64_t row = 0; n && row < n / inner; ++row) {
            uint64_t e = x.start_offset;
            for (uint32_t k = 0; k + 1 < nd; ++k) e += (uint64_t)idx[k] * x.strides[k];
            for (uint32_t c = 0; c < inner; ++c)
                memcpy(out + (row * inner + c) * es, base + (e + (uint64_t)c * x.strides[nd - 1]) * es, es);
            for (int k = (int)nd - 2; k >= 0; --k) {
                if (++idx[k] < x.shapes[k]) break;
                idx[k] = 0;
            }
        }
        r->dumps.push_back(d);
    }
}

void complete_task(Run* r, Task* t) {
    if (r->cfg.dump_args && t->kind != PTO2_TASK_DUMMY && !t->skipped) dump_task(r, t);
    if (r->race.mode) {   // before a dependent can start (the checker judges what the task touched)
        race_task_done(r->race, t->seq, t->touch, t->block_num, t->tensors, t->kinds, t->race_manual);
        std::vector<RaceTouch>().swap(t->touch);
    }
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
// core threads
// ---------------------------------------------------------------------------

// Run one block on core `c` without the lock; false when the kernel crashed or called
// pto_cpu_fatal (the reason is in c->jctx).
bool run_block(Core* c, Run* r, const Work& w) {
    Task* t = w.task;
    PtoSimBlockRecord* rec = r->rec(w.rec);
    for (uint32_t i = 0; i < t->ntensors; ++i) {
        const ChipTensor& x = t->tensors[i];
        c->args[i] = (int64_t)(uintptr_t)&x;
        c->regions[i].base = x.buffer.addr + x.start_offset * x.element_size();
        c->regions[i].bytes = x.extent_elems() * x.element_size();
    }
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
    const int64_t start = mono_ns();
    rec->start_ns = r->rel(start);
    note_progress(r, start);
    volatile bool ok = false;
    c->touch.clear();
    if (c->hw.estimate) c->est.reset();
    fifo_block_begin(c, t, w.block_idx);
    if (sigsetjmp(c->jctx.jb, 1) == 0) {
        c->jctx.armed = 1;
        fn(c->args);
        c->jctx.armed = 0;
        ok = true;
    }
    c->jctx.armed = 0;
    fifo_block_end(c, t);
    rec->end_ns = r->rel(mono_ns());
    return ok;
}

void block_done(Run* r, Core* c, const Work& w, bool ok) {
    Device* d = r->dev;
    c->busy = false;
    d->free_count[c->type]++;
    note_progress(r, r->t0 + r->rec(w.rec)->end_ns);
    if (c->hw.estimate) {
        if (r->estimates.size() <= w.rec) r->estimates.resize(std::max<uint64_t>(w.rec + 1, 2 * r->estimates.size()));
        r->estimates[w.rec] = c->est.finish();
    }
    Task* t = w.task;
    if (!ok) {
        const std::string& kn = r->kernels[w.func_id].name;
        std::string what = c->jctx.sig ? fmt("crashed with %s (address %p)", signame(c->jctx.sig), c->jctx.addr)
                                       : fmt("failed: %s", c->jctx.msg);
        fail_locked(r, PTO2_ERR_KERNEL_FAULT, fmt("kernel '%s' (func_id %d) %s in task %llu (id 0x%llx), block %d on core %d", kn.c_str(), w.func_id, what.c_str(), (unsigned long long)t->seq, (unsigned long long)t->id, w.block_idx, c->id));
    }
    if (t->race_touch && ok) {
        for (RaceTouch& x : c->touch) x.block = w.block_idx;
        t->touch.insert(t->touch.end(), c->touch.begin(), c->touch.end());
    }
    c->touch.clear();
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

// ---------------------------------------------------------------------------
// stall diagnosis
// ---------------------------------------------------------------------------

// Why a run made no progress for the timeout (for the scheduler-timeout message).
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
