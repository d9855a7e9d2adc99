// comm_context.h -- the CommContext a distributed kernel receives (docs/distributed.md).
//
// Each DistributedTensor parameter of a chip function brings one hidden trailing uint64
// scalar: the address of this struct. 1056 bytes, the layout of the hardware's; every offset
// is checked below and mirrored by ptokit/distributed/commctx.py (tested against each other).
// On the simulator windowsIn[k] is where rank k's window is mapped in the reading process,
// and windowsOut equals windowsIn. A peer address is
//     local + (windowsIn[peer] - windowsIn[rankId]).
#ifndef PTOKIT_COMM_CONTEXT_H
#define PTOKIT_COMM_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#ifndef __gm__
#define __gm__
#endif

#define PTO_COMM_MAX_RANKS 64

struct CommContext {
    uint64_t workSpace;                         // 0: zero on the simulator
    uint64_t workSpaceSize;                     // 8: zero on the simulator
    int32_t rankId;                             // 16
    int32_t rankNum;                            // 20
    uint64_t winSize;                           // 24: bytes of each rank's window
    uint64_t windowsIn[PTO_COMM_MAX_RANKS];     // 32
    uint64_t windowsOut[PTO_COMM_MAX_RANKS];    // 544
};

static_assert(sizeof(CommContext) == 1056, "CommContext is 1056 bytes");
static_assert(offsetof(CommContext, rankId) == 16, "CommContext.rankId");
static_assert(offsetof(CommContext, rankNum) == 20, "CommContext.rankNum");
static_assert(offsetof(CommContext, winSize) == 24, "CommContext.winSize");
static_assert(offsetof(CommContext, windowsIn) == 32, "CommContext.windowsIn");
static_assert(offsetof(CommContext, windowsOut) == 544, "CommContext.windowsOut");

// The address of `local` (inside this rank's window) in rank `peer`'s window.
template <typename T>
inline __gm__ T* comm_peer_ptr(const __gm__ CommContext* ctx, __gm__ T* local, int32_t peer) {
    const uint64_t a = (uint64_t)(uintptr_t)local;
    return (__gm__ T*)(uintptr_t)(a - ctx->windowsIn[ctx->rankId] + ctx->windowsIn[peer]);
}

#endif
