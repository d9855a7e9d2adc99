// CPU tile library: row-chunk views for the built-in assembler's fused runs (docs/assembler.md,
// "Fused runs"). A run of row-local instructions on R-row tiles is executed one chunk of CH rows
// at a time: every instruction of the run is called on row_chunk<CH>(tile, r0) views, so the
// chunk's rows stay in L1 from one instruction to the next. Each element is computed by the same
// instruction code from the same inputs as without fusion, so the results are the same bits.
// -DPTO_CPU_NO_FUSION (PTOKIT_NO_FUSION=1) builds the unfused instructions instead; a run with
// RunConfig(fusion=False) or under the debug NaN fill (whose fills TASSIGN makes between the
// instructions) takes them at run time (fusion_on() is false).
#ifndef PTO_CPU_FUSION_HPP
#define PTO_CPU_FUSION_HPP

#include "pto/cpu/tile.hpp"

// the built-in assembler's fused runs use this library's row_chunk (another tile library has none)
#define PTO_CPU_FUSION 1

namespace pto {
namespace cpu {

template <int CH, typename TileT>
using row_chunk_t = Tile<TileT::Loc, typename TileT::DType, CH, TileT::Cols, TileT::BFractal, DYNAMIC,
                         TileT::ValidCol, TileT::SFractal, TileT::SFractalSize, TileT::PadVal, TileT::Compact>;

// Rows [r0, r0 + CH) of `t` as a CH-row tile over the same bytes: its valid rows are the part of
// t's valid rows inside the chunk (0..CH), its valid columns t's.
template <int CH, typename TileT>
inline row_chunk_t<CH, TileT> row_chunk(const TileT& t, int r0) {
    static_assert(!TileT::isBoxedLayout, "row_chunk: only tiles without boxes are stored row by row");
    static_assert(CH > 0 && TileT::Rows % CH == 0, "row_chunk: CH must divide the tile's rows");
    row_chunk_t<CH, TileT> v;
    const int vr = vrows(t) - r0;
    v.cpu_vr_ = vr < 0 ? 0 : (vr > CH ? CH : vr);
    v.cpu_vc_ = vcols(t);
    v.cpu_data_ = t.cpu_data_ ? t.cpu_data_ + (int64_t)r0 * TileT::Cols : nullptr;
    v.cpu_off_ = t.cpu_off_ + (uint64_t)r0 * TileT::Cols * sizeof(typename TileT::DType);
    return v;
}

// Whether fused runs take their fused path in this run: not under the debug NaN fill, nor under
// RunConfig(fusion=False) (the simulator's per-run switch).
inline bool fusion_on() {
    const PtoCpuCore* c = core();
    return !c->debug_nan_fill && !c->no_fusion;
}

}  // namespace cpu
}  // namespace pto

#endif
