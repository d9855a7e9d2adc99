// sim_fifo.hpp -- cross-core FIFO hooks (part of the single translation unit ptosim.cpp;
// not a public header).
//
// Owns: the TPUSH/TPOP/TFREE hooks of the CPU tile library (pto_cpu_fifo_push/pop/free,
// docs/contracts.md), one FIFO per (cluster, pipe, direction, lane), created on first
// use; while it is idle (nothing queued or held) it takes the slot size and count of the
// call (a later task's kernel may use the same pipe id with other slots).  A pop holds its
// slot until the next pop or a free.  Waits are bounded (0.9 x the run's timeout) and end early when the
// run fails; a wait that blocked is recorded for traces when the run records args.
// Guarded by `Device::fifo_mu` alone (lock order elsewhere: `Device::mu`, then
// `fifo_mu`).  Compiled only when the tile library's pto/cpu_sim_hooks.h is on the
// include path.
#pragma once

#include "sim_common.hpp"
#include "sim_device.hpp"
#include "sim_run.hpp"

#ifdef PTOSIM_HAVE_FIFO_HOOKS
// ---------------------------------------------------------------------------
// cross-core FIFOs (TPUSH/TPOP/TFREE), one per (cluster, pipe, direction, lane)
// ---------------------------------------------------------------------------

namespace {
Fifo* fifo_get(Device* d, PtoCpuCore* core, int32_t pipe, int32_t dir, int32_t lane, uint32_t slot_size, uint32_t slot_num) {
    auto key = std::make_tuple(core->cluster_id, pipe, dir, lane);
    auto it = d->fifos.find(key);
    if (it == d->fifos.end()) {
        it = d->fifos.emplace(key, Fifo{}).first;
    }
    Fifo* f = &it->second;
    if (f->queued.empty() && !f->held) {
        // an idle FIFO takes the geometry of the pipe using it now: a cluster runs tasks of several
        // kernels in one run, and a later kernel's pipe of the same id may have other slots
        f->slot_size = slot_size;
        f->slot_num = slot_num ? slot_num : 2;
    }
    return f;
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

// cfg.estimate, slot back-pressure: the FIFO's slot records belong to the block `c` runs (a FIFO
// outlives blocks; each block's device time starts at 0)
void fifo_est_block(Fifo* f, const Core* c) {
    const uint64_t seq = c->cur.task ? c->cur.task->seq : 0;
    if (f->est_seq == seq && f->est_block == c->cur.block_idx) return;
    f->est_seq = seq;
    f->est_block = c->cur.block_idx;
    f->est_pushes = 0;
    f->est_freed.clear();
}

// The consumer released a slot: the device time it did so (its work so far ends)
void fifo_est_release(Fifo* f, PtoCpuCore* core) {
    if (!core->estimate) return;
    const Core* c = static_cast<Core*>(core->runtime);
    fifo_est_block(f, c);
    f->est_freed.push_back(c->est.now());
}

// A push takes a slot: the first slot_num pushes of a block find one free; push k waits for the
// consumer to have released the slot of pop k - slot_num
void fifo_est_push(Fifo* f, PtoCpuCore* core) {
    if (!core->estimate) return;
    Core* c = static_cast<Core*>(core->runtime);
    fifo_est_block(f, c);
    if (f->est_pushes++ >= f->slot_num && !f->est_freed.empty()) {
        c->est.push_after(f->est_freed.front());
        f->est_freed.pop_front();
    }
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
    fifo_est_push(f, core);
    f->queued.emplace_back((const uint8_t*)src, (const uint8_t*)src + bytes);
    if (core->estimate) f->stamps.push_back(static_cast<Core*>(core->runtime)->est.now());
    note_progress(r, mono_ns());
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
        fifo_est_release(f, core);
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
    if (core->estimate && !f->stamps.empty()) {   // the data is there once the pusher's work is
        static_cast<Core*>(core->runtime)->est.wait_until(f->stamps.front());
        f->stamps.pop_front();
    }
    f->held = true;
    note_progress(r, mono_ns());
    d->fifo_cv.notify_all();
    return PTO_CPU_FIFO_OK;
}

// A vector core's kernel constructed pipe `pipe_id` (TPipe constructor): its lane takes part
// in the pipe's unsplit transfers of the current block.
extern "C" __attribute__((visibility("default"))) void pto_cpu_fifo_attach(PtoCpuCore* core, int32_t pipe_id) {
    Device* d = nullptr;
    if (!core_run(core, &d) || core->lane < 0 || pipe_id < 0 || pipe_id >= 64) return;
    Core* c = static_cast<Core*>(core->runtime);
    std::lock_guard<std::mutex> lk(d->fifo_mu);
    c->fifo_part.pipes |= 1ull << pipe_id;
    d->fifo_cv.notify_all();
}

// The cube asks whether vector lane `lane` of its cluster takes part in pipe `pipe_id` in the
// block it runs: wait until that lane's kernel of the same block constructed the pipe (1) or
// returned without it (0). A lane the task gives no kernel never takes part.
extern "C" __attribute__((visibility("default"))) int pto_cpu_fifo_lane_joins(PtoCpuCore* core, int32_t pipe_id, int32_t lane,
                                                                              int32_t* joins) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    Core* me = core ? static_cast<Core*>(core->runtime) : nullptr;
    if (!r || !me || !me->cur.task || lane < 0 || lane > 1 || !joins) return PTO_CPU_FIFO_ERROR;
    const Task* t = me->cur.task;
    if (t->func[1 + lane] == INVALID_KERNEL_ID) {
        *joins = 0;
        return PTO_CPU_FIFO_OK;
    }
    if (pipe_id < 0 || pipe_id >= 64) {
        *joins = 1;
        return PTO_CPU_FIFO_OK;
    }
    const Core* v = lane_core(d, me->cluster, 1 + lane);
    const uint64_t seq = t->seq, bit = 1ull << pipe_id;
    const int32_t block = me->cur.block_idx;
    std::unique_lock<std::mutex> lk(d->fifo_mu);
    auto known = [&] {
        return v->fifo_part.seq == seq && v->fifo_part.block == block && (v->fifo_part.ended || (v->fifo_part.pipes & bit));
    };
    int rc = fifo_wait(d, r, lk, known);
    if (rc) return rc;
    *joins = (v->fifo_part.pipes & bit) ? 1 : 0;
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
        fifo_est_release(&it->second, core);
        d->fifo_cv.notify_all();
    }
    return PTO_CPU_FIFO_OK;
}
#endif
