// Hand-written test kernels for the simulator runtime (tests/runtime/test_sim*.py).
// One kernel per build, selected with -DK_<NAME>; each exports kernel_entry(int64_t* args).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "intrinsic.h"
#include "pto/cpu_sim_hooks.h"
#include "tensor.h"

static inline ChipTensor* T(int64_t* args, int i) { return reinterpret_cast<ChipTensor*>(args[i]); }
template <typename V>
static inline V S(int64_t* args, int i) {
    V v;
    uint64_t u = (uint64_t)args[i];
    memcpy(&v, &u, sizeof(V));
    return v;
}
static inline void sleep_ms(int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms % 1000) * 1000000)};
    nanosleep(&ts, nullptr);
}
// element offset (from the view origin) of the i-th element in row-major order of the view
static inline uint64_t at(const ChipTensor* t, uint64_t i) {
    uint64_t off = 0;
    for (int d = (int)t->ndims - 1; d >= 0; --d) {
        off += (i % t->shapes[d]) * t->strides[d];
        i /= t->shapes[d];
    }
    return off;
}
// this block's share [lo, hi) of n elements
static inline void share(int64_t* args, uint64_t n, uint64_t* lo, uint64_t* hi) {
    uint64_t k = (uint64_t)get_block_num(args), b = (uint64_t)get_block_idx(args);
    uint64_t chunk = (n + k - 1) / k;
    *lo = b * chunk < n ? b * chunk : n;
    *hi = *lo + chunk < n ? *lo + chunk : n;
}

extern "C" void kernel_entry(int64_t* args) {
#if defined(K_SCALE)  // t1 = t0 * s0 (float)
    float* in = T(args, 0)->data<float>();
    float* out = T(args, 1)->data<float>();
    float s = S<float>(args, 2);
    uint64_t lo, hi;
    share(args, T(args, 1)->numel(), &lo, &hi);
    for (uint64_t i = lo; i < hi; ++i) out[at(T(args, 1), i)] = in[at(T(args, 0), i)] * s;
#elif defined(K_ADD)  // t2 = t0 + t1
    float* a = T(args, 0)->data<float>();
    float* b = T(args, 1)->data<float>();
    float* z = T(args, 2)->data<float>();
    uint64_t lo, hi;
    share(args, T(args, 2)->numel(), &lo, &hi);
    for (uint64_t i = lo; i < hi; ++i) z[i] = a[i] + b[i];
#elif defined(K_INC)  // t0 += 1 (inout)
    float* x = T(args, 0)->data<float>();
    uint64_t lo, hi;
    share(args, T(args, 0)->numel(), &lo, &hi);
    for (uint64_t i = lo; i < hi; ++i) x[at(T(args, 0), i)] += 1.0f;
#elif defined(K_SLOW_PLUS1)  // sleep s0 ms, then t1 = t0 + 1
    sleep_ms(S<int64_t>(args, 2));
    float* in = T(args, 0)->data<float>();
    float* out = T(args, 1)->data<float>();
    for (uint64_t i = 0; i < T(args, 1)->numel(); ++i) out[i] = in[i] + 1.0f;
#elif defined(K_SLEEP)  // (t0, ms): sleep ms
    sleep_ms(S<int64_t>(args, 1));  // after one tensor arg
#elif defined(K_BLOCKID)  // row block_idx of t0 (int32 [K, 4]) = {idx, num, core, sub_block}
    int32_t* out = T(args, 0)->data<int32_t>();
    int32_t b = get_block_idx(args);
    const LocalContext* lc = reinterpret_cast<const LocalContext*>(args[PTO_ARGS_LOCAL_CONTEXT_INDEX]);
    out[b * 4 + 0] = b;
    out[b * 4 + 1] = get_block_num(args);
    out[b * 4 + 2] = lc->core_id;
    out[b * 4 + 3] = get_sub_block_id(args);
    sleep_ms(S<int64_t>(args, 1));
#elif defined(K_LANE_AIC)  // mixed, cube side: out[b*4] = 7, push 1000*b + lane to each vector lane
    int32_t* out = T(args, 0)->data<int32_t>();
    int32_t b = get_block_idx(args);
    out[b * 4 + 0] = 7;
    PtoCpuCore* core = pto_cpu_current_core();
    for (int32_t lane = 0; lane < 2; ++lane) {
        int32_t v = 1000 * b + lane;
        if (pto_cpu_fifo_push(core, 0, PTO_CPU_FIFO_C2V, lane, &v, sizeof v, 64, 2) != PTO_CPU_FIFO_OK)
            pto_cpu_fatal("TPUSH", "fifo push failed");
    }
    out[b * 4 + 3] = core->cluster_id;
#elif defined(K_LANE_AIV)  // mixed, vector side: out[b*4 + 1 + lane] = popped value
    int32_t* out = T(args, 0)->data<int32_t>();
    int32_t b = get_block_idx(args);
    int32_t lane = get_sub_block_id(args);
    int32_t v = -1;
    PtoCpuCore* core = pto_cpu_current_core();
    if (pto_cpu_fifo_pop(core, 0, PTO_CPU_FIFO_C2V, lane, &v, sizeof v, 64, 2) != PTO_CPU_FIFO_OK)
        pto_cpu_fatal("TPOP", "fifo pop failed");
    pto_cpu_fifo_free(core, 0, PTO_CPU_FIFO_C2V, lane);
    out[b * 4 + 1 + lane] = v + (core->lane == lane ? 0 : 100000);
#elif defined(K_SEGV)
    volatile int* p = nullptr;
    *p = 42;
#elif defined(K_FATAL)
    pto_cpu_fatal("TLOAD", "tile offset 999999 exceeds the Vec capacity");
#elif defined(K_ABORT)
    if (T(args, 0)->numel() > 0) abort();
#elif defined(K_NOOP)
    (void)args;
#else
#error "select a kernel with -DK_<NAME>"
#endif
}
