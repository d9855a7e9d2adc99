// Field offsets of the device ABI structs, read by tests/runtime/test_sim_abi.py.
#include <stddef.h>
#include <stdint.h>

#include "intrinsic.h"
#include "pto_orchestration_api.h"
#include "tensor.h"

#define OFF(T, f) (uint64_t) offsetof(T, f)

extern "C" int chip_tensor_layout(uint64_t* out) {
    uint64_t v[] = {sizeof(ChipTensor), alignof(ChipTensor),
                    OFF(ChipTensor, buffer) + OFF(ChipTensorBuffer, addr), OFF(ChipTensor, buffer) + OFF(ChipTensorBuffer, size),
                    OFF(ChipTensor, owner_task_id), OFF(ChipTensor, start_offset), OFF(ChipTensor, version),
                    OFF(ChipTensor, ndims), OFF(ChipTensor, dtype), OFF(ChipTensor, manual_dep),
                    OFF(ChipTensor, is_contiguous), OFF(ChipTensor, address_space), OFF(ChipTensor, shapes),
                    OFF(ChipTensor, extent_elem_cache), OFF(ChipTensor, strides), OFF(ChipTensor, padding)};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; ++i) out[i] = v[i];
    return (int)(sizeof v / sizeof v[0]);
}

extern "C" int context_layout(uint64_t* out) {
    uint64_t v[] = {sizeof(LocalContext), OFF(LocalContext, block_idx), OFF(LocalContext, block_num),
                    OFF(LocalContext, task_id), OFF(LocalContext, core_id),
                    sizeof(GlobalContext), OFF(GlobalContext, sub_block_id), OFF(GlobalContext, cluster_id),
                    OFF(GlobalContext, core_id), OFF(GlobalContext, core_type)};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; ++i) out[i] = v[i];
    return (int)(sizeof v / sizeof v[0]);
}

extern "C" uint32_t element_size(uint8_t dt) { return get_element_size((DataType)dt); }

extern "C" uint64_t scalar_bits_f32(float f) { return to_u64(f); }
extern "C" uint64_t scalar_bits_i32(int32_t v) { return to_u64(v); }

// make_tensor_view on an [8, 16] float tensor: the [4, 8] window at (4, 8)
extern "C" void view_probe(uint64_t* out) {
    ChipTensor t;
    memset(&t, 0, sizeof t);
    t.ndims = 2;
    t.shapes[0] = 8;
    t.shapes[1] = 16;
    t.strides[0] = 16;
    t.strides[1] = 1;
    t.is_contiguous = true;
    uint32_t shp[2] = {4, 8}, off[2] = {4, 8};
    ChipTensor v = make_tensor_view(t, shp, off, 2);
    uint32_t rows[2] = {2, 16}, roff[2] = {3, 0};
    ChipTensor r = make_tensor_view(t, rows, roff, 2);
    out[0] = v.start_offset;
    out[1] = v.shapes[0];
    out[2] = v.shapes[1];
    out[3] = v.is_contiguous;
    out[4] = r.start_offset;
    out[5] = r.is_contiguous;
}
