/*
 * C hooks between the CPU tile library (pto/pto-inst.hpp) and the simulator runtime.
 * See docs/contracts.md, "C hooks between the CPU tile library and the simulator".
 *
 * Kernels are separate shared objects. They reach the simulator only through these
 * extern "C" functions, declared weak here: the simulator's runtime library (loaded
 * RTLD_GLOBAL before any kernel) defines them; when it is absent the tile library falls
 * back to a thread-local default core and abort() on fatal errors.
 *
 * A runtime library that includes this header to DEFINE the hooks must
 * `#define PTO_CPU_SIM_HOOKS_IMPL` first (drops the weak attribute).
 *
 * Valid C and C++.
 */
#ifndef PTO_CPU_SIM_HOOKS_H
#define PTO_CPU_SIM_HOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory spaces, indexing space_base/space_size (same order as pto::TileType). */
enum {
    PTO_CPU_SPACE_VEC = 0,
    PTO_CPU_SPACE_MAT = 1,
    PTO_CPU_SPACE_LEFT = 2,
    PTO_CPU_SPACE_RIGHT = 3,
    PTO_CPU_SPACE_ACC = 4,
    PTO_CPU_SPACE_BIAS = 5,
    PTO_CPU_SPACE_SCALING = 6,      /* no buffer (capacity 0): pto-isa's Fixpipe scaling space */
    PTO_CPU_SPACE_SCALE_LEFT = 7,   /* a5 MX scales of the Left operand (pl.Mem.LeftScale) */
    PTO_CPU_SPACE_SCALE_RIGHT = 8,  /* a5 MX scales of the Right operand (pl.Mem.RightScale) */
    PTO_CPU_NUM_SPACES = 9
};

typedef struct PtoCpuCore {
    uint8_t* space_base[9];   /* indexed by TileType: Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight */
    uint64_t space_size[9];   /* capacities of runtime.md for the platform (0: no such buffer) */
    int32_t core_id, cluster_id, lane; /* lane: 0/1 for AIV0/AIV1, -1 for AIC */
    int32_t debug_nan_fill;   /* fill newly TASSIGNed float tiles with NaN */
    int32_t no_fusion;        /* fused runs take their unfused path (RunConfig(fusion=False)) */
    int32_t estimate;         /* 1: report each instruction's estimated device cost (pto_cpu_est_op) */
    void* runtime;            /* opaque, for FIFO calls */
} PtoCpuCore;

/* FIFO directions and return codes of the pto_cpu_fifo_* hooks. */
enum { PTO_CPU_FIFO_C2V = 1, PTO_CPU_FIFO_V2C = 2 };
enum {
    PTO_CPU_FIFO_OK = 0,
    PTO_CPU_FIFO_TIMEOUT = 1,   /* the wait exceeded 0.9 x the run's timeout (so it fails before the run's watchdog) */
    PTO_CPU_FIFO_BAD_SIZE = 2,  /* popped slot holds a different byte count, or bytes > slot_size */
    PTO_CPU_FIFO_ERROR = 3      /* anything else (no such FIFO, run aborted, ...) */
};

#if defined(PTO_CPU_SIM_HOOKS_IMPL)
#define PTO_CPU_HOOK_DECL
#else
#define PTO_CPU_HOOK_DECL __attribute__((weak))
#endif

/* The calling core thread's state. */
PTO_CPU_HOOK_DECL PtoCpuCore* pto_cpu_current_core(void);
/* Never returns: fails the task. instr names the instruction (e.g. "TLOAD"). */
PTO_CPU_HOOK_DECL void pto_cpu_fatal(const char* instr, const char* message);
/* 1 if [p, p+bytes) is inside a live GM buffer, else 0. */
PTO_CPU_HOOK_DECL int pto_cpu_check_gm(const void* p, uint64_t bytes);
/*
 * The global-memory span [p, p+bytes) that instruction `instr` (TLOAD, TSTORE) touches must lie
 * inside the tensor argument of the running task it derives from: `origin` is the kernel
 * parameter pointer (the argument's `buffer.addr + start_offset`) its GlobalTensor was made
 * from, or NULL when unknown (then: inside one tensor argument, whichever). elem_size: bytes
 * per element, for the message. Returns when the access is in bounds; otherwise fails the task
 * (never returns) with a message naming the argument and the element range. The library
 * prefers this hook over pto_cpu_check_gm when the runtime defines it.
 */
PTO_CPU_HOOK_DECL void pto_cpu_check_gm_access(const char* instr, const void* origin, const void* p, uint64_t bytes,
                                               uint64_t elem_size);
/*
 * After a checked global access (TLOAD, TSTORE, LOAD_SCALAR, STORE_SCALAR, MGATHER, MSCATTER,
 * TPREFETCH_ASYNC, both sides of TPUT / TGET): the bytes `instr` really touched, as `rows` spans
 * of `len` bytes, the first at p, each `stride` bytes after the previous (rows 1: one span).
 * kind: PTO_CPU_TOUCH_READ, _WRITE or _ATOMIC (an atomic add). The race checker compares what
 * tasks touched. Returns 0 when the runtime does not record the running task (the caller may
 * then skip the rest of an access it reports in pieces), 1 otherwise.
 */
enum { PTO_CPU_TOUCH_READ = 0, PTO_CPU_TOUCH_WRITE = 1, PTO_CPU_TOUCH_ATOMIC = 2 };
PTO_CPU_HOOK_DECL int pto_cpu_note_gm_rows(const char* instr, const void* p, uint64_t len, uint64_t stride,
                                           uint64_t rows, int kind);
/*
 * Before a checked write (TSTORE, STORE_SCALAR, MSCATTER, the destination of TPUT/TGET): the
 * span [p, p+bytes) `instr` is about to write. Returns when the bytes may be written; fails the
 * task (never returns) when they belong to memory the run must not write (the caller's input
 * arrays the simulator reads in place).
 */
PTO_CPU_HOOK_DECL void pto_cpu_check_gm_write(const char* instr, const void* p, uint64_t bytes);

/*
 * Cross-core FIFO. One FIFO per (core->cluster_id, pipe_id, dir, lane); lane is the
 * vector lane (0 = AIV0, 1 = AIV1) at the vector end of the FIFO. Each FIFO has
 * slot_num slots of slot_size bytes (taken from the first call on that FIFO).
 * push: blocks while all slots are full, then copies `bytes` from src into a slot.
 * pop:  blocks while empty, copies the oldest slot (`bytes` must equal what was pushed)
 *       into dst and HOLDS the slot until free (or until the next pop on the same FIFO).
 * free: releases the slot held by the last pop (no-op when none is held).
 * All return PTO_CPU_FIFO_* codes; the library turns a non-zero code into a fatal error
 * naming the instruction and the pipe.
 */
PTO_CPU_HOOK_DECL int pto_cpu_fifo_push(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane,
                                        const void* src, uint64_t bytes, uint32_t slot_size, uint32_t slot_num);
PTO_CPU_HOOK_DECL int pto_cpu_fifo_pop(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane,
                                       void* dst, uint64_t bytes, uint32_t slot_size, uint32_t slot_num);
PTO_CPU_HOOK_DECL int pto_cpu_fifo_free(PtoCpuCore* core, int32_t pipe_id, int32_t dir, int32_t lane);

/*
 * Which vector lanes take part in a pipe's unsplit 1:2 transfers (optional; without these two
 * hooks both lanes always take part). A vector core's kernel that constructs a TPipe calls
 * attach; the cube, before moving a lane's share of an unsplit transfer, calls lane_joins,
 * which waits until that lane's kernel of the same dispatch has attached pipe_id (*joins = 1)
 * or has returned without doing so (*joins = 0). lane_joins returns a PTO_CPU_FIFO_* code.
 */
PTO_CPU_HOOK_DECL void pto_cpu_fifo_attach(PtoCpuCore* core, int32_t pipe_id);

/*
 * Cross-core events and barriers (pto/cpu/events.hpp). event_set raises event `event` of the
 * caller's cluster for its peers (the cube's reaches both vector lanes; a vector lane's reaches
 * the cube, with ffts_mode 2 only once both lanes raised it); event_wait consumes one raise
 * meant for the caller. syncall waits until every core of the task's blocks that core_type
 * names (0 mix, 1 aiv_only, 2 aic_only) has arrived (participants: how many; on a timeout arrived:
 * the most that had arrived at once, missing_block: the lowest block index short of its cores, -1 if none). All return
 * PTO_CPU_FIFO_* codes and wait at most 0.9 x the run's timeout (PTO_CPU_FIFO_TIMEOUT).
 */
PTO_CPU_HOOK_DECL int pto_cpu_event_set(PtoCpuCore* core, int32_t event, int32_t ffts_mode);
PTO_CPU_HOOK_DECL int pto_cpu_event_wait(PtoCpuCore* core, int32_t event);
PTO_CPU_HOOK_DECL int pto_cpu_syncall(PtoCpuCore* core, int32_t core_type, int32_t* participants,
                                      int32_t* arrived, int32_t* missing_block);
PTO_CPU_HOOK_DECL int pto_cpu_fifo_lane_joins(PtoCpuCore* core, int32_t pipe_id, int32_t lane, int32_t* joins);

/*
 * The cube's arithmetic, compiled once in the runtime library instead of in every cube kernel
 * (pto/cpu/gemm.hpp; a runtime library defines them by including pto/cpu/gemm_hooks.hpp).
 * gemm_f32: c[i][j] = sum over k < kk of a[i][k] * b[k][j] for i < m, j < n, each element summed
 * from +0 in k order without fused multiply-add; b is read up to 8 floats past column n - 1.
 * widen16: `rows` rows of n IEEE half (bf16 = 0) or bfloat16 (bf16 = 1) bit patterns as f32.
 * Absent (no runtime library): the tile library computes the same with plain loops.
 */
PTO_CPU_HOOK_DECL void pto_cpu_gemm_f32(int32_t m, int32_t n, int32_t kk, const float* a, int64_t lda, const float* b,
                                        int64_t ldb, float* c, int64_t ldc);
PTO_CPU_HOOK_DECL void pto_cpu_widen16(int32_t bf16, const uint16_t* src, int64_t lds, float* dst, int64_t ldd,
                                       int32_t rows, int32_t n);

/*
 * Estimated device time (docs/estimate.md), called only while core->estimate is set. est_op: one
 * instruction of `cycles` on pipe `pipe` (pipe_t values) that reads and writes the given tile buffers
 * (the first `nwrites` are written, the rest read). est_sync: kind 0 set_flag(a, b, event), 1
 * wait_flag(a, b, event), 2 pipe_barrier(a). The runtime turns them into the core's device timeline.
 */
typedef struct PtoCpuEstBuf {
    int32_t space;            /* PTO_CPU_SPACE_* */
    uint32_t bytes;
    uint64_t offset;          /* from the space's base */
} PtoCpuEstBuf;
PTO_CPU_HOOK_DECL void pto_cpu_est_op(PtoCpuCore* core, int32_t pipe, uint32_t cycles, const PtoCpuEstBuf* bufs,
                                      int32_t nbufs, int32_t nwrites);
PTO_CPU_HOOK_DECL void pto_cpu_est_sync(PtoCpuCore* core, int32_t kind, int32_t a, int32_t b, int32_t event);

/*
 * Distributed programs (docs/distributed.md): windows and signals.
 *
 * A rank's runs may see *windows*: ranges of this process's address space where the symmetric
 * memory of each rank is mapped (on the shared-memory transport, the real bytes; on a
 * transport without shared memory, a reserved range no plain load or store may touch). Every
 * kernel access to a window address -- TLOAD, TSTORE, TPUT, TGET, TNOTIFY, TWAIT -- goes
 * through the hooks below, and they through the PtoCommOps table the rank installed
 * (ptosim_comm_install), so kernels never depend on the transport.
 *
 * Enum values follow pto-isa's pto::comm (NotifyOp, WaitCmp); the DSL's WaitCmp (Eq=0, Ge=1)
 * is mapped to these by the assembler.
 */
#define PTO_COMM_ABI 1
#define PTO_COMM_MAX_WINDOWS 256

enum {
    PTO_COMM_OK = 0,
    PTO_COMM_TIMEOUT = 1,      /* a wait exceeded 0.9 x the run's timeout */
    PTO_COMM_BAD_ADDRESS = 2,  /* the span is not inside one window (or, for signals, any live buffer) */
    PTO_COMM_ERROR = 3         /* the run is failing, or the transport reported an error */
};
enum { PTO_COMM_NOTIFY_ATOMIC_ADD = 0, PTO_COMM_NOTIFY_SET = 1 };
enum { PTO_COMM_CMP_EQ = 0, PTO_COMM_CMP_NE = 1, PTO_COMM_CMP_GT = 2, PTO_COMM_CMP_GE = 3,
       PTO_COMM_CMP_LT = 4, PTO_COMM_CMP_LE = 5 };
enum { PTO_COMM_WRITE_PLAIN = 0, PTO_COMM_WRITE_ATOMIC_ADD = 1 };

/* One mapped window: rank `peer`'s window of allocation domain `domain`. */
typedef struct PtoCommWindow {
    uint64_t base;       /* address in this process */
    uint64_t size;       /* bytes */
    int32_t peer;
    int32_t domain;
} PtoCommWindow;

/*
 * The transport of a rank's windows. `offset` is the byte offset inside window `w`; `dtype`
 * is a ChipTensor DataType code (the element type of an atomic add); `deadline_ns` is
 * CLOCK_MONOTONIC: `wait` returns PTO_COMM_OK once the int32 cell compares true against
 * `expected`, or PTO_COMM_TIMEOUT at the deadline (the hooks call it in slices of at most
 * 10 ms), storing the last value it saw in *seen. `notify` applies `value` (add or store)
 * with sequential consistency and wakes the cell's waiters. Every function returns a
 * PTO_COMM_* code.
 */
typedef struct PtoCommOps {
    uint32_t abi;                 /* PTO_COMM_ABI */
    int32_t rank, nranks;
    uint32_t nwindows;
    const PtoCommWindow* windows;
    void* ctx;                    /* the transport's own state */
    int (*read)(void* ctx, const PtoCommWindow* w, uint64_t offset, void* dst, uint64_t bytes);
    int (*write)(void* ctx, const PtoCommWindow* w, uint64_t offset, const void* src, uint64_t bytes,
                 int32_t atomic, int32_t dtype);
    int (*notify)(void* ctx, const PtoCommWindow* w, uint64_t offset, int32_t value, int32_t op);
    int (*wait)(void* ctx, const PtoCommWindow* w, uint64_t offset, int32_t expected, int32_t cmp,
                int64_t deadline_ns, int32_t* seen);
} PtoCommOps;

/*
 * The one range lookup: the window holding [p, p+bytes) and the offset in it (1), no window
 * touching the span (0), or a span that starts in a window and leaves it (-1).
 */
static inline int pto_comm_find(const PtoCommOps* ops, const void* p, uint64_t bytes,
                                const PtoCommWindow** w, uint64_t* offset) {
    const uint64_t a = (uint64_t)(uintptr_t)p;
    if (!ops) return 0;
    for (uint32_t i = 0; i < ops->nwindows; ++i) {
        const PtoCommWindow* x = &ops->windows[i];
        if (a >= x->base && a < x->base + x->size) {
            *w = x;
            *offset = a - x->base;
            return bytes <= x->size - *offset ? 1 : -1;
        }
        if (a < x->base && a + bytes > x->base) return -1;
    }
    return 0;
}

/* The table installed for this process's runs, or NULL (no windows). */
PTO_CPU_HOOK_DECL const PtoCommOps* pto_cpu_comm_ops(void);
/* Copy `bytes` from window address `src` into dst (TLOAD, TGET), or from src into window
 * address `dst` (TSTORE, TPUT; `atomic`: PTO_COMM_WRITE_*, `dtype` of the elements). */
PTO_CPU_HOOK_DECL int pto_cpu_comm_read(const char* instr, const void* src, void* dst, uint64_t bytes);
PTO_CPU_HOOK_DECL int pto_cpu_comm_write(const char* instr, void* dst, const void* src, uint64_t bytes,
                                         int32_t atomic, int32_t dtype);
/* TNOTIFY: apply `value` to the int32 cell (PTO_COMM_NOTIFY_*), then wake its waiters. */
PTO_CPU_HOOK_DECL int pto_cpu_comm_notify(void* cell, int32_t value, int32_t op);
/* TWAIT: block until the cell compares true (PTO_COMM_CMP_*) against `expected`; futex waits in
 * slices of at most 10 ms re-testing the cell and the deadline (0.9 x the run's timeout), no
 * spinning. *seen: the last value read. PTO_COMM_TIMEOUT at the deadline. */
PTO_CPU_HOOK_DECL int pto_cpu_comm_wait(void* cell, int32_t expected, int32_t cmp, int32_t* seen);

/*
 * Tile operations for runtime shapes (pto/cpu/ops_hooks.hpp), compiled once in the runtime library
 * instead of once per tile type in every kernel: the tile library's instructions pass their
 * tiles as PtoCpuTileRef (and global views as PtoCpuGmRef) and these run the same loops the
 * library would inline, so results are the same bits. A kernel compiled with -DPTO_CPU_OOL_OPS
 * calls them for the element types they take and fails the instruction, naming it, when nothing
 * defines them (PTO_CPU_STANDALONE does not turn them off: such a build links them into itself).
 */
typedef struct PtoCpuTileRef {
    void* data;              /* element (r, c) at r * cols + c, or at c * rows + r when col_stored */
    int32_t rows, cols;      /* the tile's shape */
    int32_t vr, vc;          /* its valid region */
    int32_t dtype;           /* element type: datatype_code (pto/cpu/atomic.hpp) */
    int32_t col_stored;
    int32_t space;           /* PTO_CPU_SPACE_* */
} PtoCpuTileRef;

typedef struct PtoCpuGmRef {
    void* data;              /* the view's first element */
    const void* origin;      /* the kernel parameter it derives from, or NULL */
    int64_t shape[5], stride[5];
    int32_t layout;          /* pto::Layout: 0 ND, 1 DN, 2 NZ, 3 MX_A_ZZ, 4 MX_B_NN */
    int32_t dtype;
} PtoCpuGmRef;

/* Element-wise operations: dst = a op b (binary), a op scalar (scalar: *scalar is the calc-type
 * value, float for the 16-bit floats), scalar / a (RDIVS) or op a (unary). */
enum {
    PTO_CPU_OP_ADD = 0, PTO_CPU_OP_SUB, PTO_CPU_OP_MUL, PTO_CPU_OP_DIV, PTO_CPU_OP_MAX, PTO_CPU_OP_MIN,
    PTO_CPU_OP_ADDS, PTO_CPU_OP_SUBS, PTO_CPU_OP_MULS, PTO_CPU_OP_DIVS, PTO_CPU_OP_MAXS, PTO_CPU_OP_MINS,
    PTO_CPU_OP_RDIVS,
    PTO_CPU_OP_EXP, PTO_CPU_OP_LOG, PTO_CPU_OP_SQRT, PTO_CPU_OP_RSQRT, PTO_CPU_OP_RECIP, PTO_CPU_OP_NEG,
    PTO_CPU_OP_ABS, PTO_CPU_OP_RELU,
    PTO_CPU_OP_COPY         /* TROWEXPAND / TCOLEXPAND (inlined): the vector alone */
};

#if defined(PTO_CPU_SIM_HOOKS_IMPL) || defined(PTO_CPU_OPS_IMPL)
#define PTO_CPU_OPS_DECL
#else
#define PTO_CPU_OPS_DECL __attribute__((weak))
#endif
/* dst's valid region = op(a, b / scalar); all three of one element type, b NULL unless binary. */
PTO_CPU_OPS_DECL void pto_cpu_op_elementwise(int32_t op, const PtoCpuTileRef* dst, const PtoCpuTileRef* a,
                                             const PtoCpuTileRef* b, const void* scalar);
/* TLOAD (store 0: gm -> tile) / TSTORE (store 1: tile -> gm, plain), tile and view of one element type. */
PTO_CPU_OPS_DECL void pto_cpu_op_gm(const char* instr, int32_t store, const PtoCpuTileRef* tile,
                                    const PtoCpuGmRef* gm);
/* The vr x vc block of src at (sr, sc) into dst at (dr, dc) (TMOV, TEXTRACT, TINSERT, ...), both in bounds. */
PTO_CPU_OPS_DECL void pto_cpu_op_copy(const PtoCpuTileRef* dst, int32_t dr, int32_t dc, const PtoCpuTileRef* src,
                                      int32_t sr, int32_t sc, int32_t vr, int32_t vc);
/* TCVT: dst's valid region = src converted with rounding mode `mode` (pto::RoundMode). */
PTO_CPU_OPS_DECL void pto_cpu_op_cvt(const PtoCpuTileRef* dst, const PtoCpuTileRef* src, int32_t mode);
/* Row (is_row 1) or column reductions of src's valid region into dst (which holds the result): kind 0
 * sum, 1 max, 2 min. */
PTO_CPU_OPS_DECL void pto_cpu_op_reduce(int32_t kind, int32_t is_row, const PtoCpuTileRef* dst,
                                        const PtoCpuTileRef* src);
/* The floating-point cube: acc's M x N block = left (M x K) x right (K x N) in f32, plus `in` (NULL:
 * nothing), as TMATMUL computes it; left and right of one type (f16, bf16, f32), acc and in f32. */
PTO_CPU_OPS_DECL void pto_cpu_op_matmul(const PtoCpuTileRef* acc, const PtoCpuTileRef* in, const PtoCpuTileRef* left,
                                        const PtoCpuTileRef* right, int32_t m, int32_t k, int32_t n);
/* Binding a tile (TASSIGN, TRESHAPE, ...): `bytes` at byte offset `off` of space sp, checked against
 * its capacity and `align`; returns the address. Under the core's debug NaN fill, fills `numel`
 * elements of fill_elem bytes (2, 4 or 8; 0: none) with fill_bits. */
PTO_CPU_OPS_DECL uint8_t* pto_cpu_op_bind(int32_t sp, uint64_t bytes, uint64_t align, int64_t off, const char* instr,
                                          int32_t fill_elem, uint64_t fill_bits, int32_t numel);
/* TASSIGN(tile, integer v): v a byte offset, or an address in the core's buffer of space sp (then
 * no fill); binds as pto_cpu_op_bind, sets *off to the offset and *fill to 1 when v was an offset. */
PTO_CPU_OPS_DECL uint8_t* pto_cpu_op_assign(int32_t sp, uint64_t bytes, uint64_t align, int64_t v, int32_t fill_elem,
                                            uint64_t fill_bits, int32_t numel, int64_t* off, int32_t* fill);
/* The cross-core FIFO's transfer of one tile (TPUSH: pop 0, TPOP: pop 1) on core c, as the tile
 * library's fifo.hpp does it (the split halves, the 1:2 unsplit transfers, the slot checks): the pipe's
 * static description and the tile's storage. */
typedef struct PtoCpuFifoPipe {
    int32_t flag, dir;             /* FlagID; PTO_CPU_FIFO_C2V or _V2C */
    uint32_t slot_size, slot_num;
    int32_t both_lanes;            /* an unsplit transfer is 1:2 with every lane that joins */
} PtoCpuFifoPipe;
typedef struct PtoCpuFifoTile {
    uint8_t* data;
    uint64_t elem;                 /* bytes per element */
    int32_t rows, cols, vr, vc;
    int32_t col_stored;
} PtoCpuFifoTile;
PTO_CPU_OPS_DECL void pto_cpu_op_fifo(const char* instr, int32_t pop, PtoCpuCore* c, const PtoCpuFifoPipe* pipe,
                                      const PtoCpuFifoTile* tile, int32_t split);
#undef PTO_CPU_OPS_DECL

#undef PTO_CPU_HOOK_DECL

#ifdef __cplusplus
}
#endif

#endif /* PTO_CPU_SIM_HOOKS_H */
