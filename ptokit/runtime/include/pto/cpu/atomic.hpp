// CPU tile library: element-wise atomic add into global memory (TSTORE<AtomicAdd>, TPUT with
// AtomicAdd, and the shared-memory transport's atomic window writes).
//
// Integers use __atomic_fetch_add (wrapping); float, half and bfloat16 a compare-and-swap loop
// (the sum rounded in the element type, as the hardware's atomic store does). Safe across threads
// and across processes sharing the memory; ordering comes from the signals (TNOTIFY's fence).
#ifndef PTO_CPU_ATOMIC_HPP
#define PTO_CPU_ATOMIC_HPP

#include <stdint.h>
#include <string.h>

#include "pto/cpu/types.hpp"

namespace pto { namespace cpu {

// ChipTensor DataType code of an element type (tensor.h / runtime.md), -1 when it has none.
template <typename T>
constexpr int32_t datatype_code() {
    if constexpr (std::is_same<T, float>::value) return 0;
    else if constexpr (std::is_same<T, half>::value) return 1;
    else if constexpr (std::is_same<T, int32_t>::value) return 2;
    else if constexpr (std::is_same<T, int16_t>::value) return 3;
    else if constexpr (std::is_same<T, int8_t>::value) return 4;
    else if constexpr (std::is_same<T, uint8_t>::value) return 5;
    else if constexpr (std::is_same<T, bfloat16_t>::value) return 6;
    else if constexpr (std::is_same<T, int64_t>::value) return 7;
    else if constexpr (std::is_same<T, uint64_t>::value) return 8;
    else if constexpr (std::is_same<T, uint16_t>::value) return 9;
    else if constexpr (std::is_same<T, uint32_t>::value) return 10;
    else if constexpr (std::is_same<T, bool>::value) return 11;
    else return -1;
}

// *p += v as one atomic step: integers wrap; floats (and half/bf16, added in float) retry a compare-exchange.
template <typename T>
inline void atomic_add(T* p, T v) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        __atomic_fetch_add((U*)p, (U)v, __ATOMIC_RELAXED);
    } else {
        T old, upd;
        __atomic_load(p, &old, __ATOMIC_RELAXED);
        do {
            upd = cvt<T>(cvt<calc_t<T>>(old) + cvt<calc_t<T>>(v));
        } while (!__atomic_compare_exchange(p, &old, &upd, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
}

template <typename T>
inline void atomic_add_elems(void* dst, const void* src, uint64_t n) {
    T* d = static_cast<T*>(dst);
    const unsigned char* s = static_cast<const unsigned char*>(src);
    for (uint64_t i = 0; i < n; ++i) {
        T v;
        memcpy(&v, s + i * sizeof(T), sizeof(T));
        atomic_add(d + i, v);
    }
}

// dst[i] += src[i] atomically for the `bytes / size` elements of DataType `dtype`; false when
// the type has no atomic add (bool) or is unknown.
inline bool atomic_add_bytes(void* dst, const void* src, uint64_t bytes, int32_t dtype) {
    switch (dtype) {
        case 0: atomic_add_elems<float>(dst, src, bytes / 4); return true;
        case 1: atomic_add_elems<half>(dst, src, bytes / 2); return true;
        case 2: atomic_add_elems<int32_t>(dst, src, bytes / 4); return true;
        case 3: atomic_add_elems<int16_t>(dst, src, bytes / 2); return true;
        case 4: atomic_add_elems<int8_t>(dst, src, bytes); return true;
        case 5: atomic_add_elems<uint8_t>(dst, src, bytes); return true;
        case 6: atomic_add_elems<bfloat16_t>(dst, src, bytes / 2); return true;
        case 7: atomic_add_elems<int64_t>(dst, src, bytes / 8); return true;
        case 8: atomic_add_elems<uint64_t>(dst, src, bytes / 8); return true;
        case 9: atomic_add_elems<uint16_t>(dst, src, bytes / 2); return true;
        case 10: atomic_add_elems<uint32_t>(dst, src, bytes / 4); return true;
    }
    return false;
}

}}  // namespace pto::cpu

#endif
