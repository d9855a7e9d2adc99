// CPU tile library: element-wise atomic add into global memory (TSTORE<AtomicAdd>, TPUT with
// AtomicAdd, and the shared-memory transport's atomic window writes).
//
// Integers use __atomic_fetch_add; float, half and bfloat16 a compare-and-swap loop on the
// element's bits (the sum rounded in the element type, as the hardware's atomic store does).
// Safe across threads and across processes sharing the memory.
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

template <typename T>
inline void atomic_add_elem(T* p, T v) {
    if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
        __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    } else if constexpr (std::is_same<T, float>::value) {
        uint32_t* w = reinterpret_cast<uint32_t*>(p);
        uint32_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
        for (;;) {
            const uint32_t next = f32_bits(bits_f32(old) + v);
            if (__atomic_compare_exchange_n(w, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return;
        }
    } else {
        static_assert(is_f16like<T>::value, "atomic add: unsupported element type");
        uint16_t* w = reinterpret_cast<uint16_t*>(p);
        uint16_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
        for (;;) {
            const T sum = T((float)T::from_bits(old) + (float)v);
            uint16_t next = sum.bits;
            if (__atomic_compare_exchange_n(w, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return;
        }
    }
}

template <typename T>
inline void atomic_add_elems(void* dst, const void* src, uint64_t n) {
    T* d = static_cast<T*>(dst);
    const unsigned char* s = static_cast<const unsigned char*>(src);
    for (uint64_t i = 0; i < n; ++i) {
        T v;
        memcpy(&v, s + i * sizeof(T), sizeof(T));
        atomic_add_elem(d + i, v);
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
