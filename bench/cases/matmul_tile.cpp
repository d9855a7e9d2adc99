// TMATMUL of the CPU tile library, timed in C++ (bench/run.py): 128x128x128 and the largest L0
// tiles of each platform (a2a3: Left/Right 64 KiB, Acc 128 KiB; a5: Acc 256 KiB).
// Stand-alone (-DPTO_CPU_STANDALONE): the tiles live in the library's default core, whose Acc
// buffer is widened to a5's 256 KiB for the a5 shapes.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pto/pto-inst.hpp"
using namespace pto;

namespace {

int64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void widen_acc_to_a5() {
    static void* buf = nullptr;
    PtoCpuCore* c = cpu::core();
    if (c->space_size[PTO_CPU_SPACE_ACC] >= 262144) return;
    buf = aligned_alloc(4096, 262144);
    memset(buf, 0, 262144);
    c->space_base[PTO_CPU_SPACE_ACC] = (uint8_t*)buf;
    c->space_size[PTO_CPU_SPACE_ACC] = 262144;
}

// a: MxK, b: KxN row-major elements of T; out: MxN f32.  Runs TMATMUL `reps` times and writes each
// call's time in ns to times[0..reps).
template <typename T, int M, int K, int N>
void run(const void* a, const void* b, float* out, int64_t* times, int reps) {
    if (M * N * 4 > 131072) widen_acc_to_a5();
    TileLeft<T, M, K> l;
    TileRight<T, K, N> r;
    TileAcc<float, M, N> c;
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(c, 0);
    memcpy(l.data(), a, sizeof(T) * M * K);
    memcpy(r.data(), b, sizeof(T) * K * N);
    for (int i = 0; i < reps; ++i) {
        const int64_t t0 = now_ns();
        TMATMUL(c, l, r);
        times[i] = now_ns() - t0;
    }
    memcpy(out, c.data(), sizeof(float) * M * N);
}

template <typename T>
void shape(int which, const void* a, const void* b, float* out, int64_t* times, int reps) {
    switch (which) {
        case 0: run<T, 128, 128, 128>(a, b, out, times, reps); break;   // the classic row
        case 1: run<T, 128, 256, 128>(a, b, out, times, reps); break;   // a2a3, 16-bit: Left/Right 64 KiB
        case 2: run<T, 256, 128, 256>(a, b, out, times, reps); break;   // a5, 16-bit: Acc 256 KiB
        case 3: run<T, 256, 64, 256>(a, b, out, times, reps); break;    // a5, f32: Left/Right 64 KiB
        default: break;
    }
}

}  // namespace

// dtype: 0 = f32, 1 = f16 (IEEE half bits), 2 = bf16 (bits); which: the shape (see shape()).
extern "C" __attribute__((visibility("default"))) void bench_matmul(int dtype, int which, const void* a, const void* b,
                                                                  float* out, int64_t* times, int reps) {
    if (dtype == 1)
        shape<half>(which, a, b, out, times, reps);
    else if (dtype == 2)
        shape<bfloat16_t>(which, a, b, out, times, reps);
    else
        shape<float>(which, a, b, out, times, reps);
}
