// CPU tile library: cross-core FIFO (TPipe, TPUSH, TPOP, TFREE) over the simulator's hooks.
#ifndef PTO_CPU_FIFO_HPP
#define PTO_CPU_FIFO_HPP

#include "pto/cpu/ops.hpp"

namespace pto {

enum TileSplitAxis : uint8_t {
    TILE_NO_SPLIT = 0,    // 1:1, the cube talks to AIV0 only
    TILE_UP_DOWN = 1,     // row halves: AIV0 upper, AIV1 lower
    TILE_LEFT_RIGHT = 2,  // column halves: AIV0 left, AIV1 right
};

enum Direction : uint8_t {
    UNDEFINED = 0,
    DIR_C2V = 1,  // cube produces, vector consumes
    DIR_V2C = 2,  // vector produces, cube consumes
    DIR_BOTH = DIR_C2V | DIR_V2C,
};

namespace cpu {
// A vector core's kernel constructed a pipe: its lane takes part in the pipe's unsplit 1:2
// transfers of this dispatch (docs/mixed-kernels.md, "Which lanes take part").
inline void fifo_attach(int pipe) {
    PtoCpuCore* c = core();
    if (c->lane < 0) return;
    if (auto hook = PTO_CPU_HOOK(pto_cpu_fifo_attach)) hook(c, pipe);
}
}  // namespace cpu

// The unsplit-pipe rule (docs/mixed-kernels.md). By default pypto HEAD's: an IsNoSplit pipe's
// TILE_NO_SPLIT transfer is 1:2, with every vector lane whose kernel constructs the pipe.
// PTO_CPU_FIFO_NOSPLIT_LANE0 selects ptoas 0.27's: an unsplit transfer is 1:1 with AIV0 whatever
// IsNoSplit says (the build selects it with runtime/compilers.py's FIFO_RULES).
#if defined(PTO_CPU_FIFO_NOSPLIT_LANE0)
#define PTO_CPU_NOSPLIT_BOTH_LANES(is_no_split) false
#else
#define PTO_CPU_NOSPLIT_BOTH_LANES(is_no_split) (is_no_split)
#endif

template <uint8_t FlagID, uint8_t DirType, uint32_t SlotSize, uint32_t SlotNum, uint32_t LocalSlotNum = 2,
          bool IsNoSplit = false, bool EN_UNIT_FLAG = false>
struct TPipe {
    static_assert(SlotNum >= 1, "TPipe: SlotNum must be >= 1");
    static constexpr uint8_t flagId = FlagID;
    static constexpr uint8_t dirType = DirType;
    static constexpr uint32_t SLOT_SIZE = SlotSize;
    static constexpr uint32_t SLOT_NUM = SlotNum;
    static constexpr uint32_t LOCAL_SLOT_NUM = LocalSlotNum;
    // IsNoSplit: a TILE_NO_SPLIT transfer is 1:2 -- the cube's push reaches both vector lanes (each
    // pops and frees its own copy; a lane's slot is reused only after that lane freed it), and a
    // cube pop takes one tile from each lane (lane 0's data is kept). Without it, NO_SPLIT is 1:1
    // with AIV0 (docs/tile-api.md, docs/mixed-kernels.md). A lane whose kernel never constructs
    // the pipe does not take part.
    static constexpr bool NO_SPLIT_BOTH_LANES = PTO_CPU_NOSPLIT_BOTH_LANES(IsNoSplit);
    TPipe() { cpu::fifo_attach(FlagID); }
    // The consumer buffers are byte offsets in the consumer's space (C2V: the vector core's Vec,
    // V2C: the cube's Mat); a TPOP binds its tile to slot (pops % LocalSlotNum) of its side's one.
    TPipe(void*, uint32_t c2v_consumer_buf, uint32_t v2c_consumer_buf)
        : cpu_has_bufs_(true), cpu_c2v_buf_(c2v_consumer_buf), cpu_v2c_buf_(v2c_consumer_buf) {
        cpu::fifo_attach(FlagID);
    }

    // CPU internals (public for the instruction implementations).
    bool cpu_has_bufs_ = false;
    uint32_t cpu_c2v_buf_ = 0, cpu_v2c_buf_ = 0;
    uint32_t cpu_pops_ = 0;
};

namespace cpu {
// The direction a call moves data in. On a DIR_BOTH pipe it follows from the caller and the op: the
// cube pushes C2V and pops/frees V2C, a vector core pushes V2C and pops/frees C2V.
template <typename Pipe>
inline int fifo_dir(const PtoCpuCore* c, bool producing) {
    if (Pipe::dirType == DIR_C2V || Pipe::dirType == DIR_V2C) return Pipe::dirType;
    return (c->lane < 0) == producing ? PTO_CPU_FIFO_C2V : PTO_CPU_FIFO_V2C;
}

inline const char* fifo_dir_name(int d) { return d == PTO_CPU_FIFO_C2V ? "C2V" : "V2C"; }

[[noreturn]] inline void fifo_fail(const char* instr, int rc, int pipe, int dir, int lane) {
    if (rc == PTO_CPU_FIFO_TIMEOUT)
        fatal(instr, "timed out waiting on pipe %d (%s, lane %d)", pipe, fifo_dir_name(dir), lane);
    if (rc == PTO_CPU_FIFO_BAD_SIZE)
        fatal(instr, "slot size mismatch on pipe %d (%s, lane %d)", pipe, fifo_dir_name(dir), lane);
    fatal(instr, "FIFO error %d on pipe %d (%s, lane %d)", rc, pipe, fifo_dir_name(dir), lane);
}

// Cube side of an unsplit 1:2 transfer: does vector lane `lane` take part (its kernel constructed
// the pipe)? Waits until that is known; true when the simulator does not say.
inline bool lane_joins(const char* instr, PtoCpuCore* c, int pipe, int dir, int lane) {
    auto hook = PTO_CPU_HOOK(pto_cpu_fifo_lane_joins);
    if (!hook) return true;
    int32_t joins = 1;
    const int rc = hook(c, pipe, lane, &joins);
    if (rc != PTO_CPU_FIFO_OK) fifo_fail(instr, rc, pipe, dir, lane);
    return joins != 0;
}

// The part of the cube's tile that lane `part` handles under `split`: the tile's physical rows
// (UP_DOWN) or columns (LEFT_RIGHT) are halved at S = ceil(n / 2), lane 0 owning [0, S) and lane 1
// [S, n); of a vr x vc valid region lane L gets clamp(v - L*S, 0, S) (docs/mixed-kernels.md,
// "Split transfers"). An odd n leaves lane 1 one row (column) short.
inline void split_part(int split, int part, int rows, int cols, int vr, int vc, int* r0, int* c0, int* nr, int* nc) {
    *r0 = 0; *c0 = 0; *nr = vr; *nc = vc;
    auto clamp = [](int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); };
    if (split == TILE_UP_DOWN) {
        const int h = (rows + 1) / 2;
        *r0 = part ? h : 0;
        *nr = clamp(vr - part * h, 0, h);
    } else if (split == TILE_LEFT_RIGHT) {
        const int h = (cols + 1) / 2;
        *c0 = part ? h : 0;
        *nc = clamp(vc - part * h, 0, h);
    }
}

// A pipe's static description and a tile's storage, as the FIFO bodies take them (one copy per
// kernel instead of one per pipe and tile type; with -DPTO_CPU_OOL_OPS none: the runtime library's
// pto_cpu_op_fifo runs them).
using FifoPipe = PtoCpuFifoPipe;
using FifoTile = PtoCpuFifoTile;
template <typename Pipe>
inline FifoPipe fifo_pipe(const PtoCpuCore* c, bool producing) {
    return FifoPipe{Pipe::flagId, fifo_dir<Pipe>(c, producing), Pipe::SLOT_SIZE, Pipe::SLOT_NUM,
                    Pipe::NO_SPLIT_BOTH_LANES ? 1 : 0};
}
// the byte offset of element (r, c) of t
inline int64_t fifo_at(const FifoTile& t, int r, int c) {
    return (t.col_stored ? (int64_t)c * t.rows + r : (int64_t)r * t.cols + c) * (int64_t)t.elem;
}
template <typename TileT>
inline FifoTile fifo_tile(const TileT& t, const char* instr) {
    return FifoTile{(uint8_t*)(void*)ptr(t, instr), sizeof(typename TileT::DType), TileT::Rows, TileT::Cols, vrows(t),
                    vcols(t), col_stored<TileT>() ? 1 : 0};
}

__attribute__((noinline)) inline void fifo_push_tile(const char* instr, PtoCpuCore* c, const FifoPipe& pp,
                                                     const FifoTile& t, int split) {
    auto hook = PTO_CPU_HOOK(pto_cpu_fifo_push);
    const bool cube = c->lane < 0;
    const bool both = cube && split == TILE_NO_SPLIT && pp.both_lanes;
    const int parts = (cube && (split != TILE_NO_SPLIT || both)) ? 2 : 1;
    for (int part = 0; part < parts; ++part) {
        if (both && !lane_joins(instr, c, pp.flag, pp.dir, part)) continue;
        int r0, c0, nr, nc;
        split_part(cube ? split : TILE_NO_SPLIT, part, t.rows, t.cols, t.vr, t.vc, &r0, &c0, &nr, &nc);
        const uint64_t bytes = t.elem * (uint64_t)nr * (uint64_t)nc;
        if (bytes > pp.slot_size)
            fatal(instr, "%llu bytes do not fit the %u-byte slot of pipe %d", (unsigned long long)bytes,
                  (unsigned)pp.slot_size, pp.flag);
        uint8_t* buf = (uint8_t*)scratch(2, bytes + 1);
        const size_t row = t.elem * (size_t)nc;
        for (int r = 0; r < nr; ++r) memcpy(buf + (size_t)r * row, t.data + fifo_at(t, r0 + r, c0), row);
        const int lane = cube ? part : c->lane;
        const int rc = hook(c, pp.flag, pp.dir, lane, buf, bytes, pp.slot_size, pp.slot_num);
        if (rc != PTO_CPU_FIFO_OK) fifo_fail(instr, rc, pp.flag, pp.dir, lane);
    }
}

template <typename Pipe, typename TileT>
inline void fifo_push(const char* instr, TileT& tile, int split) {
    if (!PTO_CPU_HOOK(pto_cpu_fifo_push))
        fatal(instr, "the cross-core FIFO needs the simulator (pto_cpu_fifo_push is missing)");
    PtoCpuCore* c = core();
    const FifoPipe pp = fifo_pipe<Pipe>(c, true);
    const FifoTile t = fifo_tile(tile, instr);
    if constexpr (kOutOfLineOps)
        op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_fifo), instr)(instr, 0, c, &pp, &t, split);
    else
        fifo_push_tile(instr, c, pp, t, split);
}

// A pipe built with its consumer buffers binds the popped tile to the next slot of its side's
// buffer (as the vendor's TPOP does: its tile need not be TASSIGNed); without them the tile must
// already be bound.
template <typename Pipe, typename TileT>
inline void bind_pop_slot(Pipe& pipe, TileT& tile, int dir, const char* instr) {
    if (!pipe.cpu_has_bufs_) return;
    const uint64_t base = dir == PTO_CPU_FIFO_C2V ? pipe.cpu_c2v_buf_ : pipe.cpu_v2c_buf_;
    const uint32_t slots = Pipe::LOCAL_SLOT_NUM ? Pipe::LOCAL_SLOT_NUM : 1u;
    bind_tile(tile, (int64_t)(base + (uint64_t)(pipe.cpu_pops_ % slots) * Pipe::SLOT_SIZE), instr, false);
    ++pipe.cpu_pops_;
}

__attribute__((noinline)) inline void fifo_pop_tile(const char* instr, PtoCpuCore* c, const FifoPipe& pp,
                                                    const FifoTile& t, int split) {
    auto hook = PTO_CPU_HOOK(pto_cpu_fifo_pop);
    const bool cube = c->lane < 0;
    const bool both = cube && split == TILE_NO_SPLIT && pp.both_lanes;
    const int parts = (cube && (split != TILE_NO_SPLIT || both)) ? 2 : 1;
    bool kept = false;  // a 1:2 transfer keeps the first taking-part lane's copy (lane 0's)
    for (int part = 0; part < parts; ++part) {
        if (both && !lane_joins(instr, c, pp.flag, pp.dir, part)) continue;
        int r0, c0, nr, nc;
        split_part(cube ? split : TILE_NO_SPLIT, part, t.rows, t.cols, t.vr, t.vc, &r0, &c0, &nr, &nc);
        uint64_t bytes = t.elem * (uint64_t)nr * (uint64_t)nc;
        const uint64_t whole = t.elem * (uint64_t)t.rows * (uint64_t)t.cols;
        uint8_t* buf = (uint8_t*)scratch(2, (bytes > whole ? bytes : whole) + 1);
        const int lane = cube ? part : c->lane;
        int rc = hook(c, pp.flag, pp.dir, lane, buf, bytes, pp.slot_size, pp.slot_num);
        size_t stride = t.elem * (size_t)nc;
        if (rc == PTO_CPU_FIFO_BAD_SIZE && !cube && bytes != whole && !t.col_stored) {
            // a vector lane popping a run-time valid region smaller than what was pushed: as the
            // vendor's TPOP it takes its tile's whole static shape and the valid shape windows it
            rc = hook(c, pp.flag, pp.dir, lane, buf, whole, pp.slot_size, pp.slot_num);
            stride = t.elem * (size_t)t.cols;
        }
        if (rc != PTO_CPU_FIFO_OK) fifo_fail(instr, rc, pp.flag, pp.dir, lane);
        if (both && kept) continue;  // the other lane's copy of a 1:2 transfer: popped and dropped
        kept = true;
        const size_t row = t.elem * (size_t)nc;
        for (int r = 0; r < nr; ++r) memcpy(t.data + fifo_at(t, r0 + r, c0), buf + (size_t)r * stride, row);
    }
    if (both && !kept) fatal(instr, "no vector lane of the cluster takes part in pipe %d", pp.flag);
}

template <typename Pipe, typename TileT>
inline void fifo_pop(const char* instr, Pipe& pipe, TileT& tile, int split) {
    if (!PTO_CPU_HOOK(pto_cpu_fifo_pop))
        fatal(instr, "the cross-core FIFO needs the simulator (pto_cpu_fifo_pop is missing)");
    PtoCpuCore* c = core();
    const FifoPipe pp = fifo_pipe<Pipe>(c, false);
    bind_pop_slot(pipe, tile, pp.dir, instr);
    const FifoTile t = fifo_tile(tile, instr);
    if constexpr (kOutOfLineOps)
        op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_fifo), instr)(instr, 1, c, &pp, &t, split);
    else
        fifo_pop_tile(instr, c, pp, t, split);
}

template <typename Pipe>
inline void fifo_free(const char* instr, int split) {
    auto hook = PTO_CPU_HOOK(pto_cpu_fifo_free);
    if (!hook) fatal(instr, "the cross-core FIFO needs the simulator (pto_cpu_fifo_free is missing)");
    PtoCpuCore* c = core();
    const int dir = fifo_dir<Pipe>(c, false);
    const bool cube = c->lane < 0;
    const bool both = cube && split == TILE_NO_SPLIT && Pipe::NO_SPLIT_BOTH_LANES;
    const int parts = (cube && (split != TILE_NO_SPLIT || both)) ? 2 : 1;
    for (int part = 0; part < parts; ++part) {
        if (both && !lane_joins(instr, c, Pipe::flagId, dir, part)) continue;
        const int lane = cube ? part : c->lane;
        const int rc = hook(c, Pipe::flagId, dir, lane);
        if (rc != PTO_CPU_FIFO_OK) fifo_fail(instr, rc, Pipe::flagId, dir, lane);
    }
}
}  // namespace cpu

template <typename Pipe, typename TileProd, TileSplitAxis Split = TileSplitAxis::TILE_NO_SPLIT>
inline RecordEvent TPUSH(Pipe& pipe, TileProd& tile) {
    (void)pipe;
    cpu::fifo_push<Pipe>("TPUSH", tile, Split);
    return {};
}

template <typename Pipe, typename TileCons, TileSplitAxis Split = TileSplitAxis::TILE_NO_SPLIT>
inline RecordEvent TPOP(Pipe& pipe, TileCons& tile) {
    cpu::fifo_pop<Pipe>("TPOP", pipe, tile, Split);
    return {};
}

// The device's split-endpoint overloads (lane passed explicitly). On the CPU the lane comes from the
// simulator's core (PtoCpuCore::lane), so the argument is only checked against it.
template <typename Pipe, typename TileProd, TileSplitAxis Split = TileSplitAxis::TILE_NO_SPLIT>
inline RecordEvent TPUSH(Pipe& pipe, TileProd& tile, int lane) {
    (void)pipe;
    if (cpu::core()->lane >= 0 && lane != cpu::core()->lane)
        cpu::fatal("TPUSH", "lane argument %d but the calling vector core is lane %d", lane, cpu::core()->lane);
    cpu::fifo_push<Pipe>("TPUSH", tile, Split);
    return {};
}

template <typename Pipe, typename TileCons, TileSplitAxis Split = TileSplitAxis::TILE_NO_SPLIT>
inline RecordEvent TPOP(Pipe& pipe, TileCons& tile, int lane) {
    if (cpu::core()->lane >= 0 && lane != cpu::core()->lane)
        cpu::fatal("TPOP", "lane argument %d but the calling vector core is lane %d", lane, cpu::core()->lane);
    cpu::fifo_pop<Pipe>("TPOP", pipe, tile, Split);
    return {};
}

template <typename Pipe, TileSplitAxis Split = TileSplitAxis::TILE_NO_SPLIT>
inline RecordEvent TFREE(Pipe& pipe) {
    (void)pipe;
    cpu::fifo_free<Pipe>("TFREE", Split);
    return {};
}

}  // namespace pto

#endif
