// CPU tile library: comparisons into packed masks, and selection by a mask (TCMP TCMPS TSEL TSELS).
//
// Mask encoding (ptokit's; only TSEL/TSELS read it): element (r, c) of the compared tile is bit c % 8
// (least significant first) of byte (r, c / 8) of a uint8 mask tile. TCMP/TCMPS write the bytes that
// cover the source's valid columns, with the bits past the last valid column zero.
#ifndef PTO_CPU_OPS_COMPARE_HPP
#define PTO_CPU_OPS_COMPARE_HPP

#include "pto/cpu/ops.hpp"

namespace pto {

enum class CmpMode { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };

namespace cpu {
// IEEE comparisons for floats (a NaN compares unequal to everything, ordered comparisons are false).
template <typename T>
inline bool compare(T a, T b, CmpMode m) {
    switch (m) {
        case CmpMode::EQ: return a == b;
        case CmpMode::NE: return a != b;
        case CmpMode::LT: return a < b;
        case CmpMode::LE: return a <= b;
        case CmpMode::GT: return a > b;
        default: return a >= b;
    }
}

template <typename MaskT>
inline uint8_t* mask_rows(const char* name, MaskT& mask, int vr, int vc) {
    static_assert(sizeof(typename MaskT::DType) == 1, "mask tiles hold bytes (uint8)");
    if (vr > MaskT::Rows || (vc + 7) / 8 > MaskT::Cols)
        fatal(name, "a %dx%d mask tile cannot hold the bits of a %dx%d region (needs %dx%d bytes)", MaskT::Rows,
              MaskT::Cols, vr, vc, vr, (vc + 7) / 8);
    return (uint8_t*)ptr(mask, name);
}

// dst mask bit (r, c) = pred(r, c) over a vr x vc region
template <typename MaskT, typename P>
inline void write_mask(const char* name, MaskT& dst, int vr, int vc, P pred) {
    uint8_t* m = mask_rows(name, dst, vr, vc);
    for (int r = 0; r < vr; ++r) {
        uint8_t* row = m + (int64_t)r * MaskT::Cols;
        for (int b = 0; b < (vc + 7) / 8; ++b) {
            unsigned byte = 0;
            for (int k = 0; k < 8 && b * 8 + k < vc; ++k)
                if (pred(r, b * 8 + k)) byte |= 1u << k;
            row[b] = (uint8_t)byte;
        }
    }
}

template <typename MaskT>
inline bool mask_bit(const uint8_t* m, int r, int c) {
    return (m[(int64_t)r * MaskT::Cols + c / 8] >> (c % 8)) & 1u;
}
}  // namespace cpu

template <typename TileDataDst, typename TileDataSrc>
inline RecordEvent TCMP(TileDataDst& dst, TileDataSrc& src0, TileDataSrc& src1, CmpMode cmpMode) {
    using CT = cpu::calc_t<typename TileDataSrc::DType>;
    const typename TileDataSrc::DType* a = cpu::ptr(src0, "TCMP");
    const typename TileDataSrc::DType* b = cpu::ptr(src1, "TCMP");
    cpu::write_mask("TCMP", dst, cpu::vrows(src0), cpu::vcols(src0), [&](int r, int c) {
        return cpu::compare(cpu::cvt<CT>(a[cpu::at<TileDataSrc>(r, c)]), cpu::cvt<CT>(b[cpu::at<TileDataSrc>(r, c)]),
                            cmpMode);
    });
    return {};
}

template <typename TileDataDst, typename TileDataSrc0, typename T>
inline RecordEvent TCMPS(TileDataDst& dst, TileDataSrc0& src0, T src1, CmpMode cmpMode) {
    using CT = cpu::calc_t<typename TileDataSrc0::DType>;
    const typename TileDataSrc0::DType* a = cpu::ptr(src0, "TCMPS");
    const CT s = cpu::cvt<CT>(cpu::cvt<typename TileDataSrc0::DType>(src1));
    cpu::write_mask("TCMPS", dst, cpu::vrows(src0), cpu::vcols(src0), [&](int r, int c) {
        return cpu::compare(cpu::cvt<CT>(a[cpu::at<TileDataSrc0>(r, c)]), s, cmpMode);
    });
    return {};
}

// dst = mask ? src0 : src1 over dst's valid region; tmp is the hardware's scratch (unused on the CPU).
template <typename TileData, typename MaskTile, typename TmpTile>
inline RecordEvent TSEL(TileData& dst, MaskTile& selMask, TileData& src0, TileData& src1, TmpTile&) {
    using DT = typename TileData::DType;
    DT* d = cpu::ptr(dst, "TSEL");
    const DT* a = cpu::ptr(src0, "TSEL");
    const DT* b = cpu::ptr(src1, "TSEL");
    const int vr = cpu::vrows(dst), vc = cpu::vcols(dst);
    const uint8_t* m = cpu::mask_rows("TSEL", selMask, vr, vc);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const int64_t i = cpu::at<TileData>(r, c);
            d[i] = cpu::mask_bit<MaskTile>(m, r, c) ? a[i] : b[i];
        }
    return {};
}
template <typename TileData, typename MaskTile>
inline RecordEvent TSEL(TileData& dst, MaskTile& selMask, TileData& src0, TileData& src1) {
    return TSEL(dst, selMask, src0, src1, selMask);
}

// dst = mask ? src : scalar over dst's valid region.
template <typename TileData, typename MaskTile, typename TmpTile, typename T>
inline RecordEvent TSELS(TileData& dst, MaskTile& selMask, TileData& src, TmpTile&, T scalar) {
    using DT = typename TileData::DType;
    DT* d = cpu::ptr(dst, "TSELS");
    const DT* a = cpu::ptr(src, "TSELS");
    const DT s = cpu::cvt<DT>(scalar);
    const int vr = cpu::vrows(dst), vc = cpu::vcols(dst);
    const uint8_t* m = cpu::mask_rows("TSELS", selMask, vr, vc);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const int64_t i = cpu::at<TileData>(r, c);
            d[i] = cpu::mask_bit<MaskTile>(m, r, c) ? a[i] : s;
        }
    return {};
}

}  // namespace pto

#endif
