// The orchestration of every hand-written chip tree of tests/distributed: one AIV task of kernel
// func_id 0 with every tensor argument (ARG_KINDS: one letter per tensor, I input, O output,
// W inout -- windows are inout whatever their annotation, peers change them unseen) and every
// scalar (user scalars, then the CommContext addresses), BLOCKS blocks.
#include <stdint.h>

#include "pto_orchestration_api.h"

#ifndef ARG_KINDS
#error "define ARG_KINDS"
#endif
#ifndef BLOCKS
#define BLOCKS 1
#endif

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& a) {
    return PTO2OrchestrationConfig{.expected_arg_count = (int32_t)a.arg_count()};
}

__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs& a) {
    static const char kinds[] = ARG_KINDS;
    if (a.tensor_count() != sizeof(kinds) - 1) rt_fatal("tensor count does not match ARG_KINDS");
    PTO2_SCOPE() {
        CoreTaskArgs p;
        for (uint32_t i = 0; i < a.tensor_count(); ++i) {
            const ChipTensor& t = a.tensor(i).ref();
            if (kinds[i] == 'I') p.add_input(t);
            else if (kinds[i] == 'O') p.add_output(t);
            else p.add_inout(t);
        }
        for (uint32_t j = 0; j < a.scalar_count(); ++j) p.add_scalar(a.scalar(j));
        p.launch_spec.set_block_num(BLOCKS);
        rt_submit_aiv_task(0, p);
    }
}
}
