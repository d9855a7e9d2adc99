// CPU tile library: gathers and scatters (section C of the vector op set): TGATHER (index and mask
// forms), TSCATTER (index and mask forms), TGATHERB, MGATHER, MSCATTER.
//
// Every index is checked: one outside the source or destination is a fatal error naming the
// instruction, the index and where it was read (the simulator's fatal hook adds the kernel and the
// task). Nothing is ever read from or written to a neighbouring tile or tensor.
#ifndef PTO_CPU_OPS_GATHER_HPP
#define PTO_CPU_OPS_GATHER_HPP

#include "pto/cpu/ops.hpp"

namespace pto {

// Which columns of a row a mask gather/scatter touches (bits read right to left: P0101 = 0, 2, 4, ...).
enum class MaskPattern : uint8_t { P0101 = 1, P1010 = 2, P0001 = 3, P0010 = 4, P0100 = 5, P1000 = 6, P1111 = 7 };
enum class Coalesce : uint8_t { Row = 0, Elem = 1 };
enum class GatherOOB : uint8_t { Undefined = 0, Clamp = 1, Wrap = 2, Zero = 3 };

namespace cpu {
constexpr bool mask_selects(MaskPattern p, int c) {
    return p == MaskPattern::P1111 ? true
           : p == MaskPattern::P0101 ? c % 2 == 0
           : p == MaskPattern::P1010 ? c % 2 == 1
           : c % 4 == (int)p - (int)MaskPattern::P0001;
}

template <typename IdxT>
inline int64_t index_at(const IdxT* p, int64_t off) { return (int64_t)p[off]; }

inline const char* oob_name(GatherOOB m) {
    return m == GatherOOB::Clamp ? "clamp" : m == GatherOOB::Wrap ? "wrap"
           : m == GatherOOB::Zero ? "zero" : "undefined";
}
}  // namespace cpu

// ==================================================================== by flat element offset
// dst[r, c] = src0.flat[src1[r, c]] over dst's valid region (flat = row * Cols + col of src0).
template <typename TileDataD, typename TileDataS0, typename TileDataS1, typename TileDataTmp>
inline RecordEvent TGATHER(TileDataD& dst, TileDataS0& src0, TileDataS1& src1, TileDataTmp& tmp) {
    using DT = typename TileDataD::DType;
    static_assert(std::is_integral<typename TileDataS1::DType>::value, "TGATHER: indices must be integers");
    cpu::ptr(tmp, "TGATHER");
    DT* d = cpu::ptr(dst, "TGATHER");
    const typename TileDataS0::DType* s = cpu::ptr(src0, "TGATHER");
    const typename TileDataS1::DType* ix = cpu::ptr(src1, "TGATHER");
    const int64_t n = (int64_t)TileDataS0::Rows * TileDataS0::Cols;
    const int vr = cpu::vrows(dst), vc = cpu::vcols(dst);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const int64_t k = cpu::index_at(ix, cpu::at<TileDataS1>(r, c));
            if (k < 0 || k >= n)
                cpu::fatal("TGATHER", "index %lld at indices[%d, %d] is outside the %dx%d source tile (flat offsets "
                           "0..%lld)", (long long)k, r, c, TileDataS0::Rows, TileDataS0::Cols, (long long)(n - 1));
            d[cpu::at<TileDataD>(r, c)] = cpu::cvt<DT>(s[cpu::at<TileDataS0>((int)(k / TileDataS0::Cols),
                                                                            (int)(k % TileDataS0::Cols))]);
        }
    return {};
}

// dst.flat[indexes[r, c]] = src[r, c] over the index tile's valid region, rows first to last (the
// last write to an offset wins).
template <typename TileDataDst, typename TileDataSrc, typename TileInd>
inline RecordEvent TSCATTER(TileDataDst& dst, TileDataSrc& src, TileInd& indexes) {
    using DT = typename TileDataDst::DType;
    static_assert(std::is_integral<typename TileInd::DType>::value, "TSCATTER: indexes must be integers");
    DT* d = cpu::ptr(dst, "TSCATTER");
    const typename TileDataSrc::DType* s = cpu::ptr(src, "TSCATTER");
    const typename TileInd::DType* ix = cpu::ptr(indexes, "TSCATTER");
    const int64_t n = (int64_t)TileDataDst::Rows * TileDataDst::Cols;
    const int vr = cpu::vrows(indexes), vc = cpu::vcols(indexes);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const int64_t k = cpu::index_at(ix, cpu::at<TileInd>(r, c));
            if (k < 0 || k >= n)
                cpu::fatal("TSCATTER", "index %lld at indexes[%d, %d] is outside the %dx%d destination tile (flat "
                           "offsets 0..%lld)", (long long)k, r, c, TileDataDst::Rows, TileDataDst::Cols,
                           (long long)(n - 1));
            d[cpu::at<TileDataDst>((int)(k / TileDataDst::Cols), (int)(k % TileDataDst::Cols))] =
                cpu::cvt<DT>(s[cpu::at<TileDataSrc>(r, c)]);
        }
    return {};
}

// ==================================================================== by mask pattern
// Row form: the columns of each row of src's valid region the pattern marks, packed left into dst.
template <typename TileDataDst, typename TileDataSrc, MaskPattern maskPattern>
inline RecordEvent TGATHER(TileDataDst& dst, TileDataSrc& src) {
    static_assert(sizeof(typename TileDataDst::DType) == sizeof(typename TileDataSrc::DType),
                  "TGATHER: the mask form keeps the element size (output_dtype reinterprets the bits)");
    using DT = typename TileDataDst::DType;
    DT* d = cpu::ptr(dst, "TGATHER");
    const typename TileDataSrc::DType* s = cpu::ptr(src, "TGATHER");
    const int vr = cpu::vrows(src), vc = cpu::vcols(src);
    if (vr > TileDataDst::Rows) cpu::fatal("TGATHER", "%d source rows do not fit the %d-row destination", vr,
                                           TileDataDst::Rows);
    for (int r = 0; r < vr; ++r) {
        int k = 0;
        for (int c = 0; c < vc; ++c) {
            if (!cpu::mask_selects(maskPattern, c)) continue;
            if (k >= TileDataDst::Cols)
                cpu::fatal("TGATHER", "the masked columns of a %d-column row do not fit the %d-column destination",
                           vc, TileDataDst::Cols);
            memcpy((void*)(d + cpu::at<TileDataDst>(r, k++)), (const void*)(s + cpu::at<TileDataSrc>(r, c)),
                   sizeof(DT));
        }
    }
    return {};
}

// Row form: each row of src into the columns of dst's valid region the pattern marks; the other
// columns of the valid region become 0.
template <MaskPattern maskPattern, typename TileDataDst, typename TileDataSrc>
inline RecordEvent TSCATTER(TileDataDst& dst, TileDataSrc& src) {
    static_assert(sizeof(typename TileDataDst::DType) == sizeof(typename TileDataSrc::DType),
                  "TSCATTER: the mask form keeps the element size");
    using DT = typename TileDataDst::DType;
    DT* d = cpu::ptr(dst, "TSCATTER");
    const typename TileDataSrc::DType* s = cpu::ptr(src, "TSCATTER");
    const int vr = cpu::vrows(dst), vc = cpu::vcols(dst);
    if (vr > TileDataSrc::Rows) cpu::fatal("TSCATTER", "%d destination rows but a %d-row source", vr,
                                           TileDataSrc::Rows);
    for (int r = 0; r < vr; ++r) {
        int k = 0;
        for (int c = 0; c < vc; ++c) {
            DT* out = d + cpu::at<TileDataDst>(r, c);
            if (!cpu::mask_selects(maskPattern, c)) {
                *out = DT(0.0f);
                continue;
            }
            if (k >= TileDataSrc::Cols)
                cpu::fatal("TSCATTER", "a %d-column source row has too few elements for the masked columns of %d",
                           TileDataSrc::Cols, vc);
            memcpy((void*)out, (const void*)(s + cpu::at<TileDataSrc>(r, k++)), sizeof(DT));
        }
    }
    return {};
}

// ==================================================================== 32-byte blocks
// Each UINT32 byte offset offset[r, k] selects the 32 bytes of src at that offset: dst[r, k*E .. k*E+E-1]
// (E = 32 / sizeof(dst element)). The offset must be a multiple of 32 inside src.
template <typename TileDataDst, typename TileDataSrc, typename TileDataOff>
inline RecordEvent TGATHERB(TileDataDst& dst, TileDataSrc& src, TileDataOff& offset) {
    using DT = typename TileDataDst::DType;
    static_assert(std::is_same<typename TileDataOff::DType, uint32_t>::value, "TGATHERB: offsets are uint32 bytes");
    static_assert(32 % sizeof(DT) == 0, "TGATHERB: a block holds a whole number of elements");
    constexpr int E = 32 / (int)sizeof(DT);
    DT* d = cpu::ptr(dst, "TGATHERB");
    const uint8_t* s = (const uint8_t*)cpu::ptr(src, "TGATHERB");
    const uint32_t* off = cpu::ptr(offset, "TGATHERB");
    const uint64_t bytes = TileDataSrc::Bytes;
    const int vr = cpu::vrows(offset), vc = cpu::vcols(offset);
    if (vr > TileDataDst::Rows || vc * E > TileDataDst::Cols)
        cpu::fatal("TGATHERB", "%dx%d offsets give %dx%d elements, more than the %dx%d destination", vr, vc, vr,
                   vc * E, TileDataDst::Rows, TileDataDst::Cols);
    for (int r = 0; r < vr; ++r)
        for (int k = 0; k < vc; ++k) {
            const uint64_t o = off[cpu::at<TileDataOff>(r, k)];
            if (o % 32 != 0 || o + 32 > bytes)
                cpu::fatal("TGATHERB", "byte offset %llu at offset[%d, %d] is not a 32-byte block of the %llu-byte "
                           "source tile", (unsigned long long)o, r, k, (unsigned long long)bytes);
            memcpy((void*)(d + cpu::at<TileDataDst>(r, k * E)), (const void*)(s + o), 32);
        }
    return {};
}

// ==================================================================== global memory
// Row form: dst row r = the tensor's row indexes[r] (the index tile is one row or one column);
// element form: dst[r, c] = the tensor's element indexes[r, c] (flat, row-major). An index out of
// range is fatal with GatherOOB::Undefined, else clamped, wrapped, or read as zero.
template <Coalesce CMode, GatherOOB Mode, typename TileDst, typename GlobalData, typename TileInd>
inline RecordEvent MGATHER(TileDst& dst, GlobalData& src, TileInd& indexes) {
    using DT = typename TileDst::DType;
    using ST = typename GlobalData::DType;
    static_assert(sizeof(DT) == sizeof(ST), "MGATHER: element sizes must match");
    DT* d = cpu::ptr(dst, "MGATHER");
    const typename TileInd::DType* ix = cpu::ptr(indexes, "MGATHER");
    if (!src.data_) cpu::fatal("MGATHER", "global tensor has a null data pointer");
    const cpu::GmView<GlobalData> v(src);
    const int64_t cap = CMode == Coalesce::Row ? v.rows : v.rows * v.cols;
    const int vr = cpu::vrows(dst), vc = cpu::vcols(dst);
    if (CMode == Coalesce::Row && vc > v.cols)
        cpu::fatal("MGATHER", "a %d-column tile row is wider than the tensor's %lld columns", vc, (long long)v.cols);
    auto fix = [&](int64_t k, int r, int c, bool& zero) -> int64_t {
        zero = false;
        if (k >= 0 && k < cap) return k;
        if (Mode == GatherOOB::Clamp) return k < 0 ? 0 : cap - 1;
        if (Mode == GatherOOB::Wrap) return ((k % cap) + cap) % cap;
        if (Mode == GatherOOB::Zero) {
            zero = true;
            return 0;
        }
        cpu::fatal("MGATHER", "index %lld at idx[%d, %d] is outside the %lld %s of the source tensor "
                   "(gather_oob=%s)", (long long)k, r, c, (long long)cap, CMode == Coalesce::Row ? "rows" : "elements",
                   cpu::oob_name(Mode));
    };
    const ST* g = src.data_;
    for (int r = 0; r < vr; ++r) {
        if (CMode == Coalesce::Row) {
            bool zero;
            const int ir = TileInd::Rows == 1 ? 0 : r, ic = TileInd::Rows == 1 ? r : 0;
            const int64_t row = fix(cpu::index_at(ix, cpu::at<TileInd>(ir, ic)), ir, ic, zero);
            for (int c = 0; c < vc; ++c) {
                DT* out = d + cpu::at<TileDst>(r, c);
                if (zero) {
                    *out = DT(0.0f);
                    continue;
                }
                const ST* p = g + v.offset(row, c);
                cpu::check_gm("MGATHER", src.origin_, p, sizeof(ST), sizeof(ST), vr, vc);
                memcpy((void*)out, (const void*)p, sizeof(DT));
            }
            continue;
        }
        for (int c = 0; c < vc; ++c) {
            bool zero;
            const int64_t k = fix(cpu::index_at(ix, cpu::at<TileInd>(r, c)), r, c, zero);
            DT* out = d + cpu::at<TileDst>(r, c);
            if (zero) {
                *out = DT(0.0f);
                continue;
            }
            const ST* p = g + v.offset(k / v.cols, k % v.cols);
            cpu::check_gm("MGATHER", src.origin_, p, sizeof(ST), sizeof(ST), vr, vc);
            memcpy((void*)out, (const void*)p, sizeof(DT));
        }
    }
    return {};
}

// dst.flat[indexes[r, c]] = src[r, c] into global memory over src's valid region, rows first to last
// (the last write to an element wins). An index outside the tensor is fatal.
template <typename GlobalData, typename TileSrc, typename TileInd>
inline RecordEvent MSCATTER(GlobalData& dst, TileSrc& src, TileInd& indexes) {
    using DT = typename GlobalData::DType;
    const typename TileSrc::DType* s = cpu::ptr(src, "MSCATTER");
    const typename TileInd::DType* ix = cpu::ptr(indexes, "MSCATTER");
    if (!dst.data_) cpu::fatal("MSCATTER", "global tensor has a null data pointer");
    const cpu::GmView<GlobalData> v(dst);
    const int64_t cap = v.rows * v.cols;
    const int vr = cpu::vrows(src), vc = cpu::vcols(src);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) {
            const int64_t k = cpu::index_at(ix, cpu::at<TileInd>(r, c));
            if (k < 0 || k >= cap)
                cpu::fatal("MSCATTER", "index %lld at idx[%d, %d] is outside the %lld elements of the destination "
                           "tensor", (long long)k, r, c, (long long)cap);
            DT* p = dst.data_ + v.offset(k / v.cols, k % v.cols);
            cpu::check_gm("MSCATTER", dst.origin_, p, sizeof(DT), sizeof(DT), vr, vc, true);
            *p = cpu::cvt<DT>(s[cpu::at<TileSrc>(r, c)]);
        }
    return {};
}

}  // namespace pto

#endif
