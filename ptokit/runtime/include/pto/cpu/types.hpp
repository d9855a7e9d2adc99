// CPU tile library: qualifiers, pipe-sync no-ops, element types, enums.
#ifndef PTO_CPU_TYPES_HPP
#define PTO_CPU_TYPES_HPP

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <type_traits>

// ---- address-space qualifiers and function qualifiers (empty on the CPU) ----
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef AICORE
#define AICORE
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif

// ---- pipe synchronisation: execution is in order on the CPU, so these only order the estimated
// device timeline (defined in pto/cpu/estimate.hpp) ----
#ifndef PTO_CPU_NO_SYNC_INTRINSICS
enum pipe_t {
    PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL,
    PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX
};
enum event_t {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7
};
inline void set_flag(int src, int dst, int event);
inline void wait_flag(int src, int dst, int event);
inline void pipe_barrier(int pipe);
#endif

// ---- vector-mask setup of an AIV body (the vendor assembler's first two lines): the CPU library
// always works on a tile's valid region, so the mask mode and the mask itself change nothing ----
#ifndef PTO_CPU_NO_MASK_INTRINSICS
inline void set_mask_norm() {}
inline void set_vector_mask(uint64_t, uint64_t) {}
#endif

// ---- 16-bit float storage types (global, like the vendor's CPU build) ----
namespace pto { namespace cpu {
inline uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// float -> IEEE binary16, round to nearest even (NaN stays NaN, overflow -> inf).
inline uint16_t f32_to_f16(float f) {
    const uint32_t x = f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)  // inf / nan
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? (0x200u | ((ax >> 13) & 0x3ffu)) : 0u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (ax < 0x38800000u) {  // result is subnormal or zero: let the FPU round (ulp 2^-24)
        float a = bits_f32(ax) + 0.5f;
        return (uint16_t)(sign | (f32_bits(a) - 0x3f000000u));
    }
    const uint32_t odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round
    return (uint16_t)(sign | (ax >> 13));
}
inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = (float)m * 5.9604644775390625e-08f;  // m * 2^-24
        return bits_f32(f32_bits(v) | sign);
    }
    if (e == 31) return bits_f32(sign | 0x7f800000u | (m << 13));
    return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}
inline uint16_t f32_to_bf16(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);  // quiet NaN
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
inline float bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }
}}  // namespace pto::cpu

struct half {
    uint16_t bits;
    half() = default;
    half(float f) : bits(pto::cpu::f32_to_f16(f)) {}
    operator float() const { return pto::cpu::f16_to_f32(bits); }
    static half from_bits(uint16_t b) { half h; h.bits = b; return h; }
};

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(pto::cpu::f32_to_bf16(f)) {}
    operator float() const { return pto::cpu::bf16_to_f32(bits); }
    static bfloat16_t from_bits(uint16_t b) { bfloat16_t h; h.bits = b; return h; }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "16-bit float storage types");

// ---- 8-bit float storage types of the a5 MX matmul (OCP formats) ----
// float8_e4m3_t: E4M3FN (bias 7, no infinities, S.1111.111 is NaN, max 448);
// float8_e5m2_t: E5M2 (bias 15, IEEE-like: infinities and NaNs at exponent 31);
// float8_e8m0_t: E8M0 scale (2^(e - 127), 0xFF is NaN, no sign, no zero).
// Decoding is exact (every code is a float); encoding rounds to nearest even, saturating E4M3FN to
// +-448 and E5M2 to +-inf (NaN stays NaN). E8M0 encodes a power of two's exponent (rounded down).
namespace pto { namespace cpu {
inline float f8_decode(uint8_t b, int mbits, int bias, bool fn) {
    const uint32_t sign = (b >> 7) & 1u;
    const int ebits = 7 - mbits;
    const uint32_t e = (b >> mbits) & ((1u << ebits) - 1u), m = b & ((1u << mbits) - 1u);
    const uint32_t emax = (1u << ebits) - 1u;
    float v;
    if (fn && e == emax && m == (1u << mbits) - 1u) return bits_f32(0x7fc00000u | (sign << 31));
    if (!fn && e == emax) return bits_f32((sign << 31) | (m ? 0x7fc00000u : 0x7f800000u));
    if (e == 0) v = (float)m * bits_f32((uint32_t)(127 + 1 - bias - mbits) << 23);
    else v = bits_f32(((e + 127u - (uint32_t)bias) << 23) | (m << (23 - mbits)));
    return sign ? -v : v;
}
inline uint8_t f8_encode(float f, int mbits, int bias, bool fn) {
    const uint32_t x = f32_bits(f);
    const uint8_t sign = (uint8_t)((x >> 24) & 0x80u);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint8_t)(sign | (fn ? 0x7f : 0x7e));   // NaN
    const int ebits = 7 - mbits;
    // the largest finite code (positive codes decode in ascending order)
    const unsigned maxc = fn ? 0x7eu : ((((1u << ebits) - 2u) << mbits) | ((1u << mbits) - 1u));
    const float a = bits_f32(x & 0x7fffffffu);
    float lo = 0.0f;
    for (unsigned c = 1; c <= maxc; ++c) {
        const float v = f8_decode((uint8_t)c, mbits, bias, fn);
        if (v > a) {   // a lies in [lo, v): the nearer one, ties to the even code
            const float dlo = a - lo, dhi = v - a;
            return (uint8_t)(sign | ((dhi < dlo || (dhi == dlo && (c & 1u) == 0)) ? c : c - 1));
        }
        lo = v;
    }
    if (fn || a == lo) return (uint8_t)(sign | maxc);   // E4M3FN saturates
    const float half_ulp = (lo - f8_decode((uint8_t)(maxc - 1), mbits, bias, fn)) * 0.5f;
    return (uint8_t)(sign | (a < lo + half_ulp || (a == lo + half_ulp && (maxc & 1u) == 0) ? maxc : 0x7cu));
}
}}  // namespace pto::cpu

struct float8_e4m3_t {
    uint8_t bits;
    float8_e4m3_t() = default;
    float8_e4m3_t(float f) : bits(pto::cpu::f8_encode(f, 3, 7, true)) {}
    operator float() const { return pto::cpu::f8_decode(bits, 3, 7, true); }
};
struct float8_e5m2_t {
    uint8_t bits;
    float8_e5m2_t() = default;
    float8_e5m2_t(float f) : bits(pto::cpu::f8_encode(f, 2, 15, false)) {}
    operator float() const { return pto::cpu::f8_decode(bits, 2, 15, false); }
};
struct float8_e8m0_t {
    uint8_t bits;
    float8_e8m0_t() = default;
    float8_e8m0_t(float f) {
        const uint32_t x = pto::cpu::f32_bits(f) & 0x7fffffffu;
        bits = x > 0x7f800000u ? (uint8_t)0xff : (uint8_t)(x >> 23);
    }
    operator float() const {
        if (bits == 0xff) return pto::cpu::bits_f32(0x7fc00000u);
        if (bits == 0) return pto::cpu::bits_f32(0x00400000u);   // 2^-127 (an fp32 subnormal)
        return pto::cpu::bits_f32((uint32_t)bits << 23);
    }
};
static_assert(sizeof(float8_e4m3_t) == 1 && sizeof(float8_e5m2_t) == 1 && sizeof(float8_e8m0_t) == 1,
              "8-bit float storage types");

// ---- 4-bit storage types: one value a byte, in its low four bits (ml_dtypes' layout) ----
// float4_e2m1_t: OCP E2M1 (bias 1, no infinities or NaN): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives.
// Decoding is exact; encoding rounds to nearest even and saturates to +-6 (NaN encodes as -0, as
// ml_dtypes does).  int4b_t / uint4b_t: two's complement -8..7 / 0..15; the conversions from wider
// integers saturate (cpu::convert), a plain construction keeps the low four bits.
namespace pto { namespace cpu {
inline float f4_decode(uint8_t b) {
    static const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    return (b & 0x8u) ? -mag[b & 0x7u] : mag[b & 0x7u];
}
inline uint8_t f4_encode(float f) {
    const uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x8u;
    const uint8_t sign = (uint8_t)((x >> 28) & 0x8u);
    const float a = bits_f32(x & 0x7fffffffu);
    for (unsigned c = 1; c < 8; ++c) {
        const float lo = f4_decode((uint8_t)(c - 1)), hi = f4_decode((uint8_t)c);
        if (a < hi) {   // a lies in [lo, hi): the nearer one, ties to the even code
            const float dlo = a - lo, dhi = hi - a;
            return (uint8_t)(sign | ((dhi < dlo || (dhi == dlo && (c & 1u) == 0)) ? c : c - 1));
        }
    }
    return (uint8_t)(sign | 0x7u);   // saturates
}
}}  // namespace pto::cpu

struct float4_e2m1_t {
    uint8_t bits;
    float4_e2m1_t() = default;
    float4_e2m1_t(float f) : bits(pto::cpu::f4_encode(f)) {}
    operator float() const { return pto::cpu::f4_decode(bits); }
};
struct int4b_t {
    uint8_t bits;
    int4b_t() = default;
    template <typename T, typename = typename std::enable_if<std::is_integral<T>::value>::type>
    int4b_t(T v) : bits((uint8_t)((unsigned)v & 0xfu)) {}
    operator int() const { return (int)((bits & 0xfu) ^ 0x8u) - 8; }
};
struct uint4b_t {
    uint8_t bits;
    uint4b_t() = default;
    template <typename T, typename = typename std::enable_if<std::is_integral<T>::value>::type>
    uint4b_t(T v) : bits((uint8_t)((unsigned)v & 0xfu)) {}
    operator int() const { return (int)(bits & 0xfu); }
};
static_assert(sizeof(float4_e2m1_t) == 1 && sizeof(int4b_t) == 1 && sizeof(uint4b_t) == 1, "4-bit storage types");

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight };
enum class BLayout { RowMajor = 0, ColMajor = 1 };
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
enum class PadValue { Null, Zero, Max, Min };
enum class CompactMode { Null, Normal };
enum class Layout { ND, DN, NZ, MX_A_ZZ, MX_B_NN };
enum class RoundMode : uint8_t {
    CAST_NONE = 0, CAST_RINT = 1, CAST_ROUND = 2, CAST_FLOOR = 3, CAST_CEIL = 4, CAST_TRUNC = 5, CAST_ODD = 6
};
enum class AtomicType : uint8_t { AtomicNone = 0, AtomicAdd = 1 };
constexpr int DYNAMIC = -1;

namespace TileConfig {
static constexpr int alignedSize = 32;
static constexpr int fractalABSize = 512;
static constexpr int fractalCSize = 1024;
}  // namespace TileConfig

// Returned by every instruction (an event token on hardware; nothing on the CPU).
struct RecordEvent {};

namespace cpu {
template <typename T>
struct is_f16like : std::integral_constant<bool, std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value ||
                                                std::is_same<T, float8_e4m3_t>::value ||
                                                std::is_same<T, float8_e5m2_t>::value ||
                                                std::is_same<T, float8_e8m0_t>::value ||
                                                std::is_same<T, float4_e2m1_t>::value> {};
// The 4-bit integers (stored a byte each): converted through int, saturating where narrowed.
template <typename T>
struct is_int4 : std::integral_constant<bool, std::is_same<T, int4b_t>::value || std::is_same<T, uint4b_t>::value> {};
template <typename T>
struct is_floatlike : std::integral_constant<bool, std::is_floating_point<T>::value || is_f16like<T>::value> {};
// Type in which elementwise arithmetic on T is carried out.
template <typename T>
using calc_t = typename std::conditional<is_f16like<T>::value, float, T>::type;

// Element conversion (through float for the 16-bit float types, through int for the 4-bit integers).
template <typename D, typename S>
inline D cvt(S s) {
    if constexpr (std::is_same<D, S>::value) {
        return s;
    } else if constexpr (is_int4<S>::value) {
        return cvt<D>((int)s);
    } else if constexpr (is_int4<D>::value) {
        return D((int)s);
    } else if constexpr (is_f16like<D>::value) {
        return D((float)s);
    } else if constexpr (is_f16like<S>::value) {
        return (D)(float)s;
    } else {
        return (D)s;
    }
}
}  // namespace cpu
}  // namespace pto

#endif
