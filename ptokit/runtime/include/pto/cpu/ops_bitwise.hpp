// CPU tile library: bitwise ops and shifts on integer tiles (TNOT TAND TOR TXOR TSHL TSHR and their *S forms).
//
// Semantics (pto-isa's A2/A3 definition): bits are computed on the unsigned type of the element; a
// shift amount is taken modulo the element width (x << 33 on int32 is x << 1, a negative amount is
// its two's-complement bits modulo the width); TSHR is logical on unsigned and arithmetic (sign
// fill) on signed elements.
#ifndef PTO_CPU_OPS_BITWISE_HPP
#define PTO_CPU_OPS_BITWISE_HPP

#include "pto/cpu/ops.hpp"

namespace pto {
namespace cpu {
template <typename T>
using bits_t = typename std::make_unsigned<T>::type;

template <typename T>
inline T shl_(T a, T amount) {
    using U = bits_t<T>;
    constexpr unsigned w = sizeof(T) * 8u;
    return (T)(U)((U)a << ((unsigned)(U)amount & (w - 1u)));
}
template <typename T>
inline T shr_(T a, T amount) {
    using U = bits_t<T>;
    constexpr unsigned w = sizeof(T) * 8u;
    const unsigned s = (unsigned)(U)amount & (w - 1u);
    U out = (U)((U)a >> s);
    if constexpr (std::is_signed<T>::value) {
        const U ones = (U)~U(0);
        if (a < 0 && s != 0) out = (U)(out | (U)(ones << (w - s)));
    }
    return (T)out;
}

// dst(r, c) = f(a(r, c), b(r, c)) on integers, over dst's valid region
template <typename D, typename A, typename B, typename F>
inline void int_binary(const char* name, D& dst, A& a, B& b, F f) {
    using T = typename D::DType;
    static_assert(std::is_integral<T>::value, "bitwise ops and shifts take integer tiles");
    T* d = ptr(dst, name);
    const typename A::DType* pa = ptr(a, name);
    const typename B::DType* pb = ptr(b, name);
    const int vr = vrows(dst), vc = vcols(dst);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) d[at<D>(r, c)] = f((T)pa[at<A>(r, c)], (T)pb[at<B>(r, c)]);
}
template <typename D, typename A, typename F>
inline void int_unary(const char* name, D& dst, A& a, F f) {
    using T = typename D::DType;
    static_assert(std::is_integral<T>::value, "bitwise ops and shifts take integer tiles");
    T* d = ptr(dst, name);
    const typename A::DType* pa = ptr(a, name);
    const int vr = vrows(dst), vc = vcols(dst);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) d[at<D>(r, c)] = f((T)pa[at<A>(r, c)]);
}
}  // namespace cpu

#define PTO_CPU_INT_BINARY(NAME, EXPR)                                                        \
    template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>              \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {       \
        using T = typename TileDataDst::DType;                                                 \
        cpu::int_binary(#NAME, dst, src0, src1, [](T a, T b) -> T { return EXPR; });         \
        return {};                                                                             \
    }
PTO_CPU_INT_BINARY(TAND, T((cpu::bits_t<T>)a & (cpu::bits_t<T>)b))
PTO_CPU_INT_BINARY(TOR, T((cpu::bits_t<T>)a | (cpu::bits_t<T>)b))
PTO_CPU_INT_BINARY(TSHL, cpu::shl_(a, b))
PTO_CPU_INT_BINARY(TSHR, cpu::shr_(a, b))
#undef PTO_CPU_INT_BINARY

#define PTO_CPU_INT_SCALAR(NAME, EXPR)                                                           \
    template <typename TileDataDst, typename TileDataSrc, typename S>                            \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc& src, S scalar) {                      \
        using T = typename TileDataDst::DType;                                                    \
        const T b = (T)scalar;                                                                    \
        cpu::int_unary(#NAME, dst, src, [b](T a) -> T { return EXPR; });                        \
        return {};                                                                                \
    }
PTO_CPU_INT_SCALAR(TANDS, T((cpu::bits_t<T>)a & (cpu::bits_t<T>)b))
PTO_CPU_INT_SCALAR(TORS, T((cpu::bits_t<T>)a | (cpu::bits_t<T>)b))
PTO_CPU_INT_SCALAR(TSHLS, cpu::shl_(a, b))
PTO_CPU_INT_SCALAR(TSHRS, cpu::shr_(a, b))
#undef PTO_CPU_INT_SCALAR

template <typename TileDataDst, typename TileDataSrc>
inline RecordEvent TNOT(TileDataDst& dst, TileDataSrc& src) {
    using T = typename TileDataDst::DType;
    cpu::int_unary("TNOT", dst, src, [](T a) -> T { return T(~(cpu::bits_t<T>)a); });
    return {};
}

// xor takes the hardware's scratch tile (unused on the CPU)
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp>
inline RecordEvent TXOR(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, TileDataTmp&) {
    using T = typename TileDataDst::DType;
    cpu::int_binary("TXOR", dst, src0, src1, [](T a, T b) -> T { return T((cpu::bits_t<T>)a ^ (cpu::bits_t<T>)b); });
    return {};
}
template <typename TileDataDst, typename TileDataSrc, typename S, typename TileDataTmp>
inline RecordEvent TXORS(TileDataDst& dst, TileDataSrc& src, S scalar, TileDataTmp&) {
    using T = typename TileDataDst::DType;
    const T b = (T)scalar;
    cpu::int_unary("TXORS", dst, src, [b](T a) -> T { return T((cpu::bits_t<T>)a ^ (cpu::bits_t<T>)b); });
    return {};
}

}  // namespace pto

#endif
