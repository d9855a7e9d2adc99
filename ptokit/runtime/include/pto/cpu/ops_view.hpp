// CPU tile library: views and layouts (section C of the vector op set): TTRANS.
// The zero-copy views (pto.treshape: transpose_view, reinterpret_view) are TRESHAPE (ops.hpp); a
// transposed-layout tile is read through col_stored (tile.hpp); set_validshape is Tile::SetValidShape.
#ifndef PTO_CPU_OPS_VIEW_HPP
#define PTO_CPU_OPS_VIEW_HPP

#include "pto/cpu/ops.hpp"

namespace pto {

// dst[c, r] = src[r, c] over src's valid region (dst's valid region is src's, transposed). tmp is the
// hardware's scratch; the CPU needs none, but checks that it is a bound tile.
template <typename TileDataDst, typename TileDataSrc, typename TileDataTmp>
inline RecordEvent TTRANS(TileDataDst& dst, TileDataSrc& src, TileDataTmp& tmp) {
    static_assert(std::is_same<typename TileDataDst::DType, typename TileDataSrc::DType>::value,
                  "TTRANS: source and destination must have one element type");
    using DT = typename TileDataDst::DType;
    const int vr = cpu::vrows(src), vc = cpu::vcols(src);
    if (vc > TileDataDst::Rows || vr > TileDataDst::Cols)
        cpu::fatal("TTRANS", "a %dx%d valid region does not fit the %dx%d destination once transposed", vr, vc,
                   TileDataDst::Rows, TileDataDst::Cols);
    cpu::ptr(tmp, "TTRANS");
    DT* d = cpu::ptr(dst, "TTRANS");
    const typename TileDataSrc::DType* s = cpu::ptr(src, "TTRANS");
    if ((const void*)d == (const void*)s) cpu::fatal("TTRANS", "destination and source are the same tile");
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) d[cpu::at<TileDataDst>(c, r)] = s[cpu::at<TileDataSrc>(r, c)];
    return {};
}

}  // namespace pto

#endif
