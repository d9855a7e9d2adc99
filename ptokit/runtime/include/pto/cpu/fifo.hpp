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
    // with AIV0 (docs/tile-api.md, docs/mixed-kernels.md).
    static constexpr bool NO_SPLIT_BOTH_LANES = IsNoSplit;
    TPipe() {}
    TPipe(void*, uint32_t, uint32_t) {}
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

// The part of a vr x vc region that lane `part` handles under `split` (cube side).
inline void split_part(int split, int part, int vr, int vc, int* r0, int* c0, int* nr, int* nc) {
    *r0 = 0; *c0 = 0; *nr = vr; *nc = vc;
    if (split == TILE_UP_DOWN) {
        const int h = (vr + 1) / 2;
        *r0 = part ? h : 0;
        *nr = part ? vr - h : h;
    } else if (split == TILE_LEFT_RIGHT) {
        const int h = (vc + 1) / 2;
        *c0 = part ? h : 0;
        *nc = part ? vc - h : h;
    }
}

template <typename Pipe, typename TileT>
inline void fifo_push(const char* instr, TileT& tile, int split) {
    using T = typename TileT::DType;
    auto hook = PTO_CPU_HOOK(pto_cpu_fifo_push);
    if (!hook) fatal(instr, "the cross-core FIFO needs the simulator (pto_cpu_fifo_push is missing)");
    PtoCpuCore* c = core();
    const int dir = fifo_dir<Pipe>(c, true);
    const T* p = ptr(tile, instr);
    const bool cube = c->lane < 0;
    const bool both = cube && split == TILE_NO_SPLIT && Pipe::NO_SPLIT_BOTH_LANES;
    const int parts = (cube && (split != TILE_NO_SPLIT || both)) ? 2 : 1;
    for (int part = 0; part < parts; ++part) {
        int r0, c0, nr, nc;
        split_part(cube ? split : TILE_NO_SPLIT, part, vrows(tile), vcols(tile), &r0, &c0, &nr, &nc);
        const uint64_t bytes = sizeof(T) * (uint64_t)nr * (uint64_t)nc;
        if (bytes > Pipe::SLOT_SIZE)
            fatal(instr, "%llu bytes do not fit the %u-byte slot of pipe %d", (unsigned long long)bytes,
                  (unsigned)Pipe::SLOT_SIZE, (int)Pipe::flagId);
        T* buf = (T*)scratch(2, bytes + 1);
        for (int r = 0; r < nr; ++r) memcpy(buf + (int64_t)r * nc, p + at<TileT>(r0 + r, c0), sizeof(T) * (size_t)nc);
        const int lane = cube ? part : c->lane;
        const int rc = hook(c, Pipe::flagId, dir, lane, buf, bytes, Pipe::SLOT_SIZE, Pipe::SLOT_NUM);
        if (rc != PTO_CPU_FIFO_OK) fifo_fail(instr, rc, Pipe::flagId, dir, lane);
    }
}

template <typename Pipe, typename TileT>
inline void fifo_pop(const char* instr, TileT& tile, int split) {
    using T = typename TileT::DType;
    auto hook = PTO_CPU_HOOK(pto_cpu_fifo_pop);
    if (!hook) fatal(instr, "the cross-core FIFO needs the simulator (pto_cpu_fifo_pop is missing)");
    PtoCpuCore* c = core();
    const int dir = fifo_dir<Pipe>(c, false);
    T* p = ptr(tile, instr);
    const bool cube = c->lane < 0;
    const bool both = cube && split == TILE_NO_SPLIT && Pipe::NO_SPLIT_BOTH_LANES;
    const int parts = (cube && (split != TILE_NO_SPLIT || both)) ? 2 : 1;
    for (int part = 0; part < parts; ++part) {
        int r0, c0, nr, nc;
        split_part(cube ? split : TILE_NO_SPLIT, part, vrows(tile), vcols(tile), &r0, &c0, &nr, &nc);
        const uint64_t bytes = sizeof(T) * (uint64_t)nr * (uint64_t)nc;
        T* buf = (T*)scratch(2, bytes + 1);
        const int lane = cube ? part : c->lane;
        const int rc = hook(c, Pipe::flagId, dir, lane, buf, bytes, Pipe::SLOT_SIZE, Pipe::SLOT_NUM);
        if (rc != PTO_CPU_FIFO_OK) fifo_fail(instr, rc, Pipe::flagId, dir, lane);
        if (both && part == 1) continue;  // lane 1's copy of a 1:2 transfer: popped and dropped
        for (int r = 0; r < nr; ++r) memcpy(p + at<TileT>(r0 + r, c0), buf + (int64_t)r * nc, sizeof(T) * (size_t)nc);
    }
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
    (void)pipe;
    cpu::fifo_pop<Pipe>("TPOP", tile, Split);
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
    (void)pipe;
    if (cpu::core()->lane >= 0 && lane != cpu::core()->lane)
        cpu::fatal("TPOP", "lane argument %d but the calling vector core is lane %d", lane, cpu::core()->lane);
    cpu::fifo_pop<Pipe>("TPOP", tile, Split);
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
