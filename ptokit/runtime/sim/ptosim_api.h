// ptosim_api.h -- the C API of libptosim (the simulator runtime library).
//
// Python (ptokit/runtime/sim/driver.py) mirrors these structs with ctypes.
#ifndef PTOKIT_PTOSIM_API_H
#define PTOKIT_PTOSIM_API_H

#include <stdint.h>

#include "tensor.h"

extern "C" {

typedef struct PtoSimConfig {
    int32_t platform;          // 0 = a2a3sim, 1 = a5sim
    int32_t runtime_kind;      // 0 = tensormap_and_ringbuffer, 1 = host_build_graph
    int32_t aicpu_thread_num;  // 0 = platform default
    int32_t clusters;          // simulated clusters (1 AIC + 2 AIV each)
    int32_t debug_nan_fill;
    int32_t record_args;       // 1: keep each task's tensor arg kinds/dtypes/shapes (ptosim_result_args; traces)
    int32_t dump_args;         // argument dump: 0 off, 1 the args a task marks (mark_dump), 2 every tensor arg
    double timeout_s;          // no-progress timeout of the run
    uint64_t task_ring_size;   // task slots per ring
    uint64_t heap_size;        // bytes per heap ring
    uint64_t dep_pool_size;    // dependency edges per ring
    int32_t race_check;        // race checker: 0 off, 1 tasks of MANUAL scopes and untracked args, 2 every task
    int32_t schedule;          // ready-task order: 0 default, 1 reverse (newest ready first), 2 seeded random,
                               // 3 auto: reverse under race_check 2, under race_check 1 from the first task
                               // submitted in a MANUAL scope on (after the earlier tasks are done), else 0
    uint64_t schedule_seed;    // seed of schedule 2
    int32_t no_fusion;         // 1: fused runs of the built-in assembler take their unfused path
    int32_t estimate;          // 1: estimated device time per block (ptosim_result_estimates; docs/estimate.md)
} PtoSimConfig;

typedef struct PtoSimKernel {
    int32_t func_id;
    int32_t core_type;         // 0 = AIC, 1 = AIV, -1 = unknown
    const char* path;          // kernel .so
    const char* name;          // for messages
} PtoSimKernel;

typedef struct PtoSimStats {
    int64_t elapsed_ns;
    uint64_t tasks;
    uint64_t blocks;
    uint64_t edges;
    uint64_t records;
    int32_t abandoned;         // 1: a core or the orchestrator was still stuck in user code
    int32_t schedulers;        // aicpu_thread_num - 1
    int32_t schedule;          // the ready-task order the run used (0 default, 1 reverse, 2 seeded random) ...
    uint64_t schedule_from;    // ... from this submission number on (before it: the default order)
} PtoSimStats;

// One dispatched block (one lane of a mixed block), times relative to the run start.
typedef struct PtoSimBlockRecord {
    uint64_t task_seq;         // submission number 0, 1, 2, ...
    uint64_t task_id;          // opaque runtime task id (PTO2TaskId)
    int32_t func_id;
    int32_t block_idx;
    int32_t core_id;
    int32_t lane;              // -1 AIC, 0/1 AIV lane
    int64_t submit_ns;
    int64_t ready_ns;
    int64_t dispatch_ns;
    int64_t start_ns;
    int64_t end_ns;
} PtoSimBlockRecord;

// Estimated device time of one block record (PtoSimConfig.estimate; docs/estimate.md): cycles from the
// block's start on its core, per pipe in the order Scalar, MTE2, MTE1, CUBE, FIXP, VEC, MTE3.
typedef struct PtoSimEstimate {
    uint64_t cycles;           // until the block's last instruction ends
    uint64_t instructions;     // instructions with an estimate
    uint64_t busy[7];          // cycles each pipe was busy
    uint64_t first[7];         // when each pipe first started (0 with busy 0: never)
    uint64_t last[7];          // when each pipe last finished
    uint64_t start;            // device cycle the block starts at in the run's device schedule (docs/estimate.md)
} PtoSimEstimate;

typedef struct PtoSimEdge {
    uint64_t producer_seq;
    uint64_t consumer_seq;
} PtoSimEdge;

// A TPUSH/TPOP that had to wait on a cross-core FIFO (recorded only when cfg.record_args).
typedef struct PtoSimFifoWait {
    uint64_t task_seq;
    int32_t core_id;
    int32_t lane;              // the waiting core's lane (-1 AIC, 0/1 AIV)
    int32_t pipe;
    int32_t dir;               // 1 C2V, 2 V2C
    int32_t op;                // 0 TPUSH (FIFO full), 1 TPOP (FIFO empty)
    int32_t fifo_lane;         // the vector lane of the FIFO
    int64_t start_ns;
    int64_t end_ns;
} PtoSimFifoWait;

// One dumped tensor argument (cfg.dump_args): its contents right after its task completed, as
// `bytes` contiguous row-major bytes at `offset` of the dump data (ptosim_result_dump_data).
typedef struct PtoSimDump {
    uint64_t task_seq;
    uint64_t offset;
    uint64_t bytes;
    int32_t func_id;           // the task's kernel (the AIC one of a mixed task)
    uint32_t arg;              // tensor arg index
    uint32_t kind;             // PTO2ArgKind
    uint32_t dtype;            // DataType
    uint32_t ndims;
    uint32_t shapes[5];
    char name[64];             // the arg's name (CoreTaskArgs::set_arg_names), or empty
} PtoSimDump;

// A data race the checker found (cfg.race_check): two tasks that touched overlapping
// global-memory bytes, at least one writing (two atomic adds do not race), with no path of
// dependency edges between them -- or two blocks of one SPMD task that did.
typedef struct PtoSimRace {
    uint64_t seq_a, seq_b;     // the earlier and the later submission
    int32_t site_a, site_b;    // CoreTaskArgs::set_site of each, or -1
    int32_t func_a, func_b;    // their kernels (the AIC one of a mixed task)
    uint32_t arg_a, arg_b;     // tensor arg index in each task
    int32_t kind;              // 0 RAW (a writes, b reads), 1 WAR (a reads, b writes), 2 WAW
    int32_t manual;            // bit 0: inside a MANUAL scope; bit 1: seq_b was submitted in a scope nested
                               // deeper than seq_a's, bit 2: seq_a in a deeper one
    uint64_t buffer;           // the buffer's address
    uint64_t lo, hi;           // the first overlapping touched elements [lo, hi) from the buffer start
    uint32_t dtype;            // DataType of the later task's arg
    uint32_t untracked;        // 1: an arg of either task is NO_DEP or a manual_dep tensor
    int32_t block_a, block_b;  // seq_a == seq_b: two SPMD blocks of one task; else -1
} PtoSimRace;

// One rank's record on the status board of a distributed run (256 bytes, in shared memory;
// ptokit/distributed/board.py mirrors it). The rank's worker writes state, dispatch and
// chip; the comm hooks write the op fields and the kernel; both write progress_ns
// (CLOCK_MONOTONIC, the clock of Python's time.monotonic_ns).
typedef struct PtoSimBoardRecord {
    int64_t progress_ns;       // 0: the rank's last progress
    int64_t op_start_ns;       // 8: when the last comm op began
    int32_t pid;               // 16
    int32_t state;             // 20: worker state (board.py STATES)
    int32_t dispatch;          // 24: sequence number of the dispatch running, -1 none
    int32_t op;                // 28: last comm op (board.py OPS: 1 TNOTIFY, 2 TWAIT, 3 TPUT, 4 TGET, 5 TLOAD, 6 TSTORE)
    int32_t op_active;         // 32: 1 while inside it
    int32_t peer;              // 36: the rank whose window it touched
    uint64_t offset;           // 40: byte offset in that window
    int32_t expected;          // 48: TWAIT: the value waited for
    int32_t seen;              // 52: TWAIT: the value read last
    int32_t value;             // 56: TNOTIFY: the value applied
    int32_t cmp;               // 60: TWAIT comparison (PTO_COMM_CMP_*) / TNOTIFY op
    uint64_t task_seq;         // 64: simulator task of the core that did it
    int32_t func_id;           // 72
    int32_t core_id;           // 76
    char chip[56];             // 80: the chip program of the running dispatch
    char kernel[64];           // 136: the kernel of the op
    char reserved[56];         // 200
} PtoSimBoardRecord;

// Run one program.  Returns 0 or an error code (runtime.md); on error `err` holds the
// message.  `*result` (always set, may be NULL) must be released with ptosim_result_free.
int ptosim_run(const PtoSimConfig* cfg, const char* orch_path, const char* orch_func,
               const PtoSimKernel* kernels, int32_t nkernels,
               const ChipTensor* tensors, int32_t ntensors, const uint64_t* scalars, int32_t nscalars,
               char* err, int32_t errlen, PtoSimStats* stats, void** result);

uint64_t ptosim_result_records(void* result, PtoSimBlockRecord* out, uint64_t cap);
uint64_t ptosim_result_edges(void* result, PtoSimEdge* out, uint64_t cap);
// Tensor args of every task (only when cfg.record_args): uint32 words, per task
// seq_lo, seq_hi, ntensors, then per tensor kind | dtype << 8 | ndims << 16 followed by
// ndims shapes.  Returns the number of words (copies at most cap).
uint64_t ptosim_result_args(void* result, uint32_t* out, uint64_t cap);
uint64_t ptosim_result_fifo_waits(void* result, PtoSimFifoWait* out, uint64_t cap);
// Submission numbers of the tasks their dispatch predicate skipped, in skip order.
uint64_t ptosim_result_skipped(void* result, uint64_t* out, uint64_t cap);
// The argument dump: records, and the bytes they point into.
uint64_t ptosim_result_dumps(void* result, PtoSimDump* out, uint64_t cap);
uint64_t ptosim_result_dump_data(void* result, uint8_t* out, uint64_t cap);
// The races the checker found (at most 256 kept; the return value is the number found).
uint64_t ptosim_result_races(void* result, PtoSimRace* out, uint64_t cap);
// One PtoSimEstimate per block record, in record order (cfg.estimate; zeros otherwise).
uint64_t ptosim_result_estimates(void* result, PtoSimEstimate* out, uint64_t cap);
void ptosim_result_free(void* result);

// Distributed runs (docs/distributed.md). `table` is the transport of this process's windows
// (copied, with its window list; NULL uninstalls); `board`: this rank's status-board record, or
// NULL. Returns 0, or -1 for a table of another PTO_COMM_ABI or with too many windows. Waits
// for a run in progress to end.
struct PtoCommOps;   // pto/cpu_sim_hooks.h
int ptosim_comm_install(const struct PtoCommOps* table, PtoSimBoardRecord* board);
// The shared-memory transport: fills read/write/notify/wait (memcpy, atomics, futex waits).
void ptosim_comm_shm_table(struct PtoCommOps* out);
// [addr, addr+size) pairs (2n words) that pto_cpu_check_gm accepts during the next run
// (windows, the host-tensor arena); consumed by that run.
void ptosim_set_extra_gm(const uint64_t* pairs, int32_t n);
// The CommContexts (comm_context.h, 1056 bytes each) the next run's kernels may read with LOAD_SCALAR
// (a window's !pto.ptr<i64> context parameter); consumed by that run.
void ptosim_set_comm_ctx(const uint64_t* addrs, int32_t n);
// (addr, size, orchestration argument index) triples (3n words): input arrays the next run reads
// in place; a checked write into one fails its task (pto_cpu_check_gm_write). Consumed by that run.
void ptosim_set_readonly(const uint64_t* triples, int32_t n);

// Join and free the device threads (idempotent).
void ptosim_shutdown(void);

// Layout probes for the Python mirror.
uint64_t ptosim_sizeof(int32_t which);
}

#endif
