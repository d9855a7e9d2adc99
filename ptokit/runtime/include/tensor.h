// tensor.h -- the device tensor descriptor (ChipTensor) of the PTO runtime ABI.
//
// Kernels read it, the runtime writes it.  The layout is part of the ABI
// (runtime.md "Tensor descriptor"); every offset is checked below and mirrored
// by ptokit/runtime/abi.py (tested against each other).
#ifndef PTOKIT_TENSOR_H
#define PTOKIT_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <type_traits>

#ifndef __gm__
#define __gm__
#endif

enum class DataType : uint8_t {
    FLOAT32 = 0,
    FLOAT16 = 1,
    INT32 = 2,
    INT16 = 3,
    INT8 = 4,
    UINT8 = 5,
    BFLOAT16 = 6,
    INT64 = 7,
    UINT64 = 8,
    UINT16 = 9,
    UINT32 = 10,
    BOOL = 11,
};

constexpr int PTO_DATA_TYPE_COUNT = 12;

// Element size in bytes (0 for an unknown code).
constexpr inline uint32_t get_element_size(DataType dt) {
    switch (dt) {
        case DataType::FLOAT32: return 4;
        case DataType::FLOAT16: return 2;
        case DataType::INT32: return 4;
        case DataType::INT16: return 2;
        case DataType::INT8: return 1;
        case DataType::UINT8: return 1;
        case DataType::BFLOAT16: return 2;
        case DataType::INT64: return 8;
        case DataType::UINT64: return 8;
        case DataType::UINT16: return 2;
        case DataType::UINT32: return 4;
        case DataType::BOOL: return 1;
    }
    return 0;
}

constexpr int CHIP_TENSOR_MAX_DIMS = 5;
constexpr uint64_t CHIP_TENSOR_EXTERNAL_OWNER = UINT64_MAX;

enum ChipAddressSpace : uint8_t { ADDRESS_SPACE_HOST = 0, ADDRESS_SPACE_DEVICE = 1 };

struct ChipTensorBuffer {
    uint64_t addr;   // data address in bytes
    uint64_t size;   // buffer size in bytes
};

struct alignas(64) ChipTensor {
    ChipTensorBuffer buffer;        // 0
    uint64_t owner_task_id;         // 16: creating task; UINT64_MAX for external tensors
    uint64_t start_offset;          // 24: view origin, in elements
    int32_t version;                // 32
    uint32_t ndims;                 // 36: 1..5
    DataType dtype;                 // 40
    bool manual_dep;                // 41
    bool is_contiguous;             // 42
    uint8_t address_space;          // 43: HOST=0, DEVICE=1
    uint32_t shapes[CHIP_TENSOR_MAX_DIMS];   // 44
    uint64_t extent_elem_cache;     // 64
    uint32_t strides[CHIP_TENSOR_MAX_DIMS];  // 72: in elements
    uint8_t padding[36];            // 92

    // Number of elements of the view (product of shapes).
    uint64_t numel() const {
        uint64_t n = 1;
        for (uint32_t i = 0; i < ndims && i < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++i) n *= shapes[i];
        return n;
    }
    // One past the last element the view touches, relative to start_offset.
    uint64_t extent_elems() const {
        uint64_t e = 1;
        for (uint32_t i = 0; i < ndims && i < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++i) {
            if (shapes[i] == 0) return 0;
            e += (uint64_t)(shapes[i] - 1) * strides[i];
        }
        return e;
    }
    uint32_t element_size() const { return get_element_size(dtype); }
    template <typename T>
    T* data() const { return reinterpret_cast<T*>(buffer.addr) + start_offset; }
};

static_assert(sizeof(ChipTensor) == 128, "ChipTensor must be 128 bytes");
static_assert(alignof(ChipTensor) == 64, "ChipTensor must be 64-byte aligned");
static_assert(std::is_trivially_copyable<ChipTensor>::value, "ChipTensor must be trivially copyable");
static_assert(std::is_standard_layout<ChipTensor>::value, "ChipTensor must be standard layout");
static_assert(offsetof(ChipTensor, buffer) == 0, "ChipTensor::buffer");
static_assert(offsetof(ChipTensor, buffer) + offsetof(ChipTensorBuffer, addr) == 0, "buffer.addr");
static_assert(offsetof(ChipTensor, buffer) + offsetof(ChipTensorBuffer, size) == 8, "buffer.size");
static_assert(offsetof(ChipTensor, owner_task_id) == 16, "ChipTensor::owner_task_id");
static_assert(offsetof(ChipTensor, start_offset) == 24, "ChipTensor::start_offset");
static_assert(offsetof(ChipTensor, version) == 32, "ChipTensor::version");
static_assert(offsetof(ChipTensor, ndims) == 36, "ChipTensor::ndims");
static_assert(offsetof(ChipTensor, dtype) == 40, "ChipTensor::dtype");
static_assert(offsetof(ChipTensor, manual_dep) == 41, "ChipTensor::manual_dep");
static_assert(offsetof(ChipTensor, is_contiguous) == 42, "ChipTensor::is_contiguous");
static_assert(offsetof(ChipTensor, address_space) == 43, "ChipTensor::address_space");
static_assert(offsetof(ChipTensor, shapes) == 44, "ChipTensor::shapes");
static_assert(offsetof(ChipTensor, extent_elem_cache) == 64, "ChipTensor::extent_elem_cache");
static_assert(offsetof(ChipTensor, strides) == 72, "ChipTensor::strides");
static_assert(offsetof(ChipTensor, padding) == 92, "ChipTensor::padding");
static_assert(sizeof(DataType) == 1, "DataType is uint8");

#endif  // PTOKIT_TENSOR_H
