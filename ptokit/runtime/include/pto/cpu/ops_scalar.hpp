// CPU tile library: one element of a tile or of a tensor in global memory (pl.read / pl.write in
// kernel code), and the checked slot of a local array (pl.array in kernel code).
//
// TGETVAL / TSETVAL take a flat row-major offset over the tile's physical rows x cols (element
// (offset / Cols, offset % Cols), read through the tile's layout). LOAD_SCALAR / STORE_SCALAR take
// an element offset from a tensor argument's base pointer; the access is checked against that
// argument like a TLOAD / TSTORE. An offset outside the tile or the tensor is a fatal error naming
// the instruction, never a read or write of a neighbour.
#ifndef PTO_CPU_OPS_SCALAR_HPP
#define PTO_CPU_OPS_SCALAR_HPP

#include "pto/cpu/ops.hpp"

namespace pto {
namespace cpu {
template <typename TileData>
inline int64_t element_at(const char* instr, int64_t index) {
    if (index < 0 || index >= (int64_t)TileData::Rows * TileData::Cols)
        fatal(instr, "element %lld is outside the %dx%d tile", (long long)index, TileData::Rows, TileData::Cols);
    return at<TileData>((int)(index / TileData::Cols), (int)(index % TileData::Cols));
}

// The slot of a local array (pto.local_array_get / set): an index outside it stops the kernel.
inline int64_t LOCAL_ARRAY_SLOT(int64_t index, int64_t extent) {
    if (index < 0 || index >= extent)
        fatal("LOCAL_ARRAY", "index %lld is outside the local array of %lld elements", (long long)index,
              (long long)extent);
    return index;
}
}  // namespace cpu

template <typename TileData>
inline typename TileData::DType TGETVAL(TileData& src, int64_t index) {
    const typename TileData::DType* s = cpu::ptr(src, "TGETVAL");
    return s[cpu::element_at<TileData>("TGETVAL", index)];
}

template <typename TileData, typename V>
inline RecordEvent TSETVAL(TileData& dst, int64_t index, V value) {
    typename TileData::DType* d = cpu::ptr(dst, "TSETVAL");
    d[cpu::element_at<TileData>("TSETVAL", index)] = cpu::cvt<typename TileData::DType>(value);
    return {};
}

template <typename T>
inline T LOAD_SCALAR(__gm__ T* base, int64_t offset) {
    cpu::check_gm("LOAD_SCALAR", base, base + offset, sizeof(T), sizeof(T), 1, 1);
    return base[offset];
}

template <typename T, typename V>
inline void STORE_SCALAR(__gm__ T* base, int64_t offset, V value) {
    cpu::check_gm("STORE_SCALAR", base, base + offset, sizeof(T), sizeof(T), 1, 1, true);
    base[offset] = cpu::cvt<T>(value);
}
}  // namespace pto

#endif
