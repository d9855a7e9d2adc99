// The 128x128x128 TMATMUL of the CPU tile library, timed in C++ (bench/run.py).
// Stand-alone (-DPTO_CPU_STANDALONE): the tiles live in the library's default core.
#include <stdint.h>
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

// a, b: 128x128 row-major elements of T; out: 128x128 f32.  Runs TMATMUL `reps` times and
// writes each call's time in ns to times[0..reps).
template <typename T>
void run(const void* a, const void* b, float* out, int64_t* times, int reps) {
    TileLeft<T, 128, 128> l;
    TileRight<T, 128, 128> r;
    TileAcc<float, 128, 128> c;
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(c, 0);
    memcpy(l.data(), a, sizeof(T) * 128 * 128);
    memcpy(r.data(), b, sizeof(T) * 128 * 128);
    for (int i = 0; i < reps; ++i) {
        const int64_t t0 = now_ns();
        TMATMUL(c, l, r);
        times[i] = now_ns() - t0;
    }
    memcpy(out, c.data(), sizeof(float) * 128 * 128);
}

}  // namespace

// dtype: 0 = f32, 1 = f16 (IEEE half bits)
extern "C" __attribute__((visibility("default"))) void bench_matmul128(int dtype, const void* a, const void* b,
                                                                     float* out, int64_t* times, int reps) {
    if (dtype == 1)
        run<half>(a, b, out, times, reps);
    else
        run<float>(a, b, out, times, reps);
}
