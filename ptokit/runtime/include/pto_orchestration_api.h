// pto_orchestration_api.h -- the PTO2 orchestration API used by orchestration C++.
//
// An orchestration shared object includes this header from exactly ONE translation
// unit.  The header defines the exported binder `pto2_orchestration_bind`, which the
// runtime calls with its function table before `aicpu_orchestration_config` /
// `aicpu_orchestration_entry`; every runtime call below goes through that table, so
// the .so has no link-time dependency on the runtime.  (A second TU of the same .so
// may include the header after `#define PTO2_NO_BINDER`; it then must not call the
// rt_* functions itself.)
//
// The simulator runtime includes this header with PTO2_RUNTIME_INTERNAL defined to
// get the data types only.
#ifndef PTOKIT_PTO_ORCHESTRATION_API_H
#define PTOKIT_PTO_ORCHESTRATION_API_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <array>
#include <cstdio>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "tensor.h"

constexpr uint32_t CORE_MAX_TENSOR_ARGS = 32;
constexpr uint32_t CORE_MAX_SCALAR_ARGS = 16;
constexpr uint32_t CHIP_MAX_TENSOR_ARGS = 256;
constexpr uint32_t PTO2_MAX_EXPLICIT_DEPS = 64;
constexpr int PTO2_MAX_SCOPE_DEPTH = 4;

typedef uint64_t PTO2TaskId;
constexpr PTO2TaskId PTO2_INVALID_TASK_ID = UINT64_MAX;
constexpr int32_t INVALID_KERNEL_ID = -1;

// Runtime error codes (runtime.md "Errors").
enum PTO2ErrorCode : int32_t {
    PTO2_OK = 0,
    PTO2_ERR_SCOPE_DEADLOCK = 1,
    PTO2_ERR_HEAP_RING_DEADLOCK = 2,
    PTO2_ERR_FLOW_CONTROL_DEADLOCK = 3,
    PTO2_ERR_DEP_POOL_OVERFLOW = 4,
    PTO2_ERR_INVALID_ARGS = 5,
    PTO2_ERR_INVALID_SYNC_START = 7,
    PTO2_ERR_TENSOR_WAIT_TIMEOUT = 8,
    PTO2_ERR_EXPLICIT_FATAL = 9,
    PTO2_ERR_LOAD = 10,
    PTO2_ERR_SCHEDULER_TIMEOUT = 100,
    PTO2_ERR_KERNEL_FAULT = 101,
};

// 64-bit scalar encoding: the value's bytes in the low bytes, the rest zero.
template <typename T>
inline uint64_t to_u64(T v) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "to_u64: scalar of at most 8 bytes");
    uint64_t u = 0;
    memcpy(&u, &v, sizeof(T));
    return u;
}

template <typename T>
inline T from_u64(uint64_t u) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "from_u64: scalar of at most 8 bytes");
    T v;
    memcpy(&v, &u, sizeof(T));
    return v;
}

// The orchestration function's own arguments (tensors first, then scalars).
struct ChipTaskArgs {
    struct TensorArg {
        const ChipTensor* ptr;
        const ChipTensor& ref() const { return *ptr; }
        operator const ChipTensor&() const { return *ptr; }
    };
    const ChipTensor* tensors_;
    uint32_t tensor_count_;
    const uint64_t* scalars_;
    uint32_t scalar_count_;

    TensorArg tensor(uint32_t i) const { return TensorArg{tensors_ + (i < tensor_count_ ? i : 0)}; }
    uint64_t scalar(uint32_t i) const { return i < scalar_count_ ? scalars_[i] : 0; }
    uint32_t tensor_count() const { return tensor_count_; }
    uint32_t scalar_count() const { return scalar_count_; }
    uint32_t arg_count() const { return tensor_count_ + scalar_count_; }
};

struct PTO2OrchestrationConfig {
    int32_t expected_arg_count;
};

// A tensor the runtime allocates for a task output (from its heap ring).
struct TensorCreateInfo {
    uint32_t shapes[CHIP_TENSOR_MAX_DIMS];
    uint32_t ndims;
    DataType dtype;
    bool manual_dep;   // the created tensor is never tracked (ChipTensor::manual_dep); its creator still is

    TensorCreateInfo(const uint32_t* shapes_in, uint32_t ndims_in, DataType dtype_in, bool manual_dep_in = false)
        : ndims(ndims_in), dtype(dtype_in), manual_dep(manual_dep_in) {
        for (uint32_t i = 0; i < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++i)
            shapes[i] = (i < ndims_in && shapes_in) ? shapes_in[i] : 1;
    }
};

enum class PTO2ArgKind : uint8_t { INPUT = 0, OUTPUT = 1, OUTPUT_EXISTING = 2, INOUT = 3, NO_DEP = 4 };

// Reasons a CoreTaskArgs is invalid (reported as error 5 when it is submitted).
enum PTO2ArgError : int32_t {
    PTO2_ARG_OK = 0,
    PTO2_ARG_TENSOR_AFTER_SCALAR = 1,
    PTO2_ARG_TOO_MANY_TENSORS = 2,
    PTO2_ARG_TOO_MANY_SCALARS = 3,
    PTO2_ARG_TOO_MANY_DEPS = 4,
    PTO2_ARG_BAD_CREATE_INFO = 5,
    PTO2_ARG_BAD_TENSOR = 6,
    PTO2_ARG_BAD_PREDICATE = 7,
};

// A dispatch predicate (CoreTaskArgs::set_predicate): the task runs only when
// `element OP literal` holds for one element of a tensor, read when the task becomes ready.
enum PTO2CmpOp : int32_t { PTO2_CMP_EQ = 0, PTO2_CMP_NE = 1, PTO2_CMP_LT = 2, PTO2_CMP_LE = 3, PTO2_CMP_GT = 4, PTO2_CMP_GE = 5 };

struct PTO2Predicate {
    ChipTensor tensor;   // the tensor (its writers become producers of the task)
    uint64_t element;    // element index from the buffer start (start_offset + sum idx * stride)
    int64_t literal;
    int32_t op;          // PTO2CmpOp
    bool active;
};

struct PTO2LaunchSpec {
    int32_t block_num_ = 1;
    bool sync_start_ = false;
    void set_block_num(int32_t n) { block_num_ = n; }
    int32_t block_num() const { return block_num_; }
    // All blocks must start together: needs block_num <= cores of the task's type (else error 7).
    void set_sync_start(bool on) { sync_start_ = on; }
    bool sync_start() const { return sync_start_; }
};

// Arguments of one task: tensors (tagged) first, then scalars, plus explicit deps.
struct CoreTaskArgs {
    ChipTensor tensors_[CORE_MAX_TENSOR_ARGS];
    PTO2ArgKind kinds_[CORE_MAX_TENSOR_ARGS];
    uint64_t scalars_[CORE_MAX_SCALAR_ARGS];
    PTO2TaskId deps_[PTO2_MAX_EXPLICIT_DEPS];
    uint32_t tensor_count_ = 0;
    uint32_t scalar_count_ = 0;
    uint32_t dep_count_ = 0;
    int32_t error_ = PTO2_ARG_OK;
    uint32_t error_index_ = 0;
    PTO2LaunchSpec launch_spec;
    uint32_t dump_mask_ = 0;                  // bit i: tensor arg i is dumped (enable_dump_args=1)
    const char* const* arg_names_ = nullptr;  // tensor arg names (dump file names), or null
    PTO2Predicate predicate_;
    int32_t site_ = -1;                       // submission site (the race checker's reports), or -1
    uint32_t nodep_read_only_ = 0;            // bit i: NO_DEP tensor arg i is only read (race checker)

    CoreTaskArgs() { predicate_.active = false; }

    void add_input(const ChipTensor& t) { push_(t, PTO2ArgKind::INPUT); }
    template <typename... Rest>
    void add_input(const ChipTensor& t, const Rest&... rest) {
        push_(t, PTO2ArgKind::INPUT);
        add_input(rest...);
    }
    void add_output(const ChipTensor& t) { push_(t, PTO2ArgKind::OUTPUT_EXISTING); }
    void add_output(const TensorCreateInfo& ci) {
        ChipTensor t;
        memset(&t, 0, sizeof(t));
        t.owner_task_id = PTO2_INVALID_TASK_ID;
        t.ndims = ci.ndims;
        t.dtype = ci.dtype;
        t.is_contiguous = true;
        t.address_space = ADDRESS_SPACE_DEVICE;
        t.manual_dep = ci.manual_dep;
        if (ci.ndims < 1 || ci.ndims > (uint32_t)CHIP_TENSOR_MAX_DIMS || get_element_size(ci.dtype) == 0) {
            set_error_(PTO2_ARG_BAD_CREATE_INFO);
        } else {
            uint32_t stride = 1;
            for (int i = (int)ci.ndims - 1; i >= 0; --i) {
                t.shapes[i] = ci.shapes[i];
                t.strides[i] = stride;
                stride *= ci.shapes[i];
            }
            t.extent_elem_cache = stride;
        }
        push_(t, PTO2ArgKind::OUTPUT);
    }
    void add_inout(const ChipTensor& t) { push_(t, PTO2ArgKind::INOUT); }
    void add_no_dep(const ChipTensor& t) { push_(t, PTO2ArgKind::NO_DEP); }
    // A NO_DEP arg the kernel only reads (the race checker then counts it as a read, not a write).
    void add_no_dep(const ChipTensor& t, bool read_only) {
        if (read_only && tensor_count_ < 32) nodep_read_only_ |= 1u << tensor_count_;
        push_(t, PTO2ArgKind::NO_DEP);
    }
    // Which submission site of the orchestration this is (named in race reports).
    void set_site(int32_t site) { site_ = site; }
    void add_scalar(uint64_t v) {
        if (scalar_count_ >= CORE_MAX_SCALAR_ARGS) {
            set_error_(PTO2_ARG_TOO_MANY_SCALARS);
            return;
        }
        scalars_[scalar_count_++] = v;
    }
    template <typename T, typename std::enable_if<!std::is_same<T, uint64_t>::value, int>::type = 0>
    void add_scalar(T v) { add_scalar(to_u64(v)); }
    // An explicit edge; PTO2_INVALID_TASK_ID (an empty TaskId) adds none.
    void add_dep(PTO2TaskId id) {
        if (id == PTO2_INVALID_TASK_ID) return;
        if (dep_count_ >= PTO2_MAX_EXPLICIT_DEPS) {
            set_error_(PTO2_ARG_TOO_MANY_DEPS);
            return;
        }
        deps_[dep_count_++] = id;
    }

    // Every valid id of a TaskId array.
    template <size_t N>
    void add_deps(const std::array<PTO2TaskId, N>& ids) {
        for (PTO2TaskId id : ids) add_dep(id);
    }
    // Tensor arg `i` (in add order) is written to the argument dump when the task completes.
    void mark_dump(uint32_t i) {
        if (i < 32) dump_mask_ |= 1u << i;
    }
    // Names of the tensor args, in add order (must outlive the run: string literals).
    void set_arg_names(const char* const* names) { arg_names_ = names; }
    // Run the task only when t[idx] OP literal (idx: one index per dimension of t).
    void set_predicate(const ChipTensor& t, std::initializer_list<int64_t> idx, int32_t op, int64_t literal) {
        uint64_t e = t.start_offset;
        uint32_t d = 0;
        if (idx.size() != t.ndims || op < PTO2_CMP_EQ || op > PTO2_CMP_GE) {
            set_error_(PTO2_ARG_BAD_PREDICATE);
            return;
        }
        for (int64_t i : idx) {
            if (i < 0 || (uint64_t)i >= t.shapes[d]) {
                set_error_(PTO2_ARG_BAD_PREDICATE);
                return;
            }
            e += (uint64_t)i * t.strides[d++];
        }
        predicate_.tensor = t;
        predicate_.element = e;
        predicate_.literal = literal;
        predicate_.op = op;
        predicate_.active = true;
    }

    uint32_t tensor_count() const { return tensor_count_; }
    uint32_t scalar_count() const { return scalar_count_; }
    uint32_t dep_count() const { return dep_count_; }

   private:
    void set_error_(int32_t e) {
        if (error_ == PTO2_ARG_OK) {
            error_ = e;
            error_index_ = tensor_count_ + scalar_count_;
        }
    }
    void push_(const ChipTensor& t, PTO2ArgKind k) {
        if (scalar_count_ > 0) {
            set_error_(PTO2_ARG_TENSOR_AFTER_SCALAR);
            return;
        }
        if (tensor_count_ >= CORE_MAX_TENSOR_ARGS) {
            set_error_(PTO2_ARG_TOO_MANY_TENSORS);
            ++tensor_count_;  // remembered for the message; never indexes past the array
            return;
        }
        tensors_[tensor_count_] = t;
        kinds_[tensor_count_] = k;
        ++tensor_count_;
    }
};

// What a submission returns: the task id and the runtime-allocated outputs
// (get_ref(i) is the i-th add_output(TensorCreateInfo) of the task, in order).  The
// references point into the runtime's record of the task: they stay valid until the
// PTO2_SCOPE that submitted the task ends (do not let them escape it).
struct TaskOutputTensors {
    PTO2TaskId task_id_ = PTO2_INVALID_TASK_ID;
    uint32_t count_ = 0;
    const ChipTensor* base_ = nullptr;          // the task's tensor args (runtime-owned)
    uint8_t index_[CORE_MAX_TENSOR_ARGS] = {};  // output i -> tensor arg index

    PTO2TaskId task_id() const { return task_id_; }
    uint32_t size() const { return count_; }
    const ChipTensor& get_ref(uint32_t i) const;  // defined below (out of range is fatal)
};

struct MixedKernels {
    int32_t aic;
    int32_t aiv0;
    int32_t aiv1;
};

// DUMMY: no kernel; the task completes as soon as its producers have (pl.system.task_dummy).
enum PTO2TaskKind : int32_t { PTO2_TASK_AIV = 0, PTO2_TASK_AIC = 1, PTO2_TASK_MIXED = 2, PTO2_TASK_DUMMY = 3 };

// The runtime's function table (filled by the runtime, passed to the binder).
struct PTO2RuntimeOps {
    uint32_t version;
    uint32_t size;
    void (*submit)(void* rt, int32_t kind, const int32_t* func_ids, const CoreTaskArgs* args, TaskOutputTensors* out);
    void (*scope_begin)(void* rt);
    void (*scope_end)(void* rt);
    void (*fatal)(void* rt, int32_t code, const char* message);  // does not return
    void (*wait_tensor)(void* rt, const ChipTensor* t);           // block until its writers finish
    void (*wait_task)(void* rt, PTO2TaskId id);
    // Block until no unfinished task may write `t` (for_write: nor read it): before host access.
    void (*wait_access)(void* rt, const ChipTensor* t, int32_t for_write);
    // A MANUAL scope: tensor dependencies between its tasks are not tracked, only explicit deps.
    void (*scope_begin_manual)(void* rt);
    // Launchable cores of this run: kind 0 = clusters (MIX / AIC), 1 = standalone AIV cores.
    // Appended later: callers check `size` before using it.
    int32_t (*available_cores)(void* rt, int32_t kind);
};

constexpr uint32_t PTO2_RUNTIME_OPS_VERSION = 3;

#ifndef PTO2_RUNTIME_INTERNAL

namespace pto2_detail {
static const PTO2RuntimeOps* g_ops = nullptr;
static void* g_rt = nullptr;

[[noreturn]] static inline void fatal(int32_t code, const char* msg) {
    if (g_ops) g_ops->fatal(g_rt, code, msg);
    __builtin_trap();
}

static inline TaskOutputTensors submit(int32_t kind, int32_t a, int32_t b, int32_t c, const CoreTaskArgs& args) {
    TaskOutputTensors out;
    int32_t ids[3] = {a, b, c};
    if (!g_ops) fatal(PTO2_ERR_INVALID_ARGS, "orchestration API used before the runtime bound it");
    g_ops->submit(g_rt, kind, ids, &args, &out);
    return out;
}

struct ScopeGuard {
    bool first_ = true;
    explicit ScopeGuard(bool manual = false) {
        if (!g_ops) return;
        if (manual && g_ops->size >= sizeof(PTO2RuntimeOps) && g_ops->scope_begin_manual)
            g_ops->scope_begin_manual(g_rt);
        else
            g_ops->scope_begin(g_rt);
    }
    ~ScopeGuard() {
        if (g_ops) g_ops->scope_end(g_rt);
    }
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;
    bool once() {
        bool f = first_;
        first_ = false;
        return f;
    }
};
}  // namespace pto2_detail

#ifndef PTO2_NO_BINDER
extern "C" __attribute__((visibility("default"))) void pto2_orchestration_bind(const PTO2RuntimeOps* ops, void* rt) {
    pto2_detail::g_ops = ops;
    pto2_detail::g_rt = rt;
}
#endif

inline const ChipTensor& TaskOutputTensors::get_ref(uint32_t i) const {
    if (i >= count_) pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, "TaskOutputTensors::get_ref: index out of range");
    return base_[index_[i]];
}

static inline TaskOutputTensors rt_submit_aiv_task(int32_t func_id, const CoreTaskArgs& args) {
    return pto2_detail::submit(PTO2_TASK_AIV, func_id, INVALID_KERNEL_ID, INVALID_KERNEL_ID, args);
}
static inline TaskOutputTensors rt_submit_aic_task(int32_t func_id, const CoreTaskArgs& args) {
    return pto2_detail::submit(PTO2_TASK_AIC, func_id, INVALID_KERNEL_ID, INVALID_KERNEL_ID, args);
}
static inline TaskOutputTensors rt_submit_task(const MixedKernels& mk, const CoreTaskArgs& args) {
    return pto2_detail::submit(PTO2_TASK_MIXED, mk.aic, mk.aiv0, mk.aiv1, args);
}
// A task with no kernel that completes when every explicit dep has (a dependency join).
static inline TaskOutputTensors rt_submit_dummy_task(const CoreTaskArgs& args) {
    return pto2_detail::submit(PTO2_TASK_DUMMY, INVALID_KERNEL_ID, INVALID_KERNEL_ID, INVALID_KERNEL_ID, args);
}
// Runtime-created tensors that exist before any task writes them (a pl.create_tensor first
// read, or read and written, by a task): one task with no kernel whose outputs they are;
// get_ref(i) is the i-th.  Like every runtime-allocated output they start zero-filled.
template <typename... Infos>
static inline TaskOutputTensors alloc_tensors(const TensorCreateInfo& first, const Infos&... rest) {
    CoreTaskArgs args;
    args.add_output(first);
    (args.add_output(rest), ...);
    return rt_submit_dummy_task(args);
}
// Aliases with the vendor's pto2_ prefix.
static inline TaskOutputTensors pto2_rt_submit_aiv_task(int32_t f, const CoreTaskArgs& a) { return rt_submit_aiv_task(f, a); }
static inline TaskOutputTensors pto2_rt_submit_aic_task(int32_t f, const CoreTaskArgs& a) { return rt_submit_aic_task(f, a); }

// Fail the run with error 9 and `msg`; never returns.
// pl.system.available_cluster_count() / available_aiv_count(): the launch widths that keep every
// block of an SPMD task resident at once (what a hard pl.system.syncall needs).
static inline int32_t rt_available_cores(int32_t kind) {
    using namespace pto2_detail;
    if (!g_ops || g_ops->size < offsetof(PTO2RuntimeOps, available_cores) + sizeof(g_ops->available_cores) ||
        !g_ops->available_cores)
        fatal(PTO2_ERR_INVALID_ARGS, "the runtime does not report its core counts");
    return g_ops->available_cores(g_rt, kind);
}
static inline int32_t rt_available_cluster_count() { return rt_available_cores(0); }
static inline int32_t rt_available_aiv_count() { return rt_available_cores(1); }

[[noreturn]] static inline void rt_fatal(const char* msg) { pto2_detail::fatal(PTO2_ERR_EXPLICIT_FATAL, msg); }

// Two tensor arguments disagree on a dynamic dimension the orchestration reads: error 5.
[[noreturn]] static inline void rt_dim_mismatch(const char* dim, const char* a, uint32_t na, const char* b,
                                                uint32_t nb) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "dynamic dimension %s is %u in %s and %u in %s", dim, na, a, nb, b);
    pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, msg);
}

// Block the orchestrator until every task writing `t` (or the task `id`) has finished.
// Under host_build_graph nothing runs before the orchestration returns: error 8.
static inline void rt_wait_tensor(const ChipTensor& t) {
    if (pto2_detail::g_ops) pto2_detail::g_ops->wait_tensor(pto2_detail::g_rt, &t);
}
static inline void rt_wait_task(PTO2TaskId id) {
    if (pto2_detail::g_ops) pto2_detail::g_ops->wait_task(pto2_detail::g_rt, id);
}

// A view of `base`: same buffer (and owner), `ndims` == base.ndims, element offsets
// per dimension added to the origin, new shapes, same strides.  A view reaching past the end of
// `base` is cut at its end, as a Python slice is (an origin past the end gives an empty view).
static inline ChipTensor make_tensor_view(const ChipTensor& base, const uint32_t* shapes, const uint32_t* offsets,
                                          uint32_t ndims) {
    if (ndims != base.ndims || ndims < 1 || ndims > (uint32_t)CHIP_TENSOR_MAX_DIMS)
        pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, "make_tensor_view: ndims must equal the base tensor's ndims");
    ChipTensor v = base;
    uint64_t origin = base.start_offset;
    for (uint32_t i = 0; i < ndims; ++i) {
        uint32_t off = offsets ? offsets[i] : 0;
        if (off > base.shapes[i]) off = base.shapes[i];
        uint32_t room = base.shapes[i] - off;
        origin += (uint64_t)off * base.strides[i];
        v.shapes[i] = shapes[i] < room ? shapes[i] : room;
    }
    // contiguous iff every dimension inside the outermost non-unit one is whole
    bool contiguous = base.is_contiguous;
    uint32_t k = 0;
    while (k < ndims && v.shapes[k] == 1) ++k;
    for (uint32_t i = k + 1; i < ndims; ++i)
        if (v.shapes[i] != base.shapes[i]) contiguous = false;
    v.start_offset = origin;
    v.is_contiguous = contiguous;
    v.extent_elem_cache = v.numel();
    return v;
}

// `v` seen with another shape, its elements in the same row-major order (pl.reshape of a tensor in
// orchestration code): `v` must be one contiguous block and keep its element count, else error 5.
static inline ChipTensor make_tensor_reshape(const ChipTensor& v, const uint32_t* shapes, uint32_t ndims,
                                             const char* what) {
    if (ndims < 1 || ndims > (uint32_t)CHIP_TENSOR_MAX_DIMS)
        pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, "make_tensor_reshape: ndims must be 1..5");
    uint64_t n = 1;
    for (uint32_t i = 0; i < ndims; ++i) n *= shapes[i];
    if (n != v.numel()) {
        char msg[256];
        std::snprintf(msg, sizeof msg, "%s: the tensor has %llu elements at run time, the new shape %llu", what,
                      (unsigned long long)v.numel(), (unsigned long long)n);
        pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, msg);
    }
    if (!v.is_contiguous && n > 1) {
        char msg[256];
        std::snprintf(msg, sizeof msg, "%s: the tensor is not one contiguous block at run time", what);
        pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, msg);
    }
    ChipTensor r = v;
    r.ndims = ndims;
    uint64_t stride = 1;
    for (uint32_t i = ndims; i-- > 0;) {
        r.shapes[i] = shapes[i];
        r.strides[i] = (uint32_t)stride;
        stride *= shapes[i];
    }
    for (uint32_t i = ndims; i < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++i) r.shapes[i] = 0, r.strides[i] = 0;
    r.is_contiguous = true;
    r.extent_elem_cache = r.numel();
    return r;
}

// `v` with axes `a` and `b` swapped (sizes and strides; same origin): pl.transpose of a tensor in
// orchestration code. A kernel reads its tensor arguments row-major from the origin, as pypto's do.
static inline ChipTensor make_tensor_transpose(const ChipTensor& v, uint32_t a, uint32_t b) {
    if (a >= v.ndims || b >= v.ndims)
        pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, "make_tensor_transpose: axis out of range");
    ChipTensor r = v;
    std::swap(r.shapes[a], r.shapes[b]);
    std::swap(r.strides[a], r.strides[b]);
    uint64_t expect = 1;
    bool contiguous = true;
    for (uint32_t i = r.ndims; i-- > 0;) {
        if (r.shapes[i] != 1 && r.strides[i] != expect) contiguous = false;
        expect *= r.shapes[i];
    }
    r.is_contiguous = v.is_contiguous && contiguous;
    return r;
}

// A window whose sizes were known only at run time, passed to a kernel: kernels address their
// tensors row-major, so a window that is not one contiguous block is error 5.
static inline void rt_require_contiguous(const ChipTensor& v, const char* what) {
    if (!v.is_contiguous) pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, what);
}

// ---- host access to tensor elements and small arrays (orchestration code)

namespace pto2_detail {
// The address of element `idx` (one index per dimension) of `t`; out of range is error 5.
static inline uint8_t* element_addr(const ChipTensor& t, std::initializer_list<int64_t> idx, uint32_t size) {
    if (idx.size() != t.ndims) fatal(PTO2_ERR_INVALID_ARGS, "host tensor access: one index per dimension is needed");
    if (size != t.element_size()) fatal(PTO2_ERR_INVALID_ARGS, "host tensor access: wrong element type for the tensor's dtype");
    uint64_t e = t.start_offset;
    uint32_t d = 0;
    for (int64_t i : idx) {
        if (i < 0 || (uint64_t)i >= t.shapes[d]) fatal(PTO2_ERR_INVALID_ARGS, "host tensor access: index out of range");
        e += (uint64_t)i * t.strides[d++];
    }
    return reinterpret_cast<uint8_t*>(t.buffer.addr) + e * size;
}
}  // namespace pto2_detail

// The current value of t[idx], after every task that may write it has finished.
template <typename T>
static inline T rt_tensor_read(const ChipTensor& t, std::initializer_list<int64_t> idx) {
    if (pto2_detail::g_ops) pto2_detail::g_ops->wait_access(pto2_detail::g_rt, &t, 0);
    T v;
    memcpy(&v, pto2_detail::element_addr(t, idx, sizeof(T)), sizeof(T));
    return v;
}
// t[idx] = v, after every task that may read or write t has finished.
template <typename T>
static inline void rt_tensor_write(const ChipTensor& t, std::initializer_list<int64_t> idx, T v) {
    if (pto2_detail::g_ops) pto2_detail::g_ops->wait_access(pto2_detail::g_rt, &t, 1);
    memcpy(pto2_detail::element_addr(t, idx, sizeof(T)), &v, sizeof(T));
}

// pl.array values: small fixed-size arrays updated functionally (an update is a new value).
template <typename T, size_t N>
static inline std::array<T, N> rt_array_new(T fill) {
    std::array<T, N> a;
    a.fill(fill);
    return a;
}
template <typename T, size_t N>
static inline T rt_array_get(const std::array<T, N>& a, int64_t i) {
    if (i < 0 || (uint64_t)i >= N) pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, "pl.array: index out of range");
    return a[(size_t)i];
}
template <typename T, size_t N, typename V>
static inline std::array<T, N> rt_array_set(std::array<T, N> a, int64_t i, V v) {
    if (i < 0 || (uint64_t)i >= N) pto2_detail::fatal(PTO2_ERR_INVALID_ARGS, "pl.array: index out of range");
    a[(size_t)i] = static_cast<T>(v);
    return a;
}

#define PTO2_SCOPE_CAT2_(a, b) a##b
#define PTO2_SCOPE_CAT_(a, b) PTO2_SCOPE_CAT2_(a, b)
// `PTO2_SCOPE() { ... }`: tasks submitted inside are released when the block ends.
#define PTO2_SCOPE_IMPL_(guard) for (pto2_detail::ScopeGuard guard; guard.once();)
#define PTO2_SCOPE() PTO2_SCOPE_IMPL_(PTO2_SCOPE_CAT_(pto2_scope_, __COUNTER__))
// `PTO2_SCOPE_MANUAL() { ... }`: a MANUAL scope -- the tasks inside are ordered among themselves
// by their explicit deps only (add_dep); tensor dependencies between them are not tracked.
#define PTO2_SCOPE_MANUAL_IMPL_(guard) for (pto2_detail::ScopeGuard guard(true); guard.once();)
#define PTO2_SCOPE_MANUAL() PTO2_SCOPE_MANUAL_IMPL_(PTO2_SCOPE_CAT_(pto2_scope_, __COUNTER__))

#endif  // PTO2_RUNTIME_INTERNAL

#endif  // PTOKIT_PTO_ORCHESTRATION_API_H
