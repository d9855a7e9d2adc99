// CPU tile library: tiles made from scalars (TEXPANDS TCI TTRI TRANDOM) and TFILLPAD_EXPAND.
//
// TRANDOM is Philox-4x32 with 7 or 10 rounds (Random123's round function and key schedule): the
// valid region is numbered row-major, n = r * validCols + c; element n is word n % 4 of the block
// made from key (key0, key1) and counter (counter0 + n / 4, counter1, counter2, counter3), the
// addition carrying into the higher counter words. The same seeds give the same tile on every run.
#ifndef PTO_CPU_OPS_GEN_HPP
#define PTO_CPU_OPS_GEN_HPP

#include "pto/cpu/ops.hpp"

namespace pto {

// dst = scalar over dst's valid region
template <typename TileData, typename T>
inline RecordEvent TEXPANDS(TileData& dst, T scalar) {
    using DT = typename TileData::DType;
    DT* d = cpu::ptr(dst, "TEXPANDS");
    const DT v = cpu::cvt<DT>(scalar);
    for (int r = 0; r < cpu::vrows(dst); ++r)
        for (int c = 0; c < cpu::vcols(dst); ++c) d[cpu::at<TileData>(r, c)] = v;
    return {};
}

// dst[0, k] = S + k (descending: S - k) for k < the valid columns, wrapping; only the first row.
template <typename TileData, typename T, int descending>
inline RecordEvent TCI(TileData& dst, T S) {
    using DT = typename TileData::DType;
    static_assert(std::is_integral<DT>::value && (sizeof(DT) == 2 || sizeof(DT) == 4), "TCI writes int16 or int32");
    static_assert(TileData::Cols != 1, "TCI needs a row of more than one column");
    using U = typename std::make_unsigned<DT>::type;
    DT* d = cpu::ptr(dst, "TCI");
    const U s = (U)(DT)S;
    for (int k = 0; k < cpu::vcols(dst); ++k) d[k] = (DT)(U)(descending ? s - (U)k : s + (U)k);
    return {};
}

// 1 where j <= i + diagonal (upper: j >= i + diagonal), else 0, over dst's valid region.
template <typename TileData, int isUpperOrLower>
inline RecordEvent TTRI(TileData& dst, int diagonal) {
    using DT = typename TileData::DType;
    static_assert(isUpperOrLower == 0 || isUpperOrLower == 1, "TTRI: 0 is lower, 1 is upper");
    DT* d = cpu::ptr(dst, "TTRI");
    for (int i = 0; i < cpu::vrows(dst); ++i)
        for (int j = 0; j < cpu::vcols(dst); ++j) {
            const int64_t edge = (int64_t)i + diagonal;
            const bool one = isUpperOrLower ? (int64_t)j >= edge : (int64_t)j <= edge;
            d[cpu::at<TileData>(i, j)] = cpu::cvt<DT>(one ? 1 : 0);
        }
    return {};
}

namespace cpu {
// one Philox-4x32 block of R rounds
template <int R>
inline void philox4x32(uint32_t ctr[4], uint32_t k0, uint32_t k1) {
    for (int round = 0; round < R; ++round) {
        if (round) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0];
        const uint64_t p1 = (uint64_t)0xCD9E8D57u * ctr[2];
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ ctr[1] ^ k0;
        const uint32_t n2 = (uint32_t)(p0 >> 32) ^ ctr[3] ^ k1;
        ctr[1] = (uint32_t)p1;
        ctr[3] = (uint32_t)p0;
        ctr[0] = n0;
        ctr[2] = n2;
    }
}
}  // namespace cpu

template <int Rounds, typename TileData>
inline RecordEvent TRANDOM(TileData& dst, uint32_t key0, uint32_t key1, uint32_t counter0, uint32_t counter1,
                           uint32_t counter2, uint32_t counter3) {
    using DT = typename TileData::DType;
    static_assert(std::is_integral<DT>::value && sizeof(DT) == 4, "TRANDOM writes int32 or uint32");
    static_assert(Rounds == 7 || Rounds == 10, "TRANDOM runs 7 or 10 rounds");
    DT* d = cpu::ptr(dst, "TRANDOM");
    const int vr = cpu::vrows(dst), vc = cpu::vcols(dst);
    uint32_t block[4] = {0, 0, 0, 0};
    int64_t have = -1;
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const int64_t n = (int64_t)r * vc + c, b = n / 4;
            if (b != have) {
                const uint64_t lo = (uint64_t)counter0 + (uint64_t)b;       // counter + b, carried upwards
                const uint64_t mid = (uint64_t)counter1 + (lo >> 32);
                const uint64_t hi = (uint64_t)counter2 + (mid >> 32);
                block[0] = (uint32_t)lo;
                block[1] = (uint32_t)mid;
                block[2] = (uint32_t)hi;
                block[3] = counter3 + (uint32_t)(hi >> 32);
                cpu::philox4x32<Rounds>(block, key0, key1);
                have = b;
            }
            const uint32_t w = block[n % 4];
            memcpy(&d[cpu::at<TileData>(r, c)], &w, 4);
        }
    return {};
}

// copy src's valid region into dst's top-left and fill the rest of dst with its pad value
template <typename DstTileData, typename SrcTileData>
inline RecordEvent TFILLPAD_EXPAND(DstTileData& dst, SrcTileData& src) {
    static_assert(DstTileData::Rows >= SrcTileData::Rows && DstTileData::Cols >= SrcTileData::Cols,
                  "TFILLPAD_EXPAND: the destination must not be smaller than the source");
    return TFILLPAD(dst, src);
}

}  // namespace pto

#endif
