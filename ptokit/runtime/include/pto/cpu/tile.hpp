// CPU tile library: Shape, Stride, GlobalTensor, Tile, TASSIGN.
#ifndef PTO_CPU_TILE_HPP
#define PTO_CPU_TILE_HPP

#include <math.h>
#include <limits>

#include "pto/cpu/core.hpp"

namespace pto {

namespace cpu {
// Sets the dynamic (-1) entries of out[5] from `vals` (positional when n == 5, else the
// n values go to the dynamic entries in order); static entries keep their template value.
inline void fill_dims(int64_t out[5], const int64_t stat[5], const int64_t* vals, int n) {
    int k = 0;
    for (int d = 0; d < 5; ++d) {
        if (stat[d] != DYNAMIC) {
            out[d] = stat[d];
        } else if (n == 5) {
            out[d] = vals[d];
        } else {
            out[d] = k < n ? vals[k] : 1;
            ++k;
        }
    }
}
constexpr int64_t static_or_one(int64_t d) { return d == DYNAMIC ? 1 : d; }
template <int64_t A, int64_t B, int64_t C, int64_t D, int64_t E>
constexpr int count_dynamic() {
    return (A == DYNAMIC) + (B == DYNAMIC) + (C == DYNAMIC) + (D == DYNAMIC) + (E == DYNAMIC);
}
}  // namespace cpu

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Shape {
    static constexpr int64_t staticShape[5] = {N1, N2, N3, N4, N5};
    static constexpr int dynamicCount = cpu::count_dynamic<N1, N2, N3, N4, N5>();
    int64_t shape[5];

    // the static dims, 1 for the dynamic ones: constants, no loop for g++ to fold in every kernel
    Shape() : shape{cpu::static_or_one(N1), cpu::static_or_one(N2), cpu::static_or_one(N3), cpu::static_or_one(N4),
                    cpu::static_or_one(N5)} {}
    Shape(int64_t n1, int64_t n2, int64_t n3, int64_t n4, int64_t n5) {
        const int64_t v[5] = {n1, n2, n3, n4, n5};
        cpu::fill_dims(shape, staticShape, v, 5);
    }
    Shape(int64_t n1) { init<1>(n1); }
    Shape(int64_t n1, int64_t n2) { init<2>(n1, n2); }
    Shape(int64_t n1, int64_t n2, int64_t n3) { init<3>(n1, n2, n3); }
    Shape(int64_t n1, int64_t n2, int64_t n3, int64_t n4) { init<4>(n1, n2, n3, n4); }

private:
    template <int K, typename... A>
    void init(A... a) {
        static_assert(K == dynamicCount, "Shape: a k-argument constructor needs exactly k dynamic (-1) dims");
        const int64_t v[K] = {(int64_t)a...};
        cpu::fill_dims(shape, staticShape, v, K);
    }
};

template <int64_t S1 = DYNAMIC, int64_t S2 = DYNAMIC, int64_t S3 = DYNAMIC, int64_t S4 = DYNAMIC, int64_t S5 = DYNAMIC>
struct Stride {
    static constexpr int64_t staticStride[5] = {S1, S2, S3, S4, S5};
    static constexpr int dynamicCount = cpu::count_dynamic<S1, S2, S3, S4, S5>();
    int64_t stride[5];

    Stride() : stride{cpu::static_or_one(S1), cpu::static_or_one(S2), cpu::static_or_one(S3), cpu::static_or_one(S4),
                      cpu::static_or_one(S5)} {}
    Stride(int64_t n1, int64_t n2, int64_t n3, int64_t n4, int64_t n5) {
        const int64_t v[5] = {n1, n2, n3, n4, n5};
        cpu::fill_dims(stride, staticStride, v, 5);
    }
    Stride(int64_t n1) { init<1>(n1); }
    Stride(int64_t n1, int64_t n2) { init<2>(n1, n2); }
    Stride(int64_t n1, int64_t n2, int64_t n3) { init<3>(n1, n2, n3); }
    Stride(int64_t n1, int64_t n2, int64_t n3, int64_t n4) { init<4>(n1, n2, n3, n4); }

private:
    template <int K, typename... A>
    void init(A... a) {
        static_assert(K == dynamicCount, "Stride: a k-argument constructor needs exactly k dynamic (-1) dims");
        const int64_t v[K] = {(int64_t)a...};
        cpu::fill_dims(stride, staticStride, v, K);
    }
};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using Shape = Shape_;
    using Stride = Stride_;
    using RawDType = Element_;
    using DType = Element_;
    static constexpr Layout layout = Layout_;

    GlobalTensor() : data_(nullptr), shape_(), stride_() {}
    GlobalTensor(DType* data, const Shape_& shape = Shape_(), const Stride_& stride = Stride_())
        : data_(data), shape_(shape), stride_(stride) {}

    DType* data() const { return data_; }
    int64_t GetShape(int dim) const { return (dim >= 0 && dim < 5) ? shape_.shape[dim] : -1; }
    int64_t GetStride(int dim) const { return (dim >= 0 && dim < 5) ? stride_.stride[dim] : -1; }

    // CPU internals (public for the instruction implementations).
    DType* data_;
    Shape_ shape_;
    Stride_ stride_;
    // The kernel parameter this view was made from (set by ptokit's assembler output under
    // PTO_CPU_GM_ORIGIN; null when unknown): TLOAD/TSTORE check the access against that tensor
    // argument's bounds (pto_cpu_check_gm_access).
    const void* origin_ = nullptr;
};
// ptokit's tile library records GlobalTensor::origin_ (the vendor's has no such member).
#define PTO_CPU_GM_ORIGIN 1

template <TileType Loc_, typename Element_, const int Rows_, const int Cols_,
          const BLayout BFractal_ = BLayout::RowMajor, const int RowValid_ = Rows_, const int ColValid_ = Cols_,
          const SLayout SFractal_ = SLayout::NoneBox, const int SFractalSize_ = TileConfig::fractalABSize,
          const PadValue PadVal_ = PadValue::Null, const CompactMode Compact_ = CompactMode::Null>
struct Tile {
    using DType = Element_;
    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_;
    static constexpr int Cols = Cols_;
    static constexpr int ValidRow = RowValid_;
    static constexpr int ValidCol = ColValid_;
    static constexpr int Numel = Rows_ * Cols_;
    static constexpr BLayout BFractal = BFractal_;
    static constexpr SLayout SFractal = SFractal_;
    static constexpr int SFractalSize = SFractalSize_;
    static constexpr PadValue PadVal = PadVal_;
    static constexpr CompactMode Compact = Compact_;
    static constexpr bool isRowMajor = BFractal_ == BLayout::RowMajor;
    static constexpr uint64_t Bytes = (uint64_t)sizeof(Element_) * (uint64_t)Rows_ * (uint64_t)Cols_;

    static_assert(Rows_ > 0 && Cols_ > 0, "Tile: Rows and Cols must be positive");
    static_assert((RowValid_ == DYNAMIC || (RowValid_ >= 0 && RowValid_ <= Rows_)) &&
                      (ColValid_ == DYNAMIC || (ColValid_ >= 0 && ColValid_ <= Cols_)),
                  "Tile: valid dims must be -1 or within Rows x Cols");
    static_assert((int)Loc_ <= (int)TileType::Bias || Loc_ == TileType::ScaleLeft || Loc_ == TileType::ScaleRight,
                  "Tile: only Vec/Mat/Left/Right/Acc/Bias/ScaleLeft/ScaleRight tiles exist on the CPU");
    // MX scale tiles (ScaleLeft / ScaleRight) use the 32-byte scale fractal of tmatmul.mx: any shape
    static constexpr bool isScaleTile = Loc_ == TileType::ScaleLeft || Loc_ == TileType::ScaleRight;
    // The shape rules of pto-isa, so that output accepted here also compiles against it.
    static constexpr bool isBoxedLayout = SFractal_ != SLayout::NoneBox;
    static constexpr bool isInnerRowMajor = SFractal_ == SLayout::RowMajor;
    static constexpr int InnerRows = SFractalSize_ == TileConfig::fractalCSize ? 16
                                     : isBoxedLayout ? (isInnerRowMajor ? 16 : (int)(32 / sizeof(Element_))) : 1;
    static constexpr int InnerCols = SFractalSize_ == TileConfig::fractalCSize ? 16
                                     : isBoxedLayout ? (isInnerRowMajor ? (int)(32 / sizeof(Element_)) : 16) : 1;
    static_assert(SFractalSize_ == TileConfig::fractalABSize || SFractalSize_ == TileConfig::fractalCSize ||
                      SFractalSize_ == 32,
                  "Tile: SFractalSize must be 512, 1024 or 32");
    static_assert((BFractal_ == BLayout::RowMajor && !isBoxedLayout && (Cols_ * sizeof(Element_)) % 32 == 0) ||
                      (BFractal_ == BLayout::ColMajor && !isBoxedLayout && (Rows_ * sizeof(Element_)) % 32 == 0) ||
                      isScaleTile || SFractalSize_ == 32 ||
                      (isBoxedLayout && (Loc_ == TileType::Vec || Rows_ == 1 || Rows_ % InnerRows == 0) &&
                       Cols_ % InnerCols == 0),
                  "Tile (pto-isa rule): RowMajor+NoneBox needs Cols*sizeof(T) % 32 == 0, ColMajor+NoneBox needs "
                  "Rows*sizeof(T) % 32 == 0, boxed layouts need Rows/Cols multiples of the fractal box");

    Tile() : cpu_data_(nullptr), cpu_off_(0), cpu_vr_(RowValid_ == DYNAMIC ? Rows_ : RowValid_),
             cpu_vc_(ColValid_ == DYNAMIC ? Cols_ : ColValid_) {}

    template <int RowMask = ValidRow, int ColMask = ValidCol>
    Tile(std::enable_if_t<RowMask == DYNAMIC && ColMask == DYNAMIC, size_t> vr,
         std::enable_if_t<RowMask == DYNAMIC && ColMask == DYNAMIC, size_t> vc)
        : cpu_data_(nullptr), cpu_off_(0), cpu_vr_(check_dim((int64_t)vr, Rows_, "rows")),
          cpu_vc_(check_dim((int64_t)vc, Cols_, "cols")) {}

    template <int RowMask = ValidRow, int ColMask = ValidCol>
    Tile(std::enable_if_t<(RowMask == DYNAMIC) && (ColMask >= 0), size_t> vr)
        : cpu_data_(nullptr), cpu_off_(0), cpu_vr_(check_dim((int64_t)vr, Rows_, "rows")), cpu_vc_(ColValid_) {}

    template <int RowMask = ValidRow, int ColMask = ValidCol>
    Tile(std::enable_if_t<(RowMask >= 0) && (ColMask == DYNAMIC), size_t> vc)
        : cpu_data_(nullptr), cpu_off_(0), cpu_vr_(RowValid_), cpu_vc_(check_dim((int64_t)vc, Cols_, "cols")) {}

    DType* data() const { return cpu_data_; }

    // pto.set_validshape: the tile's valid region changes in place (dynamic valid dims only, as in pto-isa).
    template <int RowMask = ValidRow, int ColMask = ValidCol>
    std::enable_if_t<RowMask == DYNAMIC && ColMask == DYNAMIC> SetValidShape(int64_t vr, int64_t vc) {
        cpu_vr_ = check_dim(vr, Rows_, "rows");
        cpu_vc_ = check_dim(vc, Cols_, "cols");
    }

    template <int RowMask = ValidRow>
    static constexpr std::enable_if_t<(RowMask >= 0), int> GetValidRow() { return RowMask; }
    template <int RowMask = ValidRow>
    std::enable_if_t<RowMask == DYNAMIC, int> GetValidRow() const { return cpu_vr_; }
    template <int ColMask = ValidCol>
    static constexpr std::enable_if_t<(ColMask >= 0), int> GetValidCol() { return ColMask; }
    template <int ColMask = ValidCol>
    std::enable_if_t<ColMask == DYNAMIC, int> GetValidCol() const { return cpu_vc_; }

    // CPU internals (public for the instruction implementations).
    DType* cpu_data_;
    uint64_t cpu_off_;
    int cpu_vr_, cpu_vc_;

private:
    static int check_dim(int64_t v, int cap, const char* what) {
        if (v < 0 || v > cap)
            cpu::fatal("Tile", "valid %s %lld outside 0..%d of a %dx%d %s tile", what, (long long)v, cap, Rows_,
                       Cols_, cpu::space_name((int)Loc_));
        return (int)v;
    }
};

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileLeft = Tile<TileType::Left, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                      SLayout::RowMajor, TileConfig::fractalABSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileRight = Tile<TileType::Right, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                       SLayout::ColMajor, TileConfig::fractalABSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileAcc = Tile<TileType::Acc, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                     SLayout::RowMajor, TileConfig::fractalCSize>;

template <typename T>
struct is_tile : std::false_type {};
template <TileType L, typename E, int R, int C, BLayout B, int VR, int VC, SLayout S, int F, PadValue P, CompactMode M>
struct is_tile<Tile<L, E, R, C, B, VR, VC, S, F, P, M>> : std::true_type {};
template <typename T>
struct is_global : std::false_type {};
template <typename E, typename S, typename St, Layout L>
struct is_global<GlobalTensor<E, S, St, L>> : std::true_type {};
template <typename T>
constexpr bool is_tile_data_v = is_tile<T>::value;
template <typename T>
constexpr bool is_global_data_v = is_global<T>::value;

namespace cpu {
constexpr uint64_t space_alignment(TileType t) {
    return (t == TileType::Vec || t == TileType::Mat || t == TileType::Acc) ? 128 : 64;
}

template <typename T>
inline T nan_value() {
    if constexpr (std::is_same<T, half>::value) return half::from_bits(0x7e00);
    else if constexpr (std::is_same<T, bfloat16_t>::value) return bfloat16_t::from_bits(0x7fc0);
    else return std::numeric_limits<T>::quiet_NaN();
}

// The type-independent part of binding a tile, one out-of-line copy per translation unit instead
// of one inlined copy per tile type (those copies were a large share of a kernel's g++ time):
// checks that `bytes` at offset `off` of space `sp` fit its capacity and alignment and returns the
// address; under the debug NaN fill writes `numel` elements of `fill_elem` bytes (2, 4 or 8; 0:
// no fill) with the bit pattern `fill_bits`.
__attribute__((noinline)) inline uint8_t* bind_bytes_impl(int sp, uint64_t bytes, uint64_t align, int64_t off,
                                                          const char* instr, int fill_elem, uint64_t fill_bits,
                                                          int numel) {
    PtoCpuCore* c = core();
    const uint64_t cap = c->space_size[sp];
    if (off < 0 || (uint64_t)off + bytes > cap)
        fatal(instr, "%s tile of %llu bytes at offset %lld exceeds capacity %llu", space_name(sp),
              (unsigned long long)bytes, (long long)off, (unsigned long long)cap);
    if ((uint64_t)off % align != 0)
        fatal(instr, "%s tile offset %lld is not %llu-byte aligned", space_name(sp), (long long)off,
              (unsigned long long)align);
    uint8_t* p = c->space_base[sp] + off;
    if (fill_elem && c->debug_nan_fill) {
        if (fill_elem == 2) for (int i = 0; i < numel; ++i) ((uint16_t*)(void*)p)[i] = (uint16_t)fill_bits;
        else if (fill_elem == 4) for (int i = 0; i < numel; ++i) ((uint32_t*)(void*)p)[i] = (uint32_t)fill_bits;
        else for (int i = 0; i < numel; ++i) ((uint64_t*)(void*)p)[i] = fill_bits;
    }
    return p;
}

// The debug NaN fill of a tile type: bind_bytes' fill_elem and fill_bits.
template <typename TileT>
struct nan_fill {
    using T = typename TileT::DType;
    static constexpr bool plain = is_floatlike<T>::value && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
    static uint64_t bits() {
        uint64_t b = 0;
        if constexpr (plain) {
            const T nan = nan_value<T>();
            memcpy(&b, &nan, sizeof(T));
        }
        return b;
    }
};

// A float type of another size: the typed loop.
template <typename TileT>
inline void nan_fill_typed(TileT& t, bool allow_fill) {
    using T = typename TileT::DType;
    if constexpr (is_floatlike<T>::value && !nan_fill<TileT>::plain) {
        if (allow_fill && core()->debug_nan_fill) {
            const T nan = nan_value<T>();
            for (int i = 0; i < TileT::Numel; ++i) t.cpu_data_[i] = nan;
        }
    } else {
        (void)t;
        (void)allow_fill;
    }
}

// bind_bytes_impl, or with the out-of-line operations the runtime library's copy of it.
inline uint8_t* bind_bytes(int sp, uint64_t bytes, uint64_t align, int64_t off, const char* instr, int fill_elem,
                           uint64_t fill_bits, int numel) {
    if constexpr (kOutOfLineOps)
        return op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_bind), instr)(sp, bytes, align, off, instr, fill_elem, fill_bits, numel);
    else
        return bind_bytes_impl(sp, bytes, align, off, instr, fill_elem, fill_bits, numel);
}

template <typename TileT>
inline void bind_tile(TileT& t, int64_t off, const char* instr, bool allow_fill = true) {
    using T = typename TileT::DType;
    constexpr bool fill = nan_fill<TileT>::plain;
    uint8_t* p = bind_bytes((int)TileT::Loc, TileT::Bytes, space_alignment(TileT::Loc), off, instr,
                            (fill && allow_fill) ? (int)sizeof(T) : 0, nan_fill<TileT>::bits(), TileT::Numel);
    t.cpu_data_ = (T*)(void*)p;
    t.cpu_off_ = (uint64_t)off;
    nan_fill_typed(t, allow_fill);
}

// The element pointer of a bound tile; a tile used before TASSIGN is an error.
[[noreturn]] __attribute__((noinline, cold)) inline void unbound_tile(const char* instr, int sp, int rows, int cols) {
    fatal(instr, "%s tile (%dx%d) used before TASSIGN", space_name(sp), rows, cols);
}
template <typename TileT>
inline typename TileT::DType* ptr(const TileT& t, const char* instr) {
    if (!t.cpu_data_) unbound_tile(instr, (int)TileT::Loc, TileT::Rows, TileT::Cols);
    return t.cpu_data_;
}
// A boxed tile whose layout is the transpose of its space's default (a ZN Mat/Left tile, an NZ Right
// tile: pl.tile.transpose_view, create_tile(transpose=True), pl.move(..., blayout=, slayout=)) holds
// the bytes of the transposed matrix: element (r, c) is stored at c * Rows + r. Every other tile is
// stored row-major (element (r, c) at r * Cols + c), whatever its layout. at<>() reads through this.
template <typename TileT>
constexpr bool col_stored() {
    if constexpr (!TileT::isBoxedLayout) {
        return false;
    } else if constexpr (TileT::Loc == TileType::Right) {
        return TileT::BFractal == BLayout::ColMajor && TileT::SFractal == SLayout::RowMajor;
    } else if constexpr (TileT::Loc == TileType::Mat || TileT::Loc == TileType::Left || TileT::Loc == TileType::Acc) {
        return TileT::BFractal == BLayout::RowMajor && TileT::SFractal == SLayout::ColMajor;
    } else {
        return false;
    }
}

template <typename TileT>
inline int vrows(const TileT& t) { return t.cpu_vr_; }
template <typename TileT>
inline int vcols(const TileT& t) { return t.cpu_vc_; }
}  // namespace cpu

namespace cpu {
// The space of this core whose buffer holds host address `a`, or -1.
inline int space_of_address(const PtoCpuCore* c, uint64_t a) {
    for (int sp = 0; sp < PTO_CPU_NUM_SPACES; ++sp) {
        const uint64_t base = (uint64_t)(uintptr_t)c->space_base[sp];
        if (base && a >= base && a < base + c->space_size[sp]) return sp;
    }
    return -1;
}

// TASSIGN with a host address (the vendor assembler's second tile of an allocation:
// `TASSIGN(t2, reinterpret_cast<uint64_t>(t1.data()))`): the address must lie in the calling
// core's buffer of the tile's own space; the tile is bound to that offset, as a view of the
// bytes already there (no debug NaN fill).
// The offset in space `sp` of host address `a`, which must lie in the calling core's buffer of that
// space (out of line, as bind_bytes).
__attribute__((noinline)) inline int64_t address_offset(int sp, uint64_t a, const char* instr) {
    PtoCpuCore* c = core();
    const int found = space_of_address(c, a);
    if (found < 0)
        fatal(instr, "address 0x%llx given to a %s tile is neither a byte offset in its space nor inside "
              "this core's buffers", (unsigned long long)a, space_name(sp));
    if (found != sp)
        fatal(instr, "address 0x%llx given to a %s tile is inside this core's %s buffer", (unsigned long long)a,
              space_name(sp), space_name(found));
    return (int64_t)(a - (uint64_t)(uintptr_t)c->space_base[sp]);
}

template <typename TileT>
inline void bind_tile_address(TileT& t, uint64_t a, const char* instr) {
    bind_tile(t, address_offset((int)TileT::Loc, a, instr), instr, false);
}

// TASSIGN(tile, integer v): is v an address in one of the core's buffers (a value beyond every
// capacity of the tile's space that lies in a buffer) rather than a byte offset?
__attribute__((noinline)) inline bool assigns_address(int sp, int64_t v) {
    const PtoCpuCore* c = core();
    return v >= 0 && (uint64_t)v >= c->space_size[sp] && space_of_address(c, (uint64_t)v) >= 0;
}

// TASSIGN(tile, integer v) for every tile type, out of line: v is a byte offset in space sp, or an
// address in the core's buffer of that space (bound as a view of the bytes there: no NaN fill).
// Returns the address; *off: the offset.
__attribute__((noinline)) inline uint8_t* assign_value_impl(int sp, uint64_t bytes, uint64_t align, int64_t v,
                                                            int fill_elem, uint64_t fill_bits, int numel,
                                                            int64_t* off, int32_t* fill) {
    *fill = !assigns_address(sp, v);
    *off = *fill ? v : address_offset(sp, (uint64_t)v, "TASSIGN");
    return bind_bytes_impl(sp, bytes, align, *off, "TASSIGN", *fill ? fill_elem : 0, fill_bits, numel);
}
inline uint8_t* assign_value(int sp, uint64_t bytes, uint64_t align, int64_t v, int fill_elem, uint64_t fill_bits,
                             int numel, int64_t* off, int32_t* fill) {
    if constexpr (kOutOfLineOps)
        return op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_assign), "TASSIGN")(sp, bytes, align, v, fill_elem, fill_bits, numel,
                                                                   off, fill);
    else
        return assign_value_impl(sp, bytes, align, v, fill_elem, fill_bits, numel, off, fill);
}
}  // namespace cpu

// TASSIGN(tile, byte_offset) binds a tile; so does TASSIGN(tile, host address inside the core's
// buffer of that space) (an integer of that value or a pointer, e.g. another tile's data());
// TASSIGN(global_tensor, ptr) rebinds a global tensor.
template <typename T, typename AddrType>
inline void TASSIGN(T& obj, AddrType addr) {
    if constexpr (is_tile<T>::value) {
        static_assert(std::is_integral<AddrType>::value || std::is_enum<AddrType>::value ||
                          std::is_pointer<AddrType>::value,
                      "TASSIGN(tile, addr): addr must be an integer byte offset or an address in the tile's space");
        if constexpr (std::is_pointer<AddrType>::value) {
            cpu::bind_tile_address(obj, (uint64_t)(uintptr_t)addr, "TASSIGN");
        } else {
            using E = typename T::DType;
            int64_t off;
            int32_t fill;
            obj.cpu_data_ = (E*)(void*)cpu::assign_value((int)T::Loc, T::Bytes, cpu::space_alignment(T::Loc),
                                                         (int64_t)addr, cpu::nan_fill<T>::plain ? (int)sizeof(E) : 0,
                                                         cpu::nan_fill<T>::bits(), T::Numel, &off, &fill);
            obj.cpu_off_ = (uint64_t)off;
            cpu::nan_fill_typed(obj, fill != 0);
        }
    } else if constexpr (is_global<T>::value) {
        obj.data_ = (typename T::DType*)addr;
    } else {
        static_assert(is_tile<T>::value || is_global<T>::value, "TASSIGN: not a Tile or GlobalTensor");
    }
}

}  // namespace pto

#endif
