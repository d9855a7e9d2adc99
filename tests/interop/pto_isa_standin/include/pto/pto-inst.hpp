// A stand-in for pto-isa's CPU headers, for ptokit's tests only: NOT pto-isa and none of its code.
// It has the build requirements of pto-isa's CPU headers that ptokit's PTO_ISA_ROOT mode must meet,
// then forwards to ptokit's own tile library (the next pto/pto-inst.hpp on the include path), so a
// tree built "against the vendor library" here computes exactly what ptokit's library computes.

// 1. uint8_t is used before any #include (as pto-isa's pto/common/type.hpp does): the build has
//    to pre-include stdint.h.
typedef uint8_t pto_standin_byte_t;

// 2. C++20 only (pto-isa uses std::remove_cvref_t, requires-clauses, std::bit_cast).
#if __cplusplus < 202002L
#error "pto-isa stand-in: these headers need -std=c++20"
#endif
#include <bit>
#include <type_traits>
template <typename T>
concept PtoStandinHasDType = requires { typename std::remove_cvref_t<T>::DType; };
inline float pto_standin_bits_roundtrip(float f) { return std::bit_cast<float>(std::bit_cast<uint32_t>(f)); }

// 3. A -Wall warning in the library's own header (pto-isa has several): fine as a system header
//    (-isystem), a build failure under -Werror when included with -I.
inline int pto_standin_warns_under_wall() {
    int pto_standin_unused_local = 0;
    return 1;
}

#define PTO_ISA_STANDIN 1
#include_next <pto/pto-inst.hpp>
