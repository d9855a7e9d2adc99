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

#include <initializer_list>
#include <utility>

#include "pto/cpu/ops.hpp"
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

// A fused run that absorbed its loads and stores (docs/assembler.md, "Loads and stores in a run")
// reads and writes the global windows in place of the tile buffers. gm_direct says whether the
// window `g` can stand for tile `t`: it runs the TLOAD / TSTORE region and bounds checks first (the
// same fatal errors), then needs a plain tensor (not a comm window), a 2-D row-major window of t's
// element type whose rows are t's row pitch apart. Otherwise the run takes its unfused path.
template <typename TileT, typename GT>
inline bool gm_direct(const char* instr, const TileT& t, const GT& g, bool write) {
    static_assert(!TileT::isBoxedLayout, "gm_direct: only tiles without boxes are stored row by row");
    const int vr = vrows(t), vc = vcols(t);
    const GmView<GT> v(g);
    if (check_region(instr, g, v, vr, vc, write)) return false;   // a window: through the comm hooks
    if constexpr (!std::is_same<typename TileT::DType, typename GT::DType>::value || !linear_rows<GT>()) {
        return false;
    } else {
        return vr > 0 && vc > 0 && v.flat && v.st[4] == 1 && (v.st[3] == TileT::Cols || vr == 1);
    }
}

// Tile t's type over the bytes of global window g (gm_direct(t, g) holds): element (r, c) is the
// window's.
template <typename TileT, typename GT>
inline TileT gm_tile(const TileT& t, const GT& g) {
    TileT v = t;
    v.cpu_data_ = (typename TileT::DType*)(void*)(g.data_ + GmView<GT>(g).offset(0, 0));
    return v;
}

// The bytes [lo, hi) a gm_tile spans.
template <typename TileT>
inline std::pair<uintptr_t, uintptr_t> gm_span(const TileT& t) {
    const uintptr_t lo = (uintptr_t)t.cpu_data_;
    const int vr = vrows(t), vc = vcols(t);
    return {lo, lo + ((uint64_t)(vr - 1) * TileT::Cols + (uint64_t)vc) * sizeof(typename TileT::DType)};
}

// No written window (the first n_write spans) overlaps another span: chunk-major order then gives
// the bytes of instruction-major order.
inline bool gm_disjoint(std::initializer_list<std::pair<uintptr_t, uintptr_t>> spans, int n_write) {
    int i = 0;
    for (auto a : spans) {
        int j = 0;
        for (auto b : spans) {
            if (i < n_write && i != j && a.first < b.second && b.first < a.second) return false;
            ++j;
        }
        ++i;
    }
    return true;
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
