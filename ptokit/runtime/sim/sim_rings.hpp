// sim_rings.hpp -- task rings (part of the single translation unit ptosim.cpp; not a
// public header).
//
// Owns: the Task slot record and the per-scope-depth Ring -- its task slots (a task id
// is `ring << 48 | local sequence number`), its heap of task outputs (a wrap-around
// byte ring), its dependency-edge pool, and the scope mark.  A slot is retired, oldest
// first, once its task has completed, its scope has been released and no live consumer
// still refers to it; retiring frees its heap bytes and dependency edges.  Everything
// here works on a Ring alone; sim_run.hpp connects it to a run (retire counters,
// waking the orchestrator).
#pragma once

#include "sim_common.hpp"
#include "sim_race.hpp"

namespace {

constexpr int kRings = PTO2_MAX_SCOPE_DEPTH + 1;  // depth 0 (outside any scope) .. 4
constexpr int kRingShift = 48;
constexpr uint64_t kLocalMask = (1ull << kRingShift) - 1;
constexpr uint64_t kHeapAlign = 512;

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
    uint64_t ready_no = 0;  // order of becoming ready (adversarial schedules)
    bool race_touch = false, race_manual = false;  // race checker: record what the blocks touch
    std::vector<RaceTouch> touch;                  // ... of the blocks done so far
    uint32_t ntensors = 0, nscalars = 0;
    std::vector<uint64_t> fanout, fanin;
    std::vector<ChipTensor> tensors;
    uint8_t kinds[CORE_MAX_TENSOR_ARGS];  // PTO2ArgKind of each tensor arg
    uint64_t scalars[CORE_MAX_SCALAR_ARGS];
    // dispatch predicate (CoreTaskArgs::set_predicate): run only when element OP literal
    bool has_pred = false, skipped = false;
    uint64_t pred_addr = 0, pred_elem = 0;
    int64_t pred_lit = 0;
    int32_t pred_op = 0;
    DataType pred_dtype = DataType::FLOAT32;
    // argument dump (RunConfig.enable_dump_args): marked tensor args and their names
    uint32_t dump_mask = 0;
    std::vector<std::string> arg_names;
};

constexpr uint64_t kSlotChunk = 256;  // task slots allocated together, when first used

struct Ring {
    // The task slots, a chunk at a time on first use: a run touches only the slots it submits to
    // (value-initialising all 16384 slots of a fresh ring cost a new process's first run about
    // 10 ms of page faults).  Chunks never move, so a Task& stays valid while the ring lives.
    std::vector<std::unique_ptr<Task[]>> chunks;
    uint64_t size = 0;
    uint64_t head = 0, tail = 0;  // local sequence numbers: next to allocate, oldest live
    uint8_t* heap = nullptr;
    uint64_t heap_size = 0, heap_head = 0, heap_tail = 0, heap_used = 0;
    uint64_t dep_used = 0, dep_cap = 0;
    uint64_t scope_begin = 0;
    Task& slot(uint64_t local) {
        const uint64_t i = local % size;
        std::unique_ptr<Task[]>& c = chunks[i / kSlotChunk];
        if (!c) c.reset(new Task[kSlotChunk]());   // value-initialised, as vector::resize did
        return c[i % kSlotChunk];
    }
};

// The live task with this id, or nullptr (unknown, not yet allocated, or retired).
Task* ring_lookup(Ring* rings, uint64_t id) {
    uint64_t ring = id >> kRingShift;
    if (ring >= (uint64_t)kRings) return nullptr;
    Ring& rg = rings[ring];
    uint64_t local = id & kLocalMask;
    if (rg.size == 0 || local >= rg.head || local < rg.tail) return nullptr;
    return &rg.slot(local);
}

// Size the slots, heap and dependency pool of a ring to the run's configuration
// (kept across runs when unchanged; the heap is reserved, not committed).
void ensure_ring(const PtoSimConfig& c, Ring& rg) {
    if (rg.size != c.task_ring_size) {
        rg.chunks.clear();
        rg.chunks.shrink_to_fit();
        rg.chunks.resize((c.task_ring_size + kSlotChunk - 1) / kSlotChunk);   // none allocated yet
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

// Empty a ring at the start of a run (slots, heap and pool stay allocated).
void ring_reset(Ring& rg) {
    rg.head = rg.tail = 0;
    rg.heap_head = rg.heap_tail = rg.heap_used = 0;
    rg.dep_used = 0;
    rg.scope_begin = 0;
}

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

// Charge the heap placement found by heap_fit (`off`, `len`) for `bytes` of outputs to `t`.
void heap_take(Ring& rg, Task& t, uint64_t off, uint64_t len, uint64_t bytes) {
    t.heap_begin = rg.heap_head;
    t.heap_len = len;
    t.heap_end = rg.heap_head;
    if (len) {
        uint64_t e = off + bytes;
        if (e == rg.heap_size) e = 0;
        t.heap_end = e;
        rg.heap_head = e;
        rg.heap_used += len;
    }
}

// Retire the oldest slots that are done with; returns how many were retired.
uint64_t ring_retire(Ring& rg) {
    uint64_t n = 0;
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
        ++n;
    }
    return n;
}

// A scope opens on this ring: tasks from here on belong to it.
void ring_open_scope(Ring& rg) { rg.scope_begin = rg.head; }

// Release the live slots from local sequence number `from` on (their scope closed);
// false when the ring was never used.
bool ring_release_from(Ring& rg, uint64_t from) {
    if (rg.size == 0) return false;
    for (uint64_t l = std::max(from, rg.tail); l < rg.head; ++l) rg.slot(l).scope_released = true;
    return true;
}

}  // namespace
