// CPU tile library: remainders, leaky/parametric relu, three-operand sums, partial ops, exp-diff broadcasts,
// and the scratch-tile forms of TRSQRT and TCOLSUM.
//
// Integer arithmetic wraps (it is done on the unsigned type); an integer remainder by zero is 0, like
// TDIV. TREM on floats is pto-isa's x - trunc(x / y) * y in float (0 when y == 0); TFMOD is C's fmod.
// TSUBC is src0 - src1 + src2 and TSUBSC src0 - scalar + src1 (pto-isa's definition). The four
// three-operand sums are two instructions on the device (TADD/TSUB, then TADD): with f16/bf16 tiles
// the first result is rounded to the tile's type before the second (stored_as).
#ifndef PTO_CPU_OPS_ARITH_HPP
#define PTO_CPU_OPS_ARITH_HPP

#include "pto/cpu/ops.hpp"

namespace pto {
namespace cpu {
template <typename T>
inline T wadd(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)(U)((U)a + (U)b);
    } else {
        return a + b;
    }
}
// ``x`` (computed in calc_t) as a tile of element type DT holds it: rounded for f16/bf16, else x.
template <typename DT, typename CT>
inline CT stored_as(CT x) {
    if constexpr (is_f16like<DT>::value) {
        return cvt<CT>(cvt<DT>(x));
    } else {
        return x;
    }
}
template <typename T>
inline T wsub(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)(U)((U)a - (U)b);
    } else {
        return a - b;
    }
}
template <typename T>
inline T wmul(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)(U)((uint64_t)(U)a * (uint64_t)(U)b);
    } else {
        return a * b;
    }
}

template <typename T>
inline T rem_(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        if (b == 0) return T(0);
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(0);      // also INT_MIN % -1, which C leaves undefined
        }
        return T(a % b);
    } else {
        const float x = (float)a, y = (float)b;
        if (y == 0.0f) return T(0.0f);
        const float q = truncf(x / y);
        return T(x - q * y);
    }
}
template <typename T>
inline T fmod_(T a, T b) {
    return T(fmodf((float)a, (float)b));
}

// dst(r, c) = f(a, b, c) element by element over dst's valid region, computed in calc_t
template <typename D, typename A, typename B, typename C, typename F>
inline void ternary(const char* name, D& dst, A& a, B& b, C& c, F f) {
    using DT = typename D::DType;
    using CT = calc_t<DT>;
    DT* d = ptr(dst, name);
    const typename A::DType* pa = ptr(a, name);
    const typename B::DType* pb = ptr(b, name);
    const typename C::DType* pc = ptr(c, name);
    const int vr = vrows(dst), vc = vcols(dst);
    for (int r = 0; r < vr; ++r)
        for (int k = 0; k < vc; ++k)
            d[at<D>(r, k)] = cvt<DT>(f(cvt<CT>(pa[at<A>(r, k)]), cvt<CT>(pb[at<B>(r, k)]), cvt<CT>(pc[at<C>(r, k)])));
}

// Partial op: over dst's valid region; where both sources are valid f(a, b), where only one is, that
// one. One source's valid region must be dst's (the other lies inside it).
template <typename D, typename A, typename B, typename F>
inline void partial(const char* name, D& dst, A& a, B& b, F f) {
    using DT = typename D::DType;
    using CT = calc_t<DT>;
    DT* d = ptr(dst, name);
    const typename A::DType* pa = ptr(a, name);
    const typename B::DType* pb = ptr(b, name);
    const int vr = vrows(dst), vc = vcols(dst);
    const int ar = vrows(a), ac = vcols(a), br = vrows(b), bc = vcols(b);
    if (!((ar == vr && ac == vc) || (br == vr && bc == vc)))
        fatal(name, "neither source's valid region (%dx%d, %dx%d) is the destination's (%dx%d)", ar, ac, br, bc, vr,
              vc);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const bool ina = r < ar && c < ac, inb = r < br && c < bc;
            const CT x = ina ? cvt<CT>(pa[at<A>(r, c)]) : CT(0), y = inb ? cvt<CT>(pb[at<B>(r, c)]) : CT(0);
            d[at<D>(r, c)] = cvt<DT>(ina && inb ? f(x, y) : (ina ? x : y));
        }
}
}  // namespace cpu

// ==================================================================== remainders
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp>
inline RecordEvent TREM(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, TileDataTmp&) {
    cpu::binary("TREM", dst, src0, src1, [](auto a, auto b) { return cpu::rem_(a, b); });
    return {};
}
template <typename TileDataDst, typename TileDataSrc, typename T, typename TileDataTmp>
inline RecordEvent TREMS(TileDataDst& dst, TileDataSrc& src, T scalar, TileDataTmp&) {
    using CT = cpu::calc_t<typename TileDataDst::DType>;
    const CT b = cpu::cvt<CT>(cpu::cvt<typename TileDataDst::DType>(scalar));
    cpu::unary("TREMS", dst, src, [b](CT a) { return cpu::rem_(a, b); });
    return {};
}
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>
inline RecordEvent TFMOD(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {
    cpu::binary("TFMOD", dst, src0, src1, [](auto a, auto b) { return cpu::fmod_(a, b); });
    return {};
}
template <typename TileDataDst, typename TileDataSrc, typename T>
inline RecordEvent TFMODS(TileDataDst& dst, TileDataSrc& src, T scalar) {
    using CT = cpu::calc_t<typename TileDataDst::DType>;
    const CT b = cpu::cvt<CT>(cpu::cvt<typename TileDataDst::DType>(scalar));
    cpu::unary("TFMODS", dst, src, [b](CT a) { return cpu::fmod_(a, b); });
    return {};
}

// ==================================================================== relu variants
template <typename TileDataDst, typename TileDataSrc, typename T>
inline RecordEvent TLRELU(TileDataDst& dst, TileDataSrc& src, T slope) {
    using CT = cpu::calc_t<typename TileDataDst::DType>;
    const CT s = cpu::cvt<CT>(cpu::cvt<typename TileDataDst::DType>(slope));
    cpu::unary("TLRELU", dst, src, [s](CT x) { return x > CT(0) ? x : CT(x * s); });
    return {};
}
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp>
inline RecordEvent TPRELU(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, TileDataTmp&) {
    cpu::binary("TPRELU", dst, src0, src1, [](auto x, auto a) { return x > decltype(x)(0) ? x : decltype(x)(x * a); });
    return {};
}

// ==================================================================== three operands
template <typename TileData>
inline RecordEvent TADDC(TileData& dst, TileData& src0, TileData& src1, TileData& src2) {
    using DT = typename TileData::DType;
    cpu::ternary("TADDC", dst, src0, src1, src2,
                 [](auto a, auto b, auto c) { return cpu::wadd(cpu::stored_as<DT>(cpu::wadd(a, b)), c); });
    return {};
}
template <typename TileData>
inline RecordEvent TSUBC(TileData& dst, TileData& src0, TileData& src1, TileData& src2) {
    using DT = typename TileData::DType;
    cpu::ternary("TSUBC", dst, src0, src1, src2,
                 [](auto a, auto b, auto c) { return cpu::wadd(cpu::stored_as<DT>(cpu::wsub(a, b)), c); });
    return {};
}
template <typename TileData, typename T>
inline RecordEvent TADDSC(TileData& dst, TileData& src0, T scalar, TileData& src1) {
    using CT = cpu::calc_t<typename TileData::DType>;
    const CT s = cpu::cvt<CT>(cpu::cvt<typename TileData::DType>(scalar));
    cpu::binary("TADDSC", dst, src0, src1,
                [s](auto a, auto b) { return cpu::wadd(cpu::stored_as<typename TileData::DType>(cpu::wadd(a, s)), b); });
    return {};
}
template <typename TileData, typename T>
inline RecordEvent TSUBSC(TileData& dst, TileData& src0, T scalar, TileData& src1) {
    using CT = cpu::calc_t<typename TileData::DType>;
    const CT s = cpu::cvt<CT>(cpu::cvt<typename TileData::DType>(scalar));
    cpu::binary("TSUBSC", dst, src0, src1,
                [s](auto a, auto b) { return cpu::wadd(cpu::stored_as<typename TileData::DType>(cpu::wsub(a, s)), b); });
    return {};
}

// ==================================================================== partial ops
#define PTO_CPU_PARTIAL(NAME, EXPR)                                                            \
    template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>               \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {        \
        cpu::partial(#NAME, dst, src0, src1, [](auto a, auto b) { return EXPR; });             \
        return {};                                                                              \
    }
PTO_CPU_PARTIAL(TPARTADD, cpu::wadd(a, b))
PTO_CPU_PARTIAL(TPARTMUL, cpu::wmul(a, b))
PTO_CPU_PARTIAL(TPARTMAX, cpu::max_(a, b))
PTO_CPU_PARTIAL(TPARTMIN, cpu::min_(a, b))
#undef PTO_CPU_PARTIAL

// ==================================================================== exp(t - v) broadcasts
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>
inline RecordEvent TROWEXPANDEXPDIF(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {
    cpu::expand<true>("TROWEXPANDEXPDIF", dst, &src0, src1,
                      [](auto a, auto b) { return cpu::fmath(a - b, [](auto v) { return exp(v); }); });
    return {};
}
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>
inline RecordEvent TCOLEXPANDEXPDIF(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {
    cpu::expand<false>("TCOLEXPANDEXPDIF", dst, &src0, src1,
                       [](auto a, auto b) { return cpu::fmath(a - b, [](auto v) { return exp(v); }); });
    return {};
}

// ==================================================================== scratch-tile forms
// The hardware's high-precision rsqrt takes a scratch tile (the CPU result is correctly rounded
// either way); the column sum's scratch tile holds the pairwise sums of its binary-tree form.
template <typename TileDataDst, typename TileDataSrc, typename TileDataTmp>
inline RecordEvent TRSQRT(TileDataDst& dst, TileDataSrc& src, TileDataTmp&) {
    return TRSQRT(dst, src);
}
template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>
inline RecordEvent TCOLSUM(TileDataOut& dst, TileDataIn& src, TileDataTmp&, bool isBinary = false) {
    if (isBinary) cpu::colsum<true>("TCOLSUM", dst, src);
    else cpu::colsum<false>("TCOLSUM", dst, src);
    return {};
}

}  // namespace pto

#endif
