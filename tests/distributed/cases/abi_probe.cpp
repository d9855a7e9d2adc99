// Layout probes of the distributed ABI structs: CommContext (comm_context.h), PtoCommWindow and
// PtoCommOps (pto/cpu_sim_hooks.h), PtoSimBoardRecord (ptosim_api.h).
#include <stddef.h>
#include <stdint.h>

#include "comm_context.h"
#include "pto/cpu_sim_hooks.h"
#include "ptosim_api.h"

#define OFF(T, f) (uint64_t)offsetof(T, f)

extern "C" int comm_context_layout(uint64_t* out) {
    const uint64_t v[] = {sizeof(CommContext), OFF(CommContext, workSpace), OFF(CommContext, workSpaceSize),
                          OFF(CommContext, rankId), OFF(CommContext, rankNum), OFF(CommContext, winSize),
                          OFF(CommContext, windowsIn), OFF(CommContext, windowsOut)};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; ++i) out[i] = v[i];
    return (int)(sizeof v / sizeof v[0]);
}

extern "C" int comm_ops_layout(uint64_t* out) {
    const uint64_t v[] = {sizeof(PtoCommWindow), OFF(PtoCommWindow, base), OFF(PtoCommWindow, size),
                          OFF(PtoCommWindow, peer), OFF(PtoCommWindow, domain),
                          sizeof(PtoCommOps), OFF(PtoCommOps, abi), OFF(PtoCommOps, rank), OFF(PtoCommOps, nranks),
                          OFF(PtoCommOps, nwindows), OFF(PtoCommOps, windows), OFF(PtoCommOps, ctx),
                          OFF(PtoCommOps, read), OFF(PtoCommOps, write), OFF(PtoCommOps, notify), OFF(PtoCommOps, wait)};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; ++i) out[i] = v[i];
    return (int)(sizeof v / sizeof v[0]);
}

extern "C" int board_layout(uint64_t* out) {
    const uint64_t v[] = {sizeof(PtoSimBoardRecord), OFF(PtoSimBoardRecord, progress_ns), OFF(PtoSimBoardRecord, op_start_ns),
                          OFF(PtoSimBoardRecord, pid), OFF(PtoSimBoardRecord, state), OFF(PtoSimBoardRecord, dispatch),
                          OFF(PtoSimBoardRecord, op), OFF(PtoSimBoardRecord, op_active), OFF(PtoSimBoardRecord, peer),
                          OFF(PtoSimBoardRecord, offset), OFF(PtoSimBoardRecord, expected), OFF(PtoSimBoardRecord, seen),
                          OFF(PtoSimBoardRecord, value), OFF(PtoSimBoardRecord, cmp), OFF(PtoSimBoardRecord, task_seq),
                          OFF(PtoSimBoardRecord, func_id), OFF(PtoSimBoardRecord, core_id), OFF(PtoSimBoardRecord, chip),
                          OFF(PtoSimBoardRecord, kernel), OFF(PtoSimBoardRecord, reserved)};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; ++i) out[i] = v[i];
    return (int)(sizeof v / sizeof v[0]);
}
