// CPU tile library: sorting (section C of the vector op set): TSORT32, TMRGSORT.
//
// A record is 8 bytes, the value first: FP32 (value, index bits), FP16 (value, 0, index low 16 bits,
// index high 16 bits). Order: descending by value; NaN sorts before every number; equal values
// (-0 == +0) keep the smaller index first (TSORT32) or the earlier list first (TMRGSORT).
#ifndef PTO_CPU_OPS_SORT_HPP
#define PTO_CPU_OPS_SORT_HPP

#include <algorithm>

#include "pto/cpu/ops.hpp"

namespace pto {

// How many records TMRGSORT format 2 took from each list (a vector<4xi16> in the .pto).
struct MrgSortExecutedNumList {
    uint16_t mrgSortList0;
    uint16_t mrgSortList1;
    uint16_t mrgSortList2;
    uint16_t mrgSortList3;
};

namespace cpu {
// a comes before b in descending order (NaN first); false for equal values
inline bool sorts_before(float a, float b) {
    if (a != a) return b == b;
    if (b != b) return false;
    return a > b;
}

template <typename T>
constexpr int record_elems() {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "sort: FP32 or FP16 records");
    return 8 / (int)sizeof(T);
}
}  // namespace cpu

// Each block of 32 elements of a row of src (the last one may be shorter, over src's valid columns)
// sorted descending into records of (value, idx): dst row r, record k of block b at column
// (32 b + k) * record_elems. idx has src's shape, or one row shared by every row.
template <typename TileDataDst, typename TileDataSrc, typename TileDataIdx>
inline RecordEvent TSORT32(TileDataDst& dst, TileDataSrc& src, TileDataIdx& idx) {
    using T = typename TileDataSrc::DType;
    static_assert(std::is_same<typename TileDataDst::DType, T>::value, "TSORT32: dst and src have one dtype");
    static_assert(std::is_same<typename TileDataIdx::DType, uint32_t>::value, "TSORT32: idx is uint32");
    constexpr int K = cpu::record_elems<T>();
    T* d = cpu::ptr(dst, "TSORT32");
    const T* s = cpu::ptr(src, "TSORT32");
    const uint32_t* ix = cpu::ptr(idx, "TSORT32");
    const int vr = cpu::vrows(src), vc = cpu::vcols(src);
    const bool shared = cpu::vrows(idx) == 1;
    if (vc * K > TileDataDst::Cols || vr > TileDataDst::Rows)
        cpu::fatal("TSORT32", "%dx%d values give %dx%d record elements, more than the %dx%d destination", vr, vc, vr,
                   vc * K, TileDataDst::Rows, TileDataDst::Cols);
    if (!shared && cpu::vrows(idx) < vr) cpu::fatal("TSORT32", "idx has %d valid rows for %d rows of values",
                                                    cpu::vrows(idx), vr);
    if (cpu::vcols(idx) < vc) cpu::fatal("TSORT32", "idx has %d valid columns for %d values", cpu::vcols(idx), vc);
    struct Item {
        float key;
        T value;
        uint32_t index;
    };
    Item items[32];
    for (int r = 0; r < vr; ++r) {
        for (int b = 0; b < vc; b += 32) {
            const int n = vc - b < 32 ? vc - b : 32;
            for (int k = 0; k < n; ++k) {
                const T v = s[cpu::at<TileDataSrc>(r, b + k)];
                items[k] = Item{(float)v, v, ix[cpu::at<TileDataIdx>(shared ? 0 : r, b + k)]};
            }
            std::stable_sort(items, items + n, [](const Item& x, const Item& y) {
                if (cpu::sorts_before(x.key, y.key)) return true;
                if (cpu::sorts_before(y.key, x.key)) return false;
                return x.index < y.index;
            });
            for (int k = 0; k < n; ++k) {
                T* rec = d + cpu::at<TileDataDst>(r, (b + k) * K);
                rec[0] = items[k].value;
                if constexpr (K == 2) {
                    memcpy((void*)(rec + 1), &items[k].index, 4);
                } else {
                    memset((void*)(rec + 1), 0, 2);
                    memcpy((void*)(rec + 2), &items[k].index, 4);
                }
            }
        }
    }
    return {};
}
template <typename TileDataDst, typename TileDataSrc, typename TileDataIdx, typename TileDataTmp>
inline RecordEvent TSORT32(TileDataDst& dst, TileDataSrc& src, TileDataIdx& idx, TileDataTmp&) {
    return TSORT32(dst, src, idx);
}

namespace cpu {
// Merges up to 4 descending lists of records into out (at most cap records); with exhausted, stops
// as soon as one list is used up. taken[i] = records taken from list i. Ties: the earlier list first.
template <typename T>
inline int merge_records(T* out, int cap, const T* const* lists, const int* counts, int n, bool exhausted,
                         int* taken) {
    constexpr int K = record_elems<T>();
    for (int i = 0; i < 4; ++i) taken[i] = 0;
    int w = 0;
    while (w < cap) {
        int pick = -1;
        for (int i = 0; i < n; ++i) {
            if (taken[i] >= counts[i]) continue;
            if (pick < 0 || sorts_before((float)lists[i][taken[i] * K], (float)lists[pick][taken[pick] * K])) pick = i;
        }
        if (pick < 0) break;
        memcpy((void*)(out + (int64_t)w * K), (const void*)(lists[pick] + (int64_t)taken[pick] * K), 8);
        ++w;
        ++taken[pick];
        if (exhausted && taken[pick] == counts[pick]) break;
    }
    return w;
}

template <typename TileT>
inline void check_merge_tile(const char* role) {
    static_assert(TileT::Loc == TileType::Vec && TileT::Rows == 1, "TMRGSORT: tiles are one-row Vec tiles");
    (void)role;
}
}  // namespace cpu

// Format 1: each group of 4 consecutive sorted runs of blockLen elements (records, value + index) of
// src's valid columns merged into one sorted run of dst.
template <typename TileDataDst, typename TileDataSrc>
inline RecordEvent TMRGSORT(TileDataDst& dst, TileDataSrc& src, uint32_t blockLen) {
    using T = typename TileDataSrc::DType;
    static_assert(std::is_same<typename TileDataDst::DType, T>::value, "TMRGSORT: dst and src have one dtype");
    cpu::check_merge_tile<TileDataDst>("dst");
    cpu::check_merge_tile<TileDataSrc>("src");
    constexpr int K = cpu::record_elems<T>();
    const int vc = cpu::vcols(src);
    if (blockLen == 0 || blockLen % K != 0)
        cpu::fatal("TMRGSORT", "blockLen %u is not a whole number of %d-element records", blockLen, K);
    if (vc % (4 * (int64_t)blockLen) != 0)
        cpu::fatal("TMRGSORT", "%d valid columns are not whole groups of 4 runs of blockLen %u", vc, blockLen);
    if (cpu::vcols(dst) < vc) cpu::fatal("TMRGSORT", "a %d-column destination for %d columns", cpu::vcols(dst), vc);
    T* d = cpu::ptr(dst, "TMRGSORT");
    const T* s = cpu::ptr(src, "TMRGSORT");
    T* copy = (T*)cpu::scratch(0, sizeof(T) * (size_t)vc);   // dst may be src
    memcpy((void*)copy, (const void*)s, sizeof(T) * (size_t)vc);
    const int run = (int)(blockLen / K);
    for (int g = 0; g < vc; g += 4 * (int)blockLen) {
        const T* lists[4];
        int counts[4], taken[4];
        for (int i = 0; i < 4; ++i) {
            lists[i] = copy + g + i * (int)blockLen;
            counts[i] = run;
        }
        cpu::merge_records(d + g, 4 * run, lists, counts, 4, false, taken);
    }
    return {};
}

namespace cpu {
template <bool exhausted, typename TileDataDst, typename TileDataTmp, typename... Srcs>
inline void merge_lists(TileDataDst& dst, MrgSortExecutedNumList& executed, TileDataTmp& tmp, Srcs&... srcs) {
    using T = typename TileDataDst::DType;
    constexpr int K = record_elems<T>();
    constexpr int n = (int)sizeof...(Srcs);
    check_merge_tile<TileDataDst>("dst");
    check_merge_tile<TileDataTmp>("tmp");
    static_assert((std::is_same<typename Srcs::DType, T>::value && ...), "TMRGSORT: all lists have one dtype");
    (check_merge_tile<Srcs>("src"), ...);
    const T* lists[4] = {ptr(srcs, "TMRGSORT")...};
    int counts[4] = {vcols(srcs) / K...};
    int taken[4];
    ptr(tmp, "TMRGSORT");
    T* d = ptr(dst, "TMRGSORT");
    int total = 0;
    for (int i = 0; i < n; ++i) total += counts[i];
    const int cap = vcols(dst) / K;
    if (cap < total && !exhausted)
        fatal("TMRGSORT", "%d records do not fit the %d-record destination", total, cap);
    T* out = (T*)scratch(0, sizeof(T) * (size_t)cap * K + 8);   // dst may be one of the lists
    const int w = merge_records(out, cap, lists, counts, n, exhausted, taken);
    memcpy((void*)d, (const void*)out, sizeof(T) * (size_t)w * K);
    executed.mrgSortList0 = (uint16_t)taken[0];
    executed.mrgSortList1 = (uint16_t)taken[1];
    executed.mrgSortList2 = (uint16_t)taken[2];
    executed.mrgSortList3 = (uint16_t)taken[3];
}
}  // namespace cpu

// Format 2: 2, 3 or 4 sorted one-row lists of records merged into dst (exhausted: stop when one list
// is used up; executed holds how many records each list gave).
template <typename TileDataDst, typename TileDataTmp, typename TileDataSrc0, typename TileDataSrc1, bool exhausted>
inline RecordEvent TMRGSORT(TileDataDst& dst, MrgSortExecutedNumList& executedNumList, TileDataTmp& tmp,
                            TileDataSrc0& src0, TileDataSrc1& src1) {
    cpu::merge_lists<exhausted>(dst, executedNumList, tmp, src0, src1);
    return {};
}
template <typename TileDataDst, typename TileDataTmp, typename TileDataSrc0, typename TileDataSrc1,
          typename TileDataSrc2, bool exhausted>
inline RecordEvent TMRGSORT(TileDataDst& dst, MrgSortExecutedNumList& executedNumList, TileDataTmp& tmp,
                            TileDataSrc0& src0, TileDataSrc1& src1, TileDataSrc2& src2) {
    cpu::merge_lists<exhausted>(dst, executedNumList, tmp, src0, src1, src2);
    return {};
}
template <typename TileDataDst, typename TileDataTmp, typename TileDataSrc0, typename TileDataSrc1,
          typename TileDataSrc2, typename TileDataSrc3, bool exhausted>
inline RecordEvent TMRGSORT(TileDataDst& dst, MrgSortExecutedNumList& executedNumList, TileDataTmp& tmp,
                            TileDataSrc0& src0, TileDataSrc1& src1, TileDataSrc2& src2, TileDataSrc3& src3) {
    cpu::merge_lists<exhausted>(dst, executedNumList, tmp, src0, src1, src2, src3);
    return {};
}

}  // namespace pto

#endif
