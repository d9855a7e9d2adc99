// CPU tile library: products and arg-reductions over a tile's valid region
// (TROWPROD TCOLPROD TROWARGMAX TROWARGMIN TCOLARGMAX TCOLARGMIN).
//
// Products: floats accumulate in double and round once; integers wrap. Arg-reductions write the
// int32 (or uint32) index of the first maximum / minimum; a NaN counts as larger and smaller than
// every number, so the first NaN of a row or column is its argmax and argmin (numpy's rule).
#ifndef PTO_CPU_OPS_REDUCE2_HPP
#define PTO_CPU_OPS_REDUCE2_HPP

#include "pto/cpu/ops.hpp"

namespace pto {
namespace cpu {
template <bool IsRow, typename D, typename S>
inline void product(const char* name, D& dst, S& src) {
    using ST = typename S::DType;
    using DT = typename D::DType;
    DT* d = ptr(dst, name);
    const ST* s = ptr(src, name);
    const int vr = vrows(src), vc = vcols(src);
    const int outer = IsRow ? vr : vc, inner = IsRow ? vc : vr;
    if (outer > (IsRow ? D::Rows : D::Cols))
        fatal(name, "result of %d elements does not fit a %dx%d tile", outer, D::Rows, D::Cols);
    for (int o = 0; o < outer; ++o) {
        const int64_t out = IsRow ? at<D>(o, 0) : at<D>(0, o);
        if constexpr (is_floatlike<ST>::value) {
            double acc = 1.0;
            for (int i = 0; i < inner; ++i) acc *= (double)cvt<float>(IsRow ? s[at<S>(o, i)] : s[at<S>(i, o)]);
            d[out] = cvt<DT>((float)acc);
        } else {
            using U = typename std::make_unsigned<ST>::type;
            uint64_t acc = 1;
            for (int i = 0; i < inner; ++i) acc *= (uint64_t)(U)(IsRow ? s[at<S>(o, i)] : s[at<S>(i, o)]);
            d[out] = (DT)(ST)(U)acc;
        }
    }
}

template <typename T>
inline bool is_nan_(T v) {
    if constexpr (is_floatlike<T>::value) return v != v;
    else return false;
}

// IsMax: argmax, else argmin; IsRow: per row (index of a column), else per column (index of a row)
template <bool IsRow, bool IsMax, typename D, typename S>
inline void arg_reduce(const char* name, D& dst, S& src) {
    using CT = calc_t<typename S::DType>;
    using DT = typename D::DType;
    static_assert(std::is_integral<DT>::value && sizeof(DT) == 4, "arg-reductions write int32 or uint32 indices");
    DT* d = ptr(dst, name);
    const typename S::DType* s = ptr(src, name);
    const int vr = vrows(src), vc = vcols(src);
    const int outer = IsRow ? vr : vc, inner = IsRow ? vc : vr;
    if (outer > (IsRow ? D::Rows : D::Cols))
        fatal(name, "result of %d elements does not fit a %dx%d tile", outer, D::Rows, D::Cols);
    for (int o = 0; o < outer; ++o) {
        int best = 0;
        CT bv = CT(0);
        for (int i = 0; i < inner; ++i) {
            const CT v = cvt<CT>(IsRow ? s[at<S>(o, i)] : s[at<S>(i, o)]);
            if (i == 0) {
                bv = v;
                continue;
            }
            if (is_nan_(bv)) break;
            if (is_nan_(v) || (IsMax ? v > bv : v < bv)) {
                best = i;
                bv = v;
            }
        }
        d[IsRow ? at<D>(o, 0) : at<D>(0, o)] = (DT)best;
    }
}
}  // namespace cpu

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>
inline RecordEvent TROWPROD(TileDataOut& dst, TileDataIn& src, TileDataTmp&) {
    cpu::product<true>("TROWPROD", dst, src);
    return {};
}
template <typename TileDataOut, typename TileDataIn>
inline RecordEvent TCOLPROD(TileDataOut& dst, TileDataIn& src) {
    cpu::product<false>("TCOLPROD", dst, src);
    return {};
}

#define PTO_CPU_ARG_REDUCE(NAME, ISROW, ISMAX)                                                     \
    template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>                     \
    inline RecordEvent NAME(TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp) {               \
        (void)tmp;                                                                                 \
        cpu::arg_reduce<ISROW, ISMAX>(#NAME, dst, src);                                          \
        return {};                                                                                 \
    }
PTO_CPU_ARG_REDUCE(TROWARGMAX, true, true)
PTO_CPU_ARG_REDUCE(TROWARGMIN, true, false)
PTO_CPU_ARG_REDUCE(TCOLARGMAX, false, true)
PTO_CPU_ARG_REDUCE(TCOLARGMIN, false, false)
#undef PTO_CPU_ARG_REDUCE

}  // namespace pto

#endif
