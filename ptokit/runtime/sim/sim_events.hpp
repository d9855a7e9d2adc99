// sim_events.hpp -- cross-core events and the all-core barrier (part of the single translation
// unit ptosim.cpp; not a public header).
//
// Owns: the pto_cpu_event_set / pto_cpu_event_wait / pto_cpu_syncall hooks of the CPU tile
// library (pto/cpu/events.hpp).  Event counts live per (cluster, task, block): a cube's raise
// counts once for each vector lane, a vector lane's raise once for the cube (ffts_mode 2: once
// both lanes raised it).  A barrier counts the arrivals of a task's cores of the kinds its
// core_type names and opens when all of its blocks' cores arrived.  Waits use the FIFO's
// bounded wait (0.9 x the run's timeout, early end when the run fails) under Device::fifo_mu.
#pragma once

#include <map>
#include <tuple>

#include "sim_fifo.hpp"

#ifdef PTOSIM_HAVE_FIFO_HOOKS
namespace {
struct EventState {
    int32_t to_cube[16] = {0};          // raises the cube has not consumed
    int32_t to_lane[2][16] = {{0}};     // raises each vector lane has not consumed
    int32_t both[2][16] = {{0}};        // ffts_mode 2 raises of each lane not yet paired
    // estimated device time of each raise not yet consumed (cfg.estimate), in raise order
    std::deque<uint64_t> t_cube[16], t_lane[2][16], t_both[2][16];
};
struct BarrierState {
    int32_t arrived = 0;
    uint64_t generation = 0;
    uint64_t t_arrived = 0, t_open = 0;     // estimated device time: the latest arrival, and when it opened
    int32_t peak = 0;                       // the most arrivals this generation saw at once (for the timeout)
    std::map<int32_t, int32_t> per_block;   // arrivals of this generation by block index (for the timeout)
};
// (device, cluster, task seq, block) -> events;  (device, task seq, core_type) -> barrier
std::map<std::tuple<const void*, int32_t, uint64_t, int32_t>, EventState> g_events;
std::map<std::tuple<const void*, uint64_t, int32_t>, BarrierState> g_barriers;

EventState* event_state(Device* d, Core* c) {
    const Task* t = c->cur.task;
    return &g_events[std::make_tuple((const void*)d, c->cluster, t ? t->seq : 0, c->cur.block_idx)];
}

// The cores of a task's blocks a barrier of this core_type waits for (0 mix, 1 aiv_only, 2 aic_only).
int32_t barrier_parties(const Task* t, int32_t core_type) {
    int32_t cube = 0, vec = 0;
    if (t->kind == PTO2_TASK_MIXED) {
        cube = t->func[0] != INVALID_KERNEL_ID;
        vec = (t->func[1] != INVALID_KERNEL_ID) + (t->func[2] != INVALID_KERNEL_ID);
    } else if (t->kind == PTO2_TASK_AIC) {
        cube = 1;
    } else {
        vec = 1;
    }
    const int32_t per_block = core_type == 1 ? vec : core_type == 2 ? cube : cube + vec;
    return per_block * t->block_num;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int pto_cpu_event_set(PtoCpuCore* core, int32_t event, int32_t ffts_mode) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    if (!r || event < 0 || event > 15) return PTO_CPU_FIFO_ERROR;
    Core* c = static_cast<Core*>(core->runtime);
    std::lock_guard<std::mutex> lk(d->fifo_mu);
    EventState* e = event_state(d, c);
    const bool est = core->estimate != 0;
    const uint64_t now = est ? c->est.now() : 0;
    if (core->lane < 0) {
        e->to_lane[0][event]++;
        e->to_lane[1][event]++;
        if (est) {
            e->t_lane[0][event].push_back(now);
            e->t_lane[1][event].push_back(now);
        }
    } else if (ffts_mode == 2) {
        e->both[core->lane][event]++;
        if (est) e->t_both[core->lane][event].push_back(now);
        if (e->both[0][event] > 0 && e->both[1][event] > 0) {
            e->both[0][event]--;
            e->both[1][event]--;
            e->to_cube[event]++;
            if (est && !e->t_both[0][event].empty() && !e->t_both[1][event].empty()) {
                e->t_cube[event].push_back(std::max(e->t_both[0][event].front(), e->t_both[1][event].front()));
                e->t_both[0][event].pop_front();
                e->t_both[1][event].pop_front();
            }
        }
    } else {
        e->to_cube[event]++;
        if (est) e->t_cube[event].push_back(now);
    }
    note_progress(r, mono_ns());
    d->fifo_cv.notify_all();
    return PTO_CPU_FIFO_OK;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_event_wait(PtoCpuCore* core, int32_t event) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    if (!r || event < 0 || event > 15) return PTO_CPU_FIFO_ERROR;
    Core* c = static_cast<Core*>(core->runtime);
    std::unique_lock<std::mutex> lk(d->fifo_mu);
    EventState* e = event_state(d, c);
    int32_t* count = core->lane < 0 ? &e->to_cube[event] : &e->to_lane[core->lane][event];
    const int rc = fifo_wait(d, r, lk, [&] { return *count > 0; });
    if (rc) return rc;
    --*count;
    std::deque<uint64_t>& stamps = core->lane < 0 ? e->t_cube[event] : e->t_lane[core->lane][event];
    if (core->estimate && !stamps.empty()) {   // the raise's device time holds this core up
        c->est.wait_until(stamps.front());
        stamps.pop_front();
    }
    note_progress(r, mono_ns());
    return PTO_CPU_FIFO_OK;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_syncall(PtoCpuCore* core, int32_t core_type, int32_t* parties,
                                                                    int32_t* arrived, int32_t* missing_block) {
    Device* d = nullptr;
    Run* r = core_run(core, &d);
    Core* c = core ? static_cast<Core*>(core->runtime) : nullptr;
    if (!r || !c || !c->cur.task || core_type < 0 || core_type > 2) return PTO_CPU_FIFO_ERROR;
    if ((core_type == 1 && core->lane < 0) || (core_type == 2 && core->lane >= 0)) return PTO_CPU_FIFO_ERROR;
    const Task* t = c->cur.task;
    const int32_t n = barrier_parties(t, core_type);
    if (parties) *parties = n;
    std::unique_lock<std::mutex> lk(d->fifo_mu);
    BarrierState& b = g_barriers[std::make_tuple((const void*)d, t->seq, core_type)];
    const uint64_t gen = b.generation;
    const int32_t block = c->cur.block_idx;
    if (core->estimate) b.t_arrived = std::max(b.t_arrived, c->est.now());
    if (++b.arrived == n) {
        b.t_open = b.t_arrived;                 // opens at the last arrival's device time
        b.t_arrived = 0;
        if (core->estimate) c->est.wait_until(b.t_open);
        b.arrived = 0;
        b.peak = 0;
        b.per_block.clear();
        b.generation++;
        note_progress(r, mono_ns());
        d->fifo_cv.notify_all();
        return PTO_CPU_FIFO_OK;
    }
    b.per_block[block]++;
    if (b.arrived > b.peak) b.peak = b.arrived;
    const int rc = fifo_wait(d, r, lk, [&] { return b.generation != gen; });
    if (rc) {
        if (b.generation == gen) {
            // what the error reports: the arrivals so far and the first block short of its cores
            const int32_t per_block = t->block_num > 0 ? n / t->block_num : n;
            if (arrived) *arrived = b.peak;
            if (missing_block) {
                *missing_block = -1;
                for (int32_t k = 0; k < t->block_num; ++k) {
                    auto it = b.per_block.find(k);
                    if (it == b.per_block.end() || it->second < per_block) { *missing_block = k; break; }
                }
            }
            b.arrived--;                           // leave the count as it was for a later try
            if (--b.per_block[block] <= 0) b.per_block.erase(block);
        }
        return rc;
    }
    if (core->estimate) c->est.wait_until(b.t_open);
    return PTO_CPU_FIFO_OK;
}
#endif
