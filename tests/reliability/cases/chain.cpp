// A chain of n no-op tasks, each INOUT on y (tests/reliability/test_runtime_limits.py).
// Built once per role:
//   -DC_NOOP     the kernel (does nothing);
//   -DC_FLAT     orchestration (y, n): every task outside any scope (held until it returns);
//   -DC_SCOPED   orchestration (y, n): one PTO2_SCOPE per task, so finished tasks retire.
#include <stdint.h>

#if defined(C_NOOP)
extern "C" __attribute__((visibility("default"))) void kernel_entry(int64_t* args) { (void)args; }

#else
#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& a) {
    return PTO2OrchestrationConfig{.expected_arg_count = (int32_t)a.arg_count()};
}

__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
    const ChipTensor& y = orch_args.tensor(0).ref();
    const int64_t n = from_u64<int64_t>(orch_args.scalar(0));
    for (int64_t i = 0; i < n; ++i) {
#if defined(C_SCOPED)
        PTO2_SCOPE() {
#endif
            CoreTaskArgs p;
            p.add_inout(y);
            rt_submit_aiv_task(0, p);
#if defined(C_SCOPED)
        }
#endif
    }
}
}
#endif
