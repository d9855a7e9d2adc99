// Per-task overhead of the simulator runtime (bench/run.py).
// Built once per role:
//   -DB_NOOP   a kernel that does nothing (kernel_entry);
//   -DB_CHAIN  orchestration (y, n): n no-op tasks, each INOUT on y -> a chain of n-1 edges;
//   -DB_FAN    orchestration (x, n): n no-op tasks that only read x -> no edges;
//   -DB_CHAIN_SCOPED  the chain with one PTO2_SCOPE per task (outside any outer scope), so
//              finished tasks retire and n is not bounded by the task ring.
//   -DB_MANUAL_CHAIN  the chain in a MANUAL scope: INOUT on y, ordered by explicit deps only;
//   -DB_MANUAL_FAN    n tasks in a MANUAL scope, each writing its own element of y (n elements):
//              no edges, nothing to report (the race checker's overhead rows).
#include <stdint.h>

#if defined(B_NOOP)
#include "intrinsic.h"
#include "tensor.h"

extern "C" __attribute__((visibility("default"))) void kernel_entry(int64_t* args) { (void)args; }

#else
#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& a) {
    return PTO2OrchestrationConfig{.expected_arg_count = (int32_t)a.arg_count()};
}

__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
    const ChipTensor& t = orch_args.tensor(0).ref();
    const int64_t n = from_u64<int64_t>(orch_args.scalar(0));
#if defined(B_MANUAL_CHAIN) || defined(B_MANUAL_FAN)
    PTO2_SCOPE_MANUAL() {
        PTO2TaskId prev = PTO2_INVALID_TASK_ID;
        for (int64_t i = 0; i < n; ++i) {
            CoreTaskArgs p;
#if defined(B_MANUAL_CHAIN)
            p.add_inout(t);
            p.add_dep(prev);
#else
            uint32_t shape[1] = {1}, off[1] = {(uint32_t)i};
            p.add_output(make_tensor_view(t, shape, off, 1));
#endif
            prev = rt_submit_aiv_task(0, p).task_id();
        }
        (void)prev;
    }
#elif defined(B_CHAIN_SCOPED)
    for (int64_t i = 0; i < n; ++i) {
        PTO2_SCOPE() {
            CoreTaskArgs p;
            p.add_inout(t);
            rt_submit_aiv_task(0, p);
        }
    }
#else
    PTO2_SCOPE() {
        for (int64_t i = 0; i < n; ++i) {
            CoreTaskArgs p;
#if defined(B_CHAIN)
            p.add_inout(t);
#elif defined(B_FAN)
            p.add_input(t);
#else
#error "build with -DB_NOOP, -DB_CHAIN or -DB_FAN"
#endif
            rt_submit_aiv_task(0, p);
        }
    }
#endif
}
}
#endif
