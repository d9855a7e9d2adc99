// A hand-written AIV kernel (tests/e2e/test_external_kernel.py): block b reads row b of `x` and writes
// row b of `y` as x * k + b. Arguments in the order the DSL declares them: tensors, then scalars.
#include <cstdint>
#include <pto/pto-inst.hpp>

#include "intrinsic.h"
#include "tensor.h"

#include "../common/row_layout.h"

extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
    __gm__ ChipTensor* xt = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
    __gm__ ChipTensor* yt = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
    const __gm__ float* x = reinterpret_cast<__gm__ float*>(xt->buffer.addr) + xt->start_offset;
    __gm__ float* y = reinterpret_cast<__gm__ float*>(yt->buffer.addr) + yt->start_offset;
    const int64_t k = args[2];
    const int32_t b = get_block_idx(args);
    for (int j = 0; j < ROW_FLOATS; ++j) {
        y[b * ROW_FLOATS + j] = x[b * ROW_FLOATS + j] * static_cast<float>(k) + static_cast<float>(b);
    }
    dcci(&y[b * ROW_FLOATS], 0, 0);
}
