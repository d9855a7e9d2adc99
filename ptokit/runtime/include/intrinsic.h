// intrinsic.h -- SPMD identity of a dispatched kernel, read from the args array.
//
// args[48] holds the address of the per-dispatch LocalContext, args[49] the address
// of the per-core GlobalContext (runtime.md "The args array a kernel receives").
#ifndef PTOKIT_INTRINSIC_H
#define PTOKIT_INTRINSIC_H

#include <stdint.h>

#ifndef __gm__
#define __gm__
#endif

constexpr int PTO_ARGS_LOCAL_CONTEXT_INDEX = 48;
constexpr int PTO_ARGS_GLOBAL_CONTEXT_INDEX = 49;
constexpr int PTO_ARGS_ARRAY_SIZE = 64;

// Per dispatch (one SPMD block).
struct LocalContext {
    int32_t block_idx;     // 0 .. block_num-1
    int32_t block_num;     // number of blocks of the task
    uint64_t task_id;      // runtime task id (opaque)
    int32_t core_id;       // core index the block runs on
    int32_t reserved[5];
};

// Per core.
struct GlobalContext {
    int32_t sub_block_id;  // 0 = AIV0, 1 = AIV1 (0 on the AIC)
    int32_t cluster_id;
    int32_t core_id;
    int32_t core_type;     // 0 = AIC, 1 = AIV
    int32_t reserved[4];
};

// dcci(address, scope, direction): the device's data-cache clean / invalidate after a scalar store
// (hand-written kernels call it); the simulator's cores have no data cache, so it does nothing
template <typename... Args>
static inline __attribute__((always_inline)) void dcci(Args...) {}

static inline __attribute__((always_inline)) int32_t get_block_idx(__gm__ int64_t* args) {
    return reinterpret_cast<__gm__ const LocalContext*>(args[PTO_ARGS_LOCAL_CONTEXT_INDEX])->block_idx;
}

static inline __attribute__((always_inline)) int32_t get_block_num(__gm__ int64_t* args) {
    return reinterpret_cast<__gm__ const LocalContext*>(args[PTO_ARGS_LOCAL_CONTEXT_INDEX])->block_num;
}

static inline __attribute__((always_inline)) int32_t get_sub_block_id(__gm__ int64_t* args) {
    return reinterpret_cast<__gm__ const GlobalContext*>(args[PTO_ARGS_GLOBAL_CONTEXT_INDEX])->sub_block_id;
}

// The runtime-owned DMA workspaces a kernel may use (pl.prefetch: the SDMA one). The CPU runtime
// keeps one per core thread; the CPU prefetch only checks it is there (pto/cpu/prefetch.hpp).
constexpr int DMA_WORKSPACE_SDMA = 0;

static inline __attribute__((always_inline)) __gm__ void* get_dma_workspace(__gm__ int64_t* args, int which) {
    (void)args;
    (void)which;
    static thread_local int64_t sdma_workspace[64];
    return sdma_workspace;
}

#endif  // PTOKIT_INTRINSIC_H
