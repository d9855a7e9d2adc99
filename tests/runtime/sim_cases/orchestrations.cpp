// Hand-written test orchestrations (tests/runtime/test_sim*.py), one per build (-DO_<NAME>).
// func_ids: 0 SCALE, 1 ADD, 2 INC, 3 SLOW_PLUS1, 4 SLEEP, 5 BLOCKID, 6 LANE_AIC, 7 LANE_AIV,
//           8 SEGV, 9 FATAL, 10 NOOP, 11 ABORT
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pto_orchestration_api.h"

#if defined(O_THREAD)
// Touch `kib` KiB of this thread's stack; returns the address of the deepest frame's buffer.
__attribute__((noinline)) static uint64_t touch_stack(int64_t kib) {
    char* buf = static_cast<char*>(__builtin_alloca((size_t)kib * 1024));
    memset(buf, 1, (size_t)kib * 1024);
    __asm__ volatile("" : : "r"(buf) : "memory");
    return (uint64_t)(uintptr_t)buf;
}
#endif

enum { F_SCALE = 0, F_ADD, F_INC, F_SLOW, F_SLEEP, F_BLOCKID, F_LANE_AIC, F_LANE_AIV, F_SEGV, F_FATAL, F_NOOP };

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& a) {
    (void)a;
#if defined(O_CHAIN)
    return PTO2OrchestrationConfig{.expected_arg_count = 3};
#elif defined(O_DIAMOND)
    return PTO2OrchestrationConfig{.expected_arg_count = 2};
#else
    return PTO2OrchestrationConfig{.expected_arg_count = (int32_t)a.arg_count()};
#endif
}

__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
#if defined(O_CHAIN)  // (x IN, out OUT, s): tmp = x*s (runtime-allocated); out = tmp*2
    const ChipTensor& x = orch_args.tensor(0).ref();
    const ChipTensor& out = orch_args.tensor(1).ref();
    float s = from_u64<float>(orch_args.scalar(0));
    PTO2_SCOPE() {
        TensorCreateInfo ci(x.shapes, x.ndims, DataType::FLOAT32);
        CoreTaskArgs p0;
        p0.add_input(x);
        p0.add_output(ci);
        p0.add_scalar(to_u64(s));
        TaskOutputTensors o0 = rt_submit_aiv_task(F_SCALE, p0);
        const ChipTensor& tmp = o0.get_ref(0);
        CoreTaskArgs p1;
        p1.add_input(tmp);
        p1.add_output(out);
        p1.add_scalar(2.0f);
        rt_submit_aiv_task(F_SCALE, p1);
    }
#elif defined(O_DIAMOND)  // (x, out): t = x*1; a = t*2; b = t*3; out = a + b
    const ChipTensor& x = orch_args.tensor(0).ref();
    const ChipTensor& out = orch_args.tensor(1).ref();
    PTO2_SCOPE() {
        TensorCreateInfo ci(x.shapes, x.ndims, DataType::FLOAT32);
        CoreTaskArgs p0;
        p0.add_input(x);
        p0.add_output(ci);
        p0.add_scalar(1.0f);
        TaskOutputTensors o0 = rt_submit_aiv_task(F_SCALE, p0);
        CoreTaskArgs p1;
        p1.add_input(o0.get_ref(0));
        p1.add_output(ci);
        p1.add_scalar(2.0f);
        TaskOutputTensors o1 = rt_submit_aiv_task(F_SCALE, p1);
        CoreTaskArgs p2;
        p2.add_input(o0.get_ref(0));
        p2.add_output(ci);
        p2.add_scalar(3.0f);
        TaskOutputTensors o2 = rt_submit_aiv_task(F_SCALE, p2);
        PTO2_SCOPE() {  // nested scope
            CoreTaskArgs p3;
            p3.add_input(o1.get_ref(0), o2.get_ref(0));
            p3.add_output(out);
            p3.launch_spec.set_block_num(4);
            rt_submit_aiv_task(F_ADD, p3);
        }
    }
#elif defined(O_INOUT_CHAIN)  // (y INOUT, n, per_task_scope, blocks): n x (y += 1)
    const ChipTensor& y = orch_args.tensor(0).ref();
    int64_t n = from_u64<int64_t>(orch_args.scalar(0));
    int64_t scoped = from_u64<int64_t>(orch_args.scalar(1));
    int32_t blocks = (int32_t)from_u64<int64_t>(orch_args.scalar(2));
    auto one = [&]() {
        CoreTaskArgs p;
        p.add_inout(y);
        p.launch_spec.set_block_num(blocks);
        rt_submit_aiv_task(F_INC, p);
    };
    if (scoped) {
        for (int64_t i = 0; i < n; ++i) PTO2_SCOPE() { one(); }
    } else {
        PTO2_SCOPE() {
            for (int64_t i = 0; i < n; ++i) one();
        }
    }
#elif defined(O_ORDER)  // (x, tmp OUT, out OUT, ms): tmp = x + 1 (slow); independent noop; out = tmp * 2
    const ChipTensor& x = orch_args.tensor(0).ref();
    const ChipTensor& tmp = orch_args.tensor(1).ref();
    const ChipTensor& out = orch_args.tensor(2).ref();
    PTO2_SCOPE() {
        CoreTaskArgs p0;
        p0.add_input(x);
        p0.add_output(tmp);
        p0.add_scalar(orch_args.scalar(0));
        rt_submit_aiv_task(F_SLOW, p0);
        CoreTaskArgs pn;
        pn.add_input(x);
        rt_submit_aiv_task(F_NOOP, pn);
        CoreTaskArgs p1;
        p1.add_input(tmp);
        p1.add_output(out);
        p1.add_scalar(2.0f);
        rt_submit_aiv_task(F_SCALE, p1);
    }
#elif defined(O_EXPLICIT_DEP)  // (x, a, out, ms): a = x + 1 (slow, NO_DEP); out = a * 2 with add_dep only
    const ChipTensor& x = orch_args.tensor(0).ref();
    const ChipTensor& a = orch_args.tensor(1).ref();
    const ChipTensor& out = orch_args.tensor(2).ref();
    PTO2_SCOPE() {
        CoreTaskArgs p0;
        p0.add_no_dep(x);
        p0.add_no_dep(a);
        p0.add_scalar(orch_args.scalar(0));
        TaskOutputTensors o0 = rt_submit_aiv_task(F_SLOW, p0);
        CoreTaskArgs p1;
        p1.add_no_dep(a);
        p1.add_no_dep(out);
        p1.add_scalar(2.0f);
        p1.add_dep(o0.task_id());
        rt_submit_aiv_task(F_SCALE, p1);
    }
#elif defined(O_SPMD)  // (out int32 [K,4], K, ms)
    const ChipTensor& out = orch_args.tensor(0).ref();
    CoreTaskArgs p;
    p.add_output(out);
    p.add_scalar(orch_args.scalar(1));
    p.launch_spec.set_block_num((int32_t)from_u64<int64_t>(orch_args.scalar(0)));
    PTO2_SCOPE() { rt_submit_aiv_task(F_BLOCKID, p); }
#elif defined(O_MIXED)  // (out int32 [K,4], K)
    const ChipTensor& out = orch_args.tensor(0).ref();
    CoreTaskArgs p;
    p.add_output(out);
    p.launch_spec.set_block_num((int32_t)from_u64<int64_t>(orch_args.scalar(0)));
    MixedKernels mk = {F_LANE_AIC, F_LANE_AIV, F_LANE_AIV};
    PTO2_SCOPE() { rt_submit_task(mk, p); }
#elif defined(O_VIEWS)  // (x [8,16] IN, out [8,16] OUT): four quadrant tasks via views, then a reader
    const ChipTensor& x = orch_args.tensor(0).ref();
    const ChipTensor& out = orch_args.tensor(1).ref();
    PTO2_SCOPE() {
        for (uint32_t q = 0; q < 4; ++q) {
            uint32_t shp[2] = {4, 8};
            uint32_t off[2] = {(q / 2) * 4, (q % 2) * 8};
            ChipTensor vi = make_tensor_view(x, shp, off, 2);
            ChipTensor vo = make_tensor_view(out, shp, off, 2);
            CoreTaskArgs p;
            p.add_input(vi);
            p.add_output(vo);
            p.add_scalar((float)(q + 1));
            rt_submit_aiv_task(F_SCALE, p);
        }
        CoreTaskArgs p;
        p.add_inout(out);
        rt_submit_aiv_task(F_INC, p);  // depends on all four quadrant writers
    }
#elif defined(O_SCALAR_FIRST)
    const ChipTensor& x = orch_args.tensor(0).ref();
    CoreTaskArgs p;
    p.add_scalar(1.0f);
    p.add_input(x);
    rt_submit_aiv_task(F_NOOP, p);
#elif defined(O_TOO_MANY_TENSORS)
    const ChipTensor& x = orch_args.tensor(0).ref();
    CoreTaskArgs p;
    for (int i = 0; i < 33; ++i) p.add_input(x);
    rt_submit_aiv_task(F_NOOP, p);
#elif defined(O_ONE)  // (x, kernel func id, ms)
    const ChipTensor& x = orch_args.tensor(0).ref();
    CoreTaskArgs p;
    p.add_input(x);
    p.add_scalar(orch_args.scalar(1));
    PTO2_SCOPE() { rt_submit_aiv_task((int32_t)from_u64<int64_t>(orch_args.scalar(0)), p); }
#elif defined(O_FATAL)
    (void)orch_args;
    PTO2_SCOPE() { rt_fatal("boom: the orchestration gave up"); }
#elif defined(O_FAN)  // (x, n): n independent noop tasks
    const ChipTensor& x = orch_args.tensor(0).ref();
    int64_t n = from_u64<int64_t>(orch_args.scalar(0));
    PTO2_SCOPE() {
        for (int64_t i = 0; i < n; ++i) {
            CoreTaskArgs p;
            p.add_input(x);
            rt_submit_aiv_task(F_NOOP, p);
        }
    }
#elif defined(O_NCHAIN)  // (y, n): n dependent noop tasks (INOUT on y)
    const ChipTensor& y = orch_args.tensor(0).ref();
    int64_t n = from_u64<int64_t>(orch_args.scalar(0));
    PTO2_SCOPE() {
        for (int64_t i = 0; i < n; ++i) {
            CoreTaskArgs p;
            p.add_inout(y);
            rt_submit_aiv_task(F_NOOP, p);
        }
    }
#elif defined(O_THREAD)  // (out int64[2] OUT, kib): out = (thread id, an address of kib KiB of touched stack)
    const ChipTensor& out = orch_args.tensor(0).ref();
    int64_t* o = reinterpret_cast<int64_t*>(out.buffer.addr);
    o[0] = (int64_t)syscall(SYS_gettid);
    o[1] = (int64_t)touch_stack(from_u64<int64_t>(orch_args.scalar(0)));
#else
#error "select an orchestration with -DO_<NAME>"
#endif
}
}
