/*
 * Signal cells on the CPU: the int32 words TNOTIFY changes and TWAIT watches.
 *
 * One definition, used by the tile library (signals in plain GM, and its stand-alone
 * fallback) and by the simulator's shared-memory transport (signals in windows mapped by
 * several processes): a notify is a sequentially consistent __atomic add or store followed
 * by a futex wake on the word (a shared futex, so waiters in other processes wake too); a
 * wait tests the word and otherwise futex-waits in slices of at most 10 ms, re-testing the
 * word and the deadline. Nothing spins.
 *
 * Valid C and C++ (Linux).
 */
#ifndef PTO_CPU_COMM_SIGNAL_H
#define PTO_CPU_COMM_SIGNAL_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PTO_SIGNAL_SLICE_NS 10000000LL   /* the longest single futex wait */

static inline int64_t pto_signal_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* `value cmp expected` for the PTO_COMM_CMP_* codes (pto::comm::WaitCmp order). */
static inline int pto_signal_compare(int32_t value, int32_t expected, int32_t cmp) {
    switch (cmp) {
        case 0: return value == expected;
        case 1: return value != expected;
        case 2: return value > expected;
        case 3: return value >= expected;
        case 4: return value < expected;
        case 5: return value <= expected;
    }
    return 0;
}

static inline const char* pto_signal_cmp_text(int32_t cmp) {
    switch (cmp) {
        case 0: return "==";
        case 1: return "!=";
        case 2: return ">";
        case 3: return ">=";
        case 4: return "<";
        case 5: return "<=";
    }
    return "?";
}

/* op 0: atomic add, 1: store; then wake every waiter of the word. */
static inline void pto_signal_apply(int32_t* cell, int32_t value, int32_t op) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);      /* release: earlier writes land first */
    if (op == 1)
        __atomic_store_n(cell, value, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add(cell, value, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, cell, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/* Test the word; if false, one futex wait of at most min(10 ms, deadline - now). 1 when the
 * comparison holds (acquire), else 0; *seen: the value read last. */
static inline int pto_signal_wait_slice(int32_t* cell, int32_t expected, int32_t cmp, int64_t deadline_ns,
                                        int32_t* seen) {
    int32_t v = __atomic_load_n(cell, __ATOMIC_SEQ_CST);
    if (seen) *seen = v;
    if (pto_signal_compare(v, expected, cmp)) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return 1;
    }
    int64_t left = deadline_ns - pto_signal_now_ns();
    if (left <= 0) return 0;
    if (left > PTO_SIGNAL_SLICE_NS) left = PTO_SIGNAL_SLICE_NS;
    struct timespec ts;
    ts.tv_sec = (time_t)(left / 1000000000LL);
    ts.tv_nsec = (long)(left % 1000000000LL);
    /* returns at a wake, at the timeout, or at once when the word no longer holds v */
    syscall(SYS_futex, cell, FUTEX_WAIT, v, &ts, NULL, 0);
    v = __atomic_load_n(cell, __ATOMIC_SEQ_CST);
    if (seen) *seen = v;
    if (pto_signal_compare(v, expected, cmp)) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return 1;
    }
    return 0;
}

#endif /* PTO_CPU_COMM_SIGNAL_H */
