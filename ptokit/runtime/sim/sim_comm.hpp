// sim_comm.hpp -- windows and signals of distributed runs (part of the single translation unit
// ptosim.cpp; not a public header).
//
// Owns: the process's installed comm table (the transport of this rank's windows, see
// PtoCommOps in pto/cpu_sim_hooks.h) and its status-board record; the comm hooks of the tile
// library (pto_cpu_comm_ops/read/write/notify/wait), which look the address up in the window
// list, record the op on the board, note progress and call the transport -- a signal outside
// every window is changed in place with the same atomics; the shared-memory transport
// (memcpy, atomics, futex); and the extra GM ranges a run accepts (windows, the arena).
//
// Waits are bounded by 0.9 x the run's timeout, go in slices of at most 10 ms and end early
// when the run fails. The table changes only between runs (ptosim_comm_install takes the run
// lock), so the hooks read it without a lock.
#pragma once

#include "sim_common.hpp"
#include "sim_device.hpp"
#include "sim_run.hpp"

#ifdef PTOSIM_HAVE_FIFO_HOOKS
#include "pto/cpu/atomic.hpp"
#include "pto/cpu_comm_signal.h"

namespace {

constexpr double kStandaloneTimeoutS = 60.0;   // a wait outside any run (not expected)

struct CommState {
    bool installed = false;
    PtoCommOps table;
    std::vector<PtoCommWindow> windows;
    PtoSimBoardRecord* board = nullptr;
};
CommState g_comm;
std::vector<std::pair<uint64_t, uint64_t>> g_extra_gm;   // for the next run (ptosim_set_extra_gm)
std::vector<uint64_t> g_readonly;                         // for the next run (ptosim_set_readonly)
std::vector<uint64_t> g_comm_ctx;                         // for the next run (ptosim_set_comm_ctx)

const PtoCommOps* comm_table() { return g_comm.installed ? &g_comm.table : nullptr; }

// Board op codes (ptokit/distributed/board.py OPS).
enum { OP_NONE = 0, OP_TNOTIFY = 1, OP_TWAIT = 2, OP_TPUT = 3, OP_TGET = 4, OP_TLOAD = 5, OP_TSTORE = 6, OP_OTHER = 7 };

int op_code(const char* instr) {
    static const char* const names[] = {"", "TNOTIFY", "TWAIT", "TPUT", "TGET", "TLOAD", "TSTORE"};
    for (int i = 1; i < 7; ++i)
        if (instr && strcmp(instr, names[i]) == 0) return i;
    return OP_OTHER;
}

template <typename T>
void board_set(T* field, T v) { __atomic_store_n(field, v, __ATOMIC_RELAXED); }

void board_begin(int op, int32_t peer, uint64_t offset, int32_t expected, int32_t value, int32_t cmp) {
    PtoSimBoardRecord* b = g_comm.board;
    if (!b) return;
    const int64_t now = mono_ns();
    board_set(&b->op, (int32_t)op);
    board_set(&b->peer, peer);
    board_set(&b->offset, offset);
    board_set(&b->expected, expected);
    board_set(&b->value, value);
    board_set(&b->cmp, cmp);
    board_set(&b->op_start_ns, now);
    board_set(&b->op_active, (int32_t)1);
    board_set(&b->progress_ns, now);
    Core* c = t_core;
    Run* r = g_active_run.load(std::memory_order_acquire);
    if (c && c->cur.task && r) {
        board_set(&b->task_seq, (uint64_t)c->cur.task->seq);
        board_set(&b->func_id, c->cur.func_id);
        board_set(&b->core_id, c->id);
        const std::string& k = r->kernels[c->cur.func_id].name;
        const size_t n = std::min(k.size(), sizeof b->kernel - 1);
        memcpy(b->kernel, k.data(), n);
        b->kernel[n] = 0;
    }
}

void board_end(int32_t seen) {
    PtoSimBoardRecord* b = g_comm.board;
    if (!b) return;
    board_set(&b->seen, seen);
    board_set(&b->op_active, (int32_t)0);
    board_set(&b->progress_ns, mono_ns());
}

void comm_progress() {
    Run* r = g_active_run.load(std::memory_order_acquire);
    if (r) note_progress(r, mono_ns());
}

// ---------------------------------------------------------------------------
// the shared-memory transport
// ---------------------------------------------------------------------------

void* window_addr(const PtoCommWindow* w, uint64_t off) { return (void*)(uintptr_t)(w->base + off); }

int shm_read(void*, const PtoCommWindow* w, uint64_t off, void* dst, uint64_t bytes) {
    memcpy(dst, window_addr(w, off), bytes);
    return PTO_COMM_OK;
}

int shm_write(void*, const PtoCommWindow* w, uint64_t off, const void* src, uint64_t bytes, int32_t atomic, int32_t dtype) {
    if (atomic == PTO_COMM_WRITE_ATOMIC_ADD)
        return pto::cpu::atomic_add_bytes(window_addr(w, off), src, bytes, dtype) ? PTO_COMM_OK : PTO_COMM_ERROR;
    memcpy(window_addr(w, off), src, bytes);
    return PTO_COMM_OK;
}

int shm_notify(void*, const PtoCommWindow* w, uint64_t off, int32_t value, int32_t op) {
    pto_signal_apply((int32_t*)window_addr(w, off), value, op);
    return PTO_COMM_OK;
}

int shm_wait(void*, const PtoCommWindow* w, uint64_t off, int32_t expected, int32_t cmp, int64_t deadline_ns, int32_t* seen) {
    return pto_signal_wait_slice((int32_t*)window_addr(w, off), expected, cmp, deadline_ns, seen) ? PTO_COMM_OK
                                                                                                  : PTO_COMM_TIMEOUT;
}

// Install (or, table NULL, remove) the process's comm table; the caller holds the run lock.
int comm_install_locked(const PtoCommOps* table, PtoSimBoardRecord* board) {
    if (!table) {
        g_comm.installed = false;
        g_comm.windows.clear();
        g_comm.board = board;
        return 0;
    }
    if (table->abi != PTO_COMM_ABI || table->nwindows > PTO_COMM_MAX_WINDOWS || (table->nwindows && !table->windows) ||
        !table->read || !table->write || !table->notify || !table->wait)
        return -1;
    g_comm.windows.assign(table->windows, table->windows + table->nwindows);
    g_comm.table = *table;
    g_comm.table.windows = g_comm.windows.data();
    g_comm.board = board;
    g_comm.installed = true;
    return 0;
}

}  // namespace

// ---------------------------------------------------------------------------
// hooks for the CPU tile library (pto/cpu_sim_hooks.h)
// ---------------------------------------------------------------------------

extern "C" __attribute__((visibility("default"))) const PtoCommOps* pto_cpu_comm_ops(void) { return comm_table(); }

extern "C" __attribute__((visibility("default"))) int pto_cpu_comm_read(const char* instr, const void* src, void* dst,
                                                                        uint64_t bytes) {
    const PtoCommOps* t = comm_table();
    const PtoCommWindow* w = nullptr;
    uint64_t off = 0;
    if (pto_comm_find(t, src, bytes, &w, &off) != 1) return PTO_COMM_BAD_ADDRESS;
    board_begin(op_code(instr), w->peer, off, 0, 0, 0);
    const int rc = t->read(t->ctx, w, off, dst, bytes);
    board_end(0);
    comm_progress();
    return rc;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_comm_write(const char* instr, void* dst, const void* src,
                                                                         uint64_t bytes, int32_t atomic, int32_t dtype) {
    const PtoCommOps* t = comm_table();
    const PtoCommWindow* w = nullptr;
    uint64_t off = 0;
    if (pto_comm_find(t, dst, bytes, &w, &off) != 1) return PTO_COMM_BAD_ADDRESS;
    board_begin(op_code(instr), w->peer, off, 0, 0, atomic);
    const int rc = t->write(t->ctx, w, off, src, bytes, atomic, dtype);
    board_end(0);
    comm_progress();
    return rc;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_comm_notify(void* cell, int32_t value, int32_t op) {
    const PtoCommOps* t = comm_table();
    const PtoCommWindow* w = nullptr;
    uint64_t off = 0;
    const int found = pto_comm_find(t, cell, 4, &w, &off);
    if (found < 0) return PTO_COMM_BAD_ADDRESS;
    if (found == 0 && !pto_cpu_check_gm(cell, 4)) return PTO_COMM_BAD_ADDRESS;
    board_begin(OP_TNOTIFY, found ? w->peer : -1, off, 0, value, op);
    int rc = PTO_COMM_OK;
    if (found)
        rc = t->notify(t->ctx, w, off, value, op);
    else
        pto_signal_apply((int32_t*)cell, value, op);
    board_end(0);
    comm_progress();
    return rc;
}

extern "C" __attribute__((visibility("default"))) int pto_cpu_comm_wait(void* cell, int32_t expected, int32_t cmp,
                                                                        int32_t* seen) {
    const PtoCommOps* t = comm_table();
    const PtoCommWindow* w = nullptr;
    uint64_t off = 0;
    int32_t value = 0;
    const int found = pto_comm_find(t, cell, 4, &w, &off);
    if (found < 0) return PTO_COMM_BAD_ADDRESS;
    if (found == 0 && !pto_cpu_check_gm(cell, 4)) return PTO_COMM_BAD_ADDRESS;
    Run* r = g_active_run.load(std::memory_order_acquire);
    const int64_t start = mono_ns();
    const double timeout = r ? r->cfg.timeout_s : kStandaloneTimeoutS;
    const int64_t deadline = start + (int64_t)(0.9 * timeout * 1e9);
    if (r) note_progress(r, start);     // the monitor's no-progress deadline comes after this wait's own
    board_begin(OP_TWAIT, found ? w->peer : -1, off, expected, 0, cmp);
    int rc = PTO_COMM_OK;
    for (;;) {
        const int64_t now = mono_ns();
        const int64_t slice = std::min(deadline, now + (int64_t)PTO_SIGNAL_SLICE_NS);
        int ok;
        if (found) {
            rc = t->wait(t->ctx, w, off, expected, cmp, slice, &value);
            if (rc != PTO_COMM_OK && rc != PTO_COMM_TIMEOUT) break;
            ok = rc == PTO_COMM_OK;
        } else {
            ok = pto_signal_wait_slice((int32_t*)cell, expected, cmp, slice, &value);
        }
        if (g_comm.board) board_set(&g_comm.board->seen, value);
        if (ok) {
            rc = PTO_COMM_OK;
            break;
        }
        if (r && r->failed) {
            rc = PTO_COMM_ERROR;
            break;
        }
        if (mono_ns() >= deadline) {
            rc = PTO_COMM_TIMEOUT;
            break;
        }
    }
    if (seen) *seen = value;
    if (rc == PTO_COMM_TIMEOUT) {
        if (g_comm.board) board_set(&g_comm.board->seen, value);   // keep op_active: the rank fails waiting
    } else {
        board_end(value);
        if (rc == PTO_COMM_OK) comm_progress();
    }
    return rc;
}

#endif  // PTOSIM_HAVE_FIFO_HOOKS
