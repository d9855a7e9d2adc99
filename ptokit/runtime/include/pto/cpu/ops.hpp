// CPU tile library: the instructions. Every tile is row-major with row stride Cols.
#ifndef PTO_CPU_OPS_HPP
#define PTO_CPU_OPS_HPP

#include "pto/cpu/tile.hpp"
#include "pto/cpu/window.hpp"
#include "pto/cpu/simd.hpp"
#include "pto/cpu/gemm.hpp"
#include "pto/cpu/op_refs.hpp"

namespace pto {
namespace cpu {

// ---------------------------------------------------------------- global memory
// The MX scale layouts (a5): element offsets are not linear along a row.
constexpr bool mx_layout(Layout l) { return l == Layout::MX_A_ZZ || l == Layout::MX_B_NN; }
template <typename GT>
constexpr bool is_mx_layout() { return mx_layout(GT::layout); }
// ND / DN views: offsets linear along a row (a row is one strided span).
constexpr bool linear_layout(Layout l) { return l != Layout::NZ && !mx_layout(l); }
template <typename GT>
constexpr bool linear_rows() { return linear_layout(GT::layout); }

// Maps tile coordinates (r, c) of a global tensor of layout L to element offsets (by layout only,
// so that what depends on it alone -- check_region -- has one copy per layout, not per tensor type).
template <Layout L>
struct GmLayoutView {
    const int64_t* sh;
    const int64_t* st;
    int64_t rows, cols;
    bool flat;   // ND/DN with the three outer extents 1: offset is linear in (r, c)
    GmLayoutView(const int64_t* shape, const int64_t* stride) : sh(shape), st(stride) {
        if constexpr (mx_layout(L)) {   // a window of an MX scale tensor: [rows, cols] logical
            rows = sh[0] * sh[1] * sh[2] * sh[3];
            cols = sh[4];
            flat = false;
        } else if constexpr (L == Layout::NZ) {
            rows = sh[2] * sh[3];
            cols = sh[1] * sh[4];
            flat = false;
        } else {
            rows = sh[0] * sh[1] * sh[2] * sh[3];
            cols = sh[4];
            flat = sh[0] == 1 && sh[1] == 1 && sh[2] == 1;
        }
    }
    int64_t offset(int64_t r, int64_t c) const {
        if (flat) return r * st[3] + c * st[4];   // the common 2-D case: no divisions
        if constexpr (L == Layout::MX_A_ZZ) {   // [M, G] scales: 16 x 2 boxes, st[3] = 16 * G
            return (r / 16) * st[3] + (c / 2) * 32 + (r % 16) * 2 + (c % 2);
        } else if constexpr (L == Layout::MX_B_NN) {   // [G, N] scales: 2 x 16 boxes stored N-major
            return (c / 16) * st[3] + (r / 2) * 32 + (c % 16) * 2 + (r % 2);
        } else if constexpr (L == Layout::NZ) {
            const int64_t c0 = sh[4];
            return (c / c0) * st[1] + (r / sh[3]) * st[2] + (r % sh[3]) * st[3] + (c % c0) * st[4];
        } else {
            const int64_t i3 = r % sh[3], q3 = r / sh[3];
            const int64_t i2 = q3 % sh[2], q2 = q3 / sh[2];
            const int64_t i1 = q2 % sh[1], i0 = q2 / sh[1];
            return i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3] + c * st[4];
        }
    }
};

template <typename GT>
struct GmView : GmLayoutView<GT::layout> {
    explicit GmView(const GT& g) : GmLayoutView<GT::layout>(g.shape_.shape, g.stride_.stride) {}
};

// The race checker's record of the bytes a vr x vc region of view v really touches (note_touch):
// one record of rows when the view is 2-D with unit steps along a row (or a column), else the
// contiguous runs of each row.
template <Layout L>
inline void note_region(const char* instr, const void* data, const GmLayoutView<L>& v, uint64_t elem, int vr, int vc,
                        int kind) {
    const uint8_t* base = (const uint8_t*)data;
    if (linear_layout(L) && v.flat && v.st[4] == 1 && v.st[3] >= 0) {   // rows of vc elements
        note_touch(instr, base + v.offset(0, 0) * (int64_t)elem, (uint64_t)vc * elem, (uint64_t)v.st[3] * elem,
                   (uint64_t)vr, kind);
        return;
    }
    if (linear_layout(L) && v.flat && v.st[3] == 1 && v.st[4] >= 0) {   // columns of vr elements
        note_touch(instr, base + v.offset(0, 0) * (int64_t)elem, (uint64_t)vr * elem, (uint64_t)v.st[4] * elem,
                   (uint64_t)vc, kind);
        return;
    }
    for (int r = 0; r < vr; ++r) {
        for (int c = 0; c < vc;) {   // one run of consecutive offsets at a time
            const int64_t o = v.offset(r, c);
            int n = 1;
            while (c + n < vc && v.offset(r, c + n) == o + n) ++n;
            if (!note_touch(instr, base + o * (int64_t)elem, (uint64_t)n * elem, (uint64_t)n * elem, 1, kind)) return;
            c += n;
        }
    }
}

// check_region's body: `data` the tensor's first element, `elem` its element size (out of line, one
// copy per layout). Reports the touched bytes to the race checker (note_region); `atomic`: the
// write is an atomic add.
template <Layout L>
__attribute__((noinline)) inline bool check_region_bytes(const char* instr, const void* data, const void* origin,
                                                         const GmLayoutView<L>& v, uint64_t elem, int vr, int vc,
                                                         bool write, bool atomic = false) {
    if (!data) fatal(instr, "global tensor has a null data pointer");
    if (v.rows < vr || v.cols < vc)
        fatal(instr, "global tensor of %lldx%lld is smaller than the tile's valid region %dx%d", (long long)v.rows,
              (long long)v.cols, vr, vc);
    if (vr == 0 || vc == 0) return false;
    int64_t lo = v.offset(0, 0), hi = lo;
    if (v.flat && v.st[3] >= 0 && v.st[4] >= 0) {   // monotone in r and c: the corners bound it
        hi = v.offset(vr - 1, vc - 1);
    } else {
        for (int r = 0; r < vr; ++r) {
            if (!linear_layout(L)) {  // not linear in c: visit every element
                for (int c = 0; c < vc; ++c) {
                    const int64_t o = v.offset(r, c);
                    lo = o < lo ? o : lo;
                    hi = o > hi ? o : hi;
                }
            } else {  // linear in c: the row's two ends bound it
                const int64_t o0 = v.offset(r, 0), o1 = v.offset(r, vc - 1);
                lo = o0 < lo ? o0 : lo;
                lo = o1 < lo ? o1 : lo;
                hi = o0 > hi ? o0 : hi;
                hi = o1 > hi ? o1 : hi;
            }
        }
    }
    const uint64_t bytes = (uint64_t)(hi - lo + 1) * elem;
    const void* first = (const uint8_t*)data + lo * (int64_t)elem;
    const bool win = in_window(instr, first, bytes);
    if (!win) check_gm(instr, origin, first, bytes, elem, vr, vc, write, false);
    note_region(instr, data, v, elem, vr, vc, write ? (atomic ? PTO_CPU_TOUCH_ATOMIC : PTO_CPU_TOUCH_WRITE)
                                                       : PTO_CPU_TOUCH_READ);
    return win;
}

// Checks the shape covers a vr x vc region; true when the touched span lies in a window (the
// caller moves the data through window_read / window_write), else checks that it lies in the
// tensor argument the view derives from (check_gm) and returns false.
template <typename GT>
inline bool check_region(const char* instr, const GT& g, const GmView<GT>& v, int vr, int vc, bool write = false,
                         bool atomic = false) {
    return check_region_bytes<GT::layout>(instr, (const void*)g.data_, g.origin_, v,
                                          sizeof(typename GT::DType), vr, vc, write, atomic);
}

// Row r (vc elements) of global view v over `base` into out[0, vc) as DT; through the window
// hooks when `win`.
template <typename DT, typename ST, Layout L>
inline void gm_read_row_at(const char* instr, const ST* base, const GmLayoutView<L>& v, int r, int vc, DT* out,
                           bool win) {
    constexpr bool same = std::is_same<DT, ST>::value;
    const bool contig = linear_layout(L) && v.st[4] == 1;
    if (!win) {
        if (contig && same) memcpy((void*)out, (const void*)(base + v.offset(r, 0)), sizeof(DT) * (size_t)vc);
        else for (int c = 0; c < vc; ++c) out[c] = cvt<DT>(base[v.offset(r, c)]);
        return;
    }
    if (contig) {
        ST* tmp = same ? (ST*)(void*)out : (ST*)scratch(3, sizeof(ST) * (size_t)vc);
        window_read(instr, base + v.offset(r, 0), tmp, sizeof(ST) * (uint64_t)vc);
        if (!same) for (int c = 0; c < vc; ++c) out[c] = cvt<DT>(tmp[c]);
        return;
    }
    for (int c = 0; c < vc; ++c) {
        ST e;
        window_read(instr, base + v.offset(r, c), &e, sizeof(ST));
        out[c] = cvt<DT>(e);
    }
}

template <typename DT, typename GT>
inline void gm_read_row(const char* instr, const GT& g, const GmView<GT>& v, int r, int vc, DT* out, bool win) {
    gm_read_row_at(instr, (const typename GT::DType*)g.data_, v, r, vc, out, win);
}

// in[0, vc) (as ST) into row r of global view v over `base`: stored, or atomically added when
// `atomic`; through the window hooks when `win` (`dtype`: the datatype_code of the tensor's elements).
template <typename ST, typename DT, Layout L>
inline void gm_write_row_at(const char* instr, DT* base, const GmLayoutView<L>& v, int r, int vc, const ST* in,
                            bool win, bool atomic, int32_t dtype) {
    const DT* row;
    if constexpr (std::is_same<DT, ST>::value) {
        row = in;
    } else {
        DT* t = (DT*)scratch(3, sizeof(DT) * (size_t)vc);
        for (int c = 0; c < vc; ++c) t[c] = cvt<DT>(in[c]);
        row = t;
    }
    const bool contig = linear_layout(L) && v.st[4] == 1;
    const int n = contig ? 1 : vc;              // contiguous: one span of vc elements
    const uint64_t span = contig ? (uint64_t)vc : 1;
    for (int k = 0; k < n; ++k) {
        DT* p = base + v.offset(r, contig ? 0 : k);
        const DT* q = row + (contig ? 0 : k);
        if (win) window_write(instr, p, q, span * sizeof(DT), atomic, dtype);
        else if (atomic) local_atomic_add(instr, p, q, span);
        else memcpy((void*)p, (const void*)q, span * sizeof(DT));
    }
}

template <typename ST, typename GT>
inline void gm_write_row(const char* instr, const GT& g, const GmView<GT>& v, int r, int vc, const ST* in, bool win,
                         bool atomic) {
    using DT = typename GT::DType;
    gm_write_row_at(instr, (DT*)g.data_, v, r, vc, in, win, atomic, datatype_code<DT>());
}

// Where element (r, c) of a tile is stored, from its shape and layout (runtime values; the tile
// types give constants, see ix<TileT>()): row-major, or column-major for a tile whose layout is the
// transpose of its space's default (col_stored, tile.hpp).
struct Ix {
    int rows, cols;
    bool colst;
    int64_t operator()(int r, int c) const { return colst ? (int64_t)c * rows + r : (int64_t)r * cols + c; }
};
template <typename TileT>
constexpr Ix ix() { return Ix{TileT::Rows, TileT::Cols, col_stored<TileT>()}; }
// A row-major layout known as such at compile time: the runtime library's copies of the
// element-by-element loops (broadcasts, conversions, moves) take it for row-major tiles, so that
// they vectorise as the inlined ones, whose Ix is a constant.
struct IxRowMajor {
    int rows, cols;
    static constexpr bool colst = false;
    int64_t operator()(int r, int c) const { return (int64_t)r * cols + c; }
};

// TLOAD's body: the vr x vc region of global view v over g into tile storage d (laid out as di).
template <typename DT, typename ST, Layout L>
inline void load_rows(const char* instr, DT* d, Ix di, int vr, int vc, const ST* g, const void* origin,
                      const GmLayoutView<L>& v) {
    if (check_region_bytes<L>(instr, (const void*)g, origin, v, sizeof(ST), vr, vc, false)) {
        for (int r = 0; r < vr; ++r) gm_read_row_at(instr, g, v, r, vc, d + di(r, 0), true);   // a window
        return;
    }
    const int64_t cs = linear_layout(L) ? v.st[4] : 0;
    if (di.colst) {   // a transposed-layout tile: element by element
        for (int r = 0; r < vr; ++r)
            for (int c = 0; c < vc; ++c) d[di(r, c)] = cvt<DT>(g[v.offset(r, c)]);
        return;
    }
    constexpr bool same = std::is_same<DT, ST>::value;
    if (same && v.flat && cs == 1 && v.st[3] == vc && di.cols == vc) {
        memcpy((void*)d, (const void*)(g + v.offset(0, 0)), sizeof(DT) * (size_t)vr * (size_t)vc);   // one block
        return;
    }
    for (int r = 0; r < vr; ++r) {
        DT* drow = d + di(r, 0);
        if (linear_layout(L) && cs == 1 && same) {
            memcpy((void*)drow, (const void*)(g + v.offset(r, 0)), sizeof(DT) * (size_t)vc);
        } else {
            for (int c = 0; c < vc; ++c) drow[c] = cvt<DT>(g[v.offset(r, c)]);
        }
    }
}

// TSTORE's body: tile storage s (laid out as si), its vr x vc region, into global view v over g;
// atomically added when `atomic` (`dtype`: datatype_code of DT).
template <typename DT, typename ST, Layout L>
inline void store_rows(const char* instr, DT* g, const void* origin, const GmLayoutView<L>& v, const ST* s, Ix si,
                       int vr, int vc, bool atomic, int32_t dtype) {
    const bool win = check_region_bytes<L>(instr, (const void*)g, origin, v, sizeof(DT), vr, vc, true, atomic);
    if (win || atomic) {   // a window (through the comm hooks) or an atomic add: row by row
        for (int r = 0; r < vr; ++r) gm_write_row_at(instr, g, v, r, vc, s + si(r, 0), win, atomic, dtype);
        return;
    }
    const int64_t cs = linear_layout(L) ? v.st[4] : 0;
    if (si.colst) {   // a transposed-layout tile: element by element
        for (int r = 0; r < vr; ++r)
            for (int c = 0; c < vc; ++c) g[v.offset(r, c)] = cvt<DT>(s[si(r, c)]);
        return;
    }
    constexpr bool same = std::is_same<DT, ST>::value;
    if (same && v.flat && cs == 1 && v.st[3] == vc && si.cols == vc) {
        memcpy((void*)(g + v.offset(0, 0)), (const void*)s, sizeof(DT) * (size_t)vr * (size_t)vc);   // one block
        return;
    }
    for (int r = 0; r < vr; ++r) {
        const ST* srow = s + si(r, 0);
        if (linear_layout(L) && cs == 1 && same) {
            memcpy((void*)(g + v.offset(r, 0)), (const void*)srow, sizeof(DT) * (size_t)vc);
        } else {
            for (int c = 0; c < vc; ++c) g[v.offset(r, c)] = cvt<DT>(srow[c]);
        }
    }
}

// ---------------------------------------------------------------- loop helpers
// The storage offset of element (r, c): row-major, or column-major for a tile whose layout is the
// transpose of its space's default (col_stored, tile.hpp).
template <typename TileT>
inline int64_t at(int r, int c) {
    if constexpr (col_stored<TileT>()) return (int64_t)c * TileT::Rows + r;
    else return (int64_t)r * TileT::Cols + c;
}

// SIMD dispatch: pto/cpu/simd.hpp.

// "no loop-carried dependency" for g++'s vectoriser; clang has no plain hint (its assume_safety
// also forces vectorising and warns when a loop with a libm call cannot be), so it gets none
#if defined(__clang__)
#define PTO_CPU_IVDEP
#define PTO_CPU_UNROLL_FULL _Pragma("unroll")
#else
#define PTO_CPU_IVDEP _Pragma("GCC ivdep")
#define PTO_CPU_UNROLL_FULL _Pragma("GCC unroll 16")
#endif

// dst row r = f(a row r, b row r), rows first to last. Row pointers and ivdep: within a row
// the destination may be a source (in place, same index), never a view shifted inside the
// row, so the inner loop has no carried dependency and g++ vectorises it at -O2 (a view
// shifted by whole rows is fine: each row reads its sources after the rows above were written).
template <typename DT, typename AT, typename BT, typename F>
__attribute__((always_inline)) inline void binary_rows(DT* d, const AT* pa, const BT* pb, int vr, int vc, int64_t ld,
                                                       int64_t la, int64_t lb, F f) {
    using CT = calc_t<DT>;
    for (int r = 0; r < vr; ++r) {
        DT* dr = d + (int64_t)r * ld;
        const AT* ar = pa + (int64_t)r * la;
        const BT* br = pb + (int64_t)r * lb;
        PTO_CPU_IVDEP
        for (int c = 0; c < vc; ++c) dr[c] = cvt<DT>(f(cvt<CT>(ar[c]), cvt<CT>(br[c])));
    }
}

template <typename DT, typename ST, typename F>
__attribute__((always_inline)) inline void unary_rows(DT* d, const ST* ps, int vr, int vc, int64_t ld, int64_t ls,
                                                      F f) {
    using CT = calc_t<DT>;
    for (int r = 0; r < vr; ++r) {
        DT* dr = d + (int64_t)r * ld;
        const ST* sr = ps + (int64_t)r * ls;
        PTO_CPU_IVDEP
        for (int c = 0; c < vc; ++c) dr[c] = cvt<DT>(f(cvt<CT>(sr[c])));
    }
}

#if PTO_CPU_AVX2_DISPATCH
template <typename DT, typename AT, typename BT, typename F>
__attribute__((target("avx2"), noinline)) void binary_rows_avx2(DT* d, const AT* pa, const BT* pb, int vr, int vc,
                                                              int64_t ld, int64_t la, int64_t lb, F f) {
    binary_rows(d, pa, pb, vr, vc, ld, la, lb, f);
}
template <typename DT, typename ST, typename F>
__attribute__((target("avx2"), noinline)) void unary_rows_avx2(DT* d, const ST* ps, int vr, int vc, int64_t ld,
                                                             int64_t ls, F f) {
    unary_rows(d, ps, vr, vc, ld, ls, f);
}
#endif

// The row loops, in the AVX2 copy when the CPU has it.
template <typename DT, typename AT, typename BT, typename F>
inline void binary_run(DT* d, const AT* pa, const BT* pb, int vr, int vc, int64_t ld, int64_t la, int64_t lb, F f) {
#if PTO_CPU_AVX2_DISPATCH
    if (cpu_has_avx2()) {
        binary_rows_avx2(d, pa, pb, vr, vc, ld, la, lb, f);
        return;
    }
#endif
    binary_rows(d, pa, pb, vr, vc, ld, la, lb, f);
}

template <typename DT, typename ST, typename F>
inline void unary_run(DT* d, const ST* ps, int vr, int vc, int64_t ld, int64_t ls, F f) {
#if PTO_CPU_AVX2_DISPATCH
    if (cpu_has_avx2()) {
        unary_rows_avx2(d, ps, vr, vc, ld, ls, f);
        return;
    }
#endif
    unary_rows(d, ps, vr, vc, ld, ls, f);
}

template <typename D, typename A, typename B, typename F>
inline void binary(const char* name, D& dst, A& a, B& b, F f) {
    binary_run(ptr(dst, name), (const typename A::DType*)ptr(a, name), (const typename B::DType*)ptr(b, name),
               vrows(dst), vcols(dst), D::Cols, A::Cols, B::Cols, f);
}

template <typename D, typename S, typename F>
inline void unary(const char* name, D& dst, S& src, F f) {
    unary_run(ptr(dst, name), (const typename S::DType*)ptr(src, name), vrows(dst), vcols(dst), D::Cols, S::Cols, f);
}

template <typename T>
inline T div_(T a, T b) {
    if constexpr (std::is_integral<T>::value) return b == 0 ? T(0) : T(a / b);
    else return a / b;
}
template <typename T>
inline T max_(T a, T b) { return a > b ? a : b; }
template <typename T>
inline T min_(T a, T b) { return a < b ? a : b; }

// Floating-point function of an element type's calc value (ints go through double).
template <typename T, typename F>
inline T fmath(T x, F f) {
    if constexpr (std::is_same<T, float>::value) return f(x);
    else return (T)f((double)x);
}

// The arithmetic of the element-wise op codes (PTO_CPU_OP_*, cpu_sim_hooks.h) on calc values: one
// definition for the inlined instructions and the runtime library's copies.
template <int Op>
struct bin_fn {   // a op b; the scalar forms: a op scalar
    template <typename T>
    auto operator()(T a, T b) const {
        if constexpr (Op == PTO_CPU_OP_ADD || Op == PTO_CPU_OP_ADDS) return a + b;
        else if constexpr (Op == PTO_CPU_OP_SUB || Op == PTO_CPU_OP_SUBS) return a - b;
        else if constexpr (Op == PTO_CPU_OP_MUL || Op == PTO_CPU_OP_MULS) return a * b;
        else if constexpr (Op == PTO_CPU_OP_DIV || Op == PTO_CPU_OP_DIVS) return div_(a, b);
        else if constexpr (Op == PTO_CPU_OP_MAX || Op == PTO_CPU_OP_MAXS) return max_(a, b);
        else return min_(a, b);
    }
};
template <int Op, typename CT>
struct scalar_fn {   // a op b with b the scalar; RDIVS: b / a
    CT b;
    auto operator()(CT a) const {
        if constexpr (Op == PTO_CPU_OP_RDIVS) return div_(b, a);
        else return bin_fn<Op>{}(a, b);
    }
};
template <int Op, typename CT>
struct unary_fn {
    CT operator()(CT x) const {
        if constexpr (Op == PTO_CPU_OP_EXP) return fmath(x, [](auto v) { return exp(v); });
        else if constexpr (Op == PTO_CPU_OP_LOG) return fmath(x, [](auto v) { return log(v); });
        else if constexpr (Op == PTO_CPU_OP_SQRT) return fmath(x, [](auto v) { return sqrt(v); });
        else if constexpr (Op == PTO_CPU_OP_RSQRT) return fmath(x, [](auto v) { return decltype(v)(1) / sqrt(v); });
        else if constexpr (Op == PTO_CPU_OP_RECIP) return div_(CT(1), x);
        else if constexpr (Op == PTO_CPU_OP_NEG) return CT(-x);
        else if constexpr (Op == PTO_CPU_OP_ABS) return CT(x < CT(0) ? -x : x);
        else return CT(x > CT(0) ? x : CT(0));
    }
};

// Element-wise op `Op` on tiles of one element type T (dst, a, b: row-major with row pitches
// ld, la, lb; b unused unless binary, `scalar` points at the calc-type scalar of the scalar forms).
template <int Op, typename T>
inline void elementwise_rt(T* d, const T* a, const T* b, int vr, int vc, int64_t ld, int64_t la, int64_t lb,
                           const void* scalar) {
    using CT = calc_t<T>;
    if constexpr (Op <= PTO_CPU_OP_MIN) {
        binary_run(d, a, b, vr, vc, ld, la, lb, bin_fn<Op>{});
    } else if constexpr (Op <= PTO_CPU_OP_RDIVS) {
        CT sc;
        memcpy(&sc, scalar, sizeof(CT));
        unary_run(d, a, vr, vc, ld, la, scalar_fn<Op, CT>{sc});
    } else {
        unary_run(d, a, vr, vc, ld, la, unary_fn<Op, CT>{});
    }
}

// The instruction: out of line when the three tiles share an element type the runtime library
// takes, else inlined.
template <int Op, typename D, typename A, typename B>
inline void elementwise(const char* name, D& dst, A& a, B* b, const void* scalar) {
    using DT = typename D::DType;
    DT* d = ptr(dst, name);
    const typename A::DType* pa = ptr(a, name);
    const typename B::DType* pb = b ? ptr(*b, name) : nullptr;
    constexpr bool same = std::is_same<DT, typename A::DType>::value && std::is_same<DT, typename B::DType>::value;
    if constexpr (same && ool_arith<DT>()) {
        const PtoCpuTileRef rd = tile_ref(dst), ra = tile_ref(a), rb = b ? tile_ref(*b) : ra;
        op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_elementwise), name)(Op, &rd, &ra, b ? &rb : nullptr, scalar);
    } else if constexpr (Op <= PTO_CPU_OP_MIN) {
        binary_run(d, pa, pb, vrows(dst), vcols(dst), D::Cols, A::Cols, B::Cols, bin_fn<Op>{});
    } else if constexpr (Op <= PTO_CPU_OP_RDIVS) {
        calc_t<DT> sc;
        memcpy(&sc, scalar, sizeof sc);
        unary_run(d, pa, vrows(dst), vcols(dst), D::Cols, A::Cols, scalar_fn<Op, calc_t<DT>>{sc});
    } else {
        unary_run(d, pa, vrows(dst), vcols(dst), D::Cols, A::Cols, unary_fn<Op, calc_t<DT>>{});
    }
}

// ---------------------------------------------------------------- conversion with rounding
template <typename D>
inline D round_to_int(double v, RoundMode mode) {
    if (v != v) return D(0);
    switch (mode) {
        case RoundMode::CAST_ROUND: v = round(v); break;
        case RoundMode::CAST_FLOOR: v = floor(v); break;
        case RoundMode::CAST_CEIL: v = ceil(v); break;
        case RoundMode::CAST_TRUNC: v = trunc(v); break;
        case RoundMode::CAST_ODD: {  // round to odd: an inexact value takes the odd one of its two neighbours
            const double t = trunc(v);
            v = (t == v || fmod(t, 2.0) != 0.0) ? t : t + (v < 0 ? -1.0 : 1.0);
            break;
        }
        default: v = nearbyint(v); break;  // CAST_RINT / NONE: nearest, ties to even
    }
    const double lo = (double)std::numeric_limits<D>::min(), hi = (double)std::numeric_limits<D>::max();
    if (v <= lo) return std::numeric_limits<D>::min();
    if (v >= hi) return std::numeric_limits<D>::max();
    return (D)v;
}

template <typename D, typename S>
inline D convert(S s, RoundMode mode) {
    if constexpr (is_int4<D>::value) {   // to INT4 / UINT4: as to int, saturated to -8..7 / 0..15
        constexpr int lo = std::is_same<D, int4b_t>::value ? -8 : 0, hi = lo + 15;
        const int v = convert<int>(s, mode);
        return D(v < lo ? lo : v > hi ? hi : v);
    } else if constexpr (is_int4<S>::value) {
        return convert<D>((int)s, mode);
    } else if constexpr (std::is_integral<D>::value && is_floatlike<S>::value) {
        return round_to_int<D>((double)(float)s, mode);
    } else if constexpr (std::is_integral<D>::value && std::is_integral<S>::value) {
        if constexpr (std::is_signed<S>::value == std::is_signed<D>::value && sizeof(S) <= sizeof(D)) {
            return (D)s;
        } else {
            const long double v = (long double)s;  // saturate
            if (v <= (long double)std::numeric_limits<D>::min()) return std::numeric_limits<D>::min();
            if (v >= (long double)std::numeric_limits<D>::max()) return std::numeric_limits<D>::max();
            return (D)s;
        }
    } else {
        return cvt<D>(s);
    }
}

template <typename T>
inline T pad_value(PadValue pv) {
    if (pv == PadValue::Max) {
        if constexpr (is_floatlike<T>::value) return T(std::numeric_limits<float>::infinity());
        else return std::numeric_limits<T>::max();
    }
    if (pv == PadValue::Min) {
        if constexpr (is_floatlike<T>::value) return T(-std::numeric_limits<float>::infinity());
        else return std::numeric_limits<T>::min();
    }
    return T(0.0f);
}

// Accumulator type for reductions.
template <typename T>
using acc_t = typename std::conditional<is_floatlike<T>::value, double, int64_t>::type;

// One step of a reduction: element i of a row (or column) into acc, first to last.
template <int Kind, typename AT>
__attribute__((always_inline)) inline void reduce_step(AT& acc, AT v, int i) {
    if (i == 0 && Kind != 0) acc = v;
    else if (Kind == 0) acc += v;
    else if (Kind == 1) acc = v > acc ? v : acc;
    else acc = v < acc ? v : acc;
}

// The reference loop: one row (or column) after the other, element by element (source and
// result laid out as si and di).
template <bool IsRow, int Kind, typename DT, typename ST>
inline void reduce_reference(DT* d, Ix di, const ST* s, Ix si, int outer, int inner) {
    using AT = acc_t<ST>;
    for (int o = 0; o < outer; ++o) {
        AT acc = 0;
        for (int i = 0; i < inner; ++i)
            reduce_step<Kind>(acc, (AT)cvt<calc_t<ST>>(IsRow ? s[si(o, i)] : s[si(i, o)]), i);
        d[IsRow ? di(o, 0) : di(0, o)] = cvt<DT>((calc_t<DT>)acc);
    }
}

// The same sums, maxima and minima faster, each row (column) still accumulated first to last in
// the same type, so every result is bit-identical to reduce_reference:
// * rows of a row-major source: kRows rows at a time, one accumulator each -- independent
//   dependency chains instead of one long one (an add's latency per element);
// * columns of a row-major source: the whole row of accumulators advanced by one source row at a
//   time, a contiguous loop the vectoriser takes.
// Used only when the result cannot overlap the source (the reference loop reads a row after
// the previous result was written); PTO_CPU_REFERENCE_LOOPS keeps the reference loop always.
// The source is row-major with row pitch ls.
template <bool IsRow, int Kind, typename DT, typename ST>
inline void reduce_fast(DT* d, Ix di, const ST* s, int64_t ls, int outer, int inner) {
    using AT = acc_t<ST>;
    using CT = calc_t<ST>;
    if constexpr (IsRow) {
        constexpr int kRows = 8;
        int o = 0;
        for (; o + kRows <= outer; o += kRows) {
            AT acc[kRows];   // fully unrolled below: kept in registers
            PTO_CPU_UNROLL_FULL
            for (int k = 0; k < kRows; ++k) acc[k] = 0;
            const ST* base = s + (int64_t)o * ls;
            for (int i = 0; i < inner; ++i) {
                PTO_CPU_UNROLL_FULL
                for (int k = 0; k < kRows; ++k)
                    reduce_step<Kind>(acc[k], (AT)cvt<CT>(base[(int64_t)k * ls + i]), i);
            }
            PTO_CPU_UNROLL_FULL
            for (int k = 0; k < kRows; ++k) d[di(o + k, 0)] = cvt<DT>((calc_t<DT>)acc[k]);
        }
        if (o < outer)
            reduce_reference<true, Kind>(d + di(o, 0), di, s + (int64_t)o * ls, Ix{0, (int)ls, false}, outer - o,
                                         inner);
    } else {
        AT* __restrict acc = (AT*)scratch(1, sizeof(AT) * (size_t)outer + 64);
        for (int o = 0; o < outer; ++o) acc[o] = 0;
        for (int i = 0; i < inner; ++i) {
            const ST* __restrict row = s + (int64_t)i * ls;
            PTO_CPU_IVDEP
            for (int o = 0; o < outer; ++o) reduce_step<Kind>(acc[o], (AT)cvt<CT>(row[o]), i);
        }
        for (int o = 0; o < outer; ++o) d[di(0, o)] = cvt<DT>((calc_t<DT>)acc[o]);
    }
}

// The reduction of a vr x vc source region (the result fits; checked by the instruction).
template <bool IsRow, int Kind, typename DT, typename ST>
inline void reduce_rt(DT* d, Ix di, const ST* s, Ix si, int vr, int vc) {
    const int outer = IsRow ? vr : vc, inner = IsRow ? vc : vr;
#if !defined(PTO_CPU_REFERENCE_LOOPS)
    if (!si.colst && outer > 0 && inner > 0) {
        const char* d0 = (const char*)d;
        const char* d1 = (const char*)(d + (IsRow ? di(outer - 1, 0) : di(0, outer - 1)) + 1);
        const char* s0 = (const char*)s;
        const char* s1 = (const char*)(s + (int64_t)(vr - 1) * si.cols + vc);
        if (d1 <= s0 || s1 <= d0) {   // the result does not overlap the source
            reduce_fast<IsRow, Kind>(d, di, s, si.cols, outer, inner);
            return;
        }
    }
#endif
    reduce_reference<IsRow, Kind>(d, di, s, si, outer, inner);
}

template <bool IsRow, int Kind, typename D, typename S>
inline void reduce(const char* name, D& dst, S& src) {
    using DT = typename D::DType;
    using ST = typename S::DType;
    DT* d = ptr(dst, name);
    const ST* s = ptr(src, name);
    const int vr = vrows(src), vc = vcols(src);
    const int outer = IsRow ? vr : vc;
    if (outer > (IsRow ? D::Rows : D::Cols))
        fatal(name, "result of %d elements does not fit a %dx%d tile", outer, D::Rows, D::Cols);
    if constexpr (std::is_same<DT, ST>::value && ool_arith<DT>()) {
        const PtoCpuTileRef rd = tile_ref(dst), rs = tile_ref(src);
        op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_reduce), name)(Kind, IsRow ? 1 : 0, &rd, &rs);
    } else {
        reduce_rt<IsRow, Kind>(d, ix<D>(), s, ix<S>(), vr, vc);
    }
}

// Column sums of floating-point tiles as the vector unit computes them: every addition rounded
// to the result's dtype (pto-isa's TCOLSUM).  Sequential: the first row, then each next row
// added to it.  Binary (the scratch-tile form, isBinary): adjacent rows added pairwise, an odd
// last row added into the first pair sum, level after level until one row is left.  Each
// addition is exact in double and rounded once to the dtype, so it is the dtype's own addition.
template <typename T>
__attribute__((always_inline)) inline T add_in_dtype(T a, T b) {
    return cvt<T>((calc_t<T>)((double)cvt<calc_t<T>>(a) + (double)cvt<calc_t<T>>(b)));
}

template <bool Binary, typename D, typename S>
inline void colsum_in_dtype(const char* name, D& dst, S& src) {
    using DT = typename D::DType;
    DT* d = ptr(dst, name);
    const typename S::DType* s = ptr(src, name);
    const int vr = vrows(src), vc = vcols(src);
    if (vc > D::Cols) fatal(name, "result of %d elements does not fit a %dx%d tile", vc, D::Rows, D::Cols);
    if (vr <= 0 || vc <= 0) return;
    // the source rows in the result's dtype (a copy: the result may overlap the source)
    DT* rows = (DT*)scratch(1, sizeof(DT) * (size_t)vr * (size_t)vc + 64);
    for (int i = 0; i < vr; ++i)
        for (int j = 0; j < vc; ++j) rows[(int64_t)i * vc + j] = cvt<DT>(s[at<S>(i, j)]);
    if constexpr (!Binary) {
        for (int i = 1; i < vr; ++i)
            for (int j = 0; j < vc; ++j) rows[j] = add_in_dtype(rows[j], rows[(int64_t)i * vc + j]);
    } else {
        for (int cnt = vr; cnt > 1; cnt /= 2) {
            for (int i = 0; i < cnt / 2; ++i)
                for (int j = 0; j < vc; ++j)
                    rows[(int64_t)i * vc + j] = add_in_dtype(rows[(int64_t)2 * i * vc + j], rows[(int64_t)(2 * i + 1) * vc + j]);
            if (cnt % 2 == 1)
                for (int j = 0; j < vc; ++j) rows[j] = add_in_dtype(rows[j], rows[(int64_t)(cnt - 1) * vc + j]);
        }
    }
    for (int j = 0; j < vc; ++j) d[at<D>(0, j)] = rows[j];
}

template <bool Binary, typename D, typename S>
inline void colsum(const char* name, D& dst, S& src) {
    if constexpr (is_floatlike<typename D::DType>::value) colsum_in_dtype<Binary>(name, dst, src);
    else reduce<false, 0>(name, dst, src);   // integer sums wrap the same whatever the order
}


// dst[r,c] = f(src[r,c], vec[r,0]) (IsRow) or f(src[r,c], vec[0,c]).  Combined with a source, a row
// vector with more than one valid column is a packed carrier (one 32-byte block per row):
// dst[r,c] = f(src[r,c], vec[r, c % n]); alone (TROWEXPAND) each row takes its column 0.
// ps null: the vector alone; vvc: the vector's valid columns.
template <bool IsRow, typename DT, typename ST, typename VT, typename F>
inline void expand_rt(DT* d, Ix di, const ST* ps, Ix si, const VT* pv, Ix vi, int vr, int vc, int vvc, F f) {
    using CT = calc_t<DT>;
    const int block = IsRow && ps && vvc > 1 ? vvc : 1;   // TROWEXPAND alone: column 0
    for (int r = 0; r < vr; ++r) {
        // the common forms with their branches out of the inner loop, which then vectorises
        if (!ps) {
            for (int c = 0; c < vc; ++c) d[di(r, c)] = cvt<DT>(cvt<CT>(IsRow ? pv[vi(r, 0)] : pv[vi(0, c)]));
            continue;
        }
        if (!IsRow || block == 1) {
            const CT rb = IsRow ? cvt<CT>(pv[vi(r, 0)]) : CT(0);
            for (int c = 0; c < vc; ++c) {
                const CT b = IsRow ? rb : cvt<CT>(pv[vi(0, c)]);
                d[di(r, c)] = cvt<DT>(f(cvt<CT>(ps[si(r, c)]), b));
            }
            continue;
        }
        for (int c = 0; c < vc; ++c) {   // a packed carrier: column c % block
            const CT b = cvt<CT>(pv[vi(r, c % block)]);
            d[di(r, c)] = cvt<DT>(f(cvt<CT>(ps[si(r, c)]), b));
        }
    }
}

template <bool IsRow, typename D, typename S, typename V, typename F>
inline void expand(const char* name, D& dst, S* src, V& vec, F f) {
    using DT = typename D::DType;
    DT* d = ptr(dst, name);
    const typename V::DType* pv = ptr(vec, name);
    const typename S::DType* ps = src ? ptr(*src, name) : nullptr;
    expand_rt<IsRow>(d, ix<D>(), ps, ix<S>(), pv, ix<V>(), vrows(dst), vcols(dst), vcols(vec), f);
}

// The op-coded broadcasts (PTO_CPU_OP_* binary codes, or PTO_CPU_OP_COPY: the vector alone). Always
// inlined: measured, the runtime library's copies of these loops ran up to 2x slower than the ones
// specialised for the tile types (docs/benchmarks.md), unlike the other out-of-line operations.
template <int Op>
struct expand_fn {
    template <typename T>
    auto operator()(T a, T b) const {
        if constexpr (Op == PTO_CPU_OP_COPY) return a;
        else return bin_fn<Op>{}(a, b);
    }
};
template <int Op, bool IsRow, typename D, typename S, typename V>
inline void expand_op(const char* name, D& dst, S* src, V& vec) {
    expand<IsRow>(name, dst, src, vec, expand_fn<Op>{});
}

// Copies a vr x vc block: dst(dr+r, dc+c) = src(sr+r, sc+c) (both in bounds), via scratch (safe under
// aliasing), or straight when the two tiles are in different spaces (Mat -> Left/Right, Acc -> Vec)
// and stored alike.
template <typename DT, typename ST, typename L = Ix>
inline void copy_block_rt(DT* d, L di, int dspace, int dr, int dc, const ST* s, L si, int sspace, int sr, int sc,
                          int vr, int vc) {
    if (std::is_same<DT, ST>::value && dspace != sspace && !di.colst && !si.colst) {
        // tiles of two spaces cannot overlap: row by row, straight
        for (int r = 0; r < vr; ++r)
            memcpy((void*)(d + di(dr + r, dc)), (const void*)(s + si(sr + r, sc)), sizeof(DT) * (size_t)vc);
        return;
    }
    DT* tmp = (DT*)scratch(3, sizeof(DT) * (size_t)vr * (size_t)vc);
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) tmp[(int64_t)r * vc + c] = cvt<DT>(s[si(sr + r, sc + c)]);
    if (di.colst) {
        for (int r = 0; r < vr; ++r)
            for (int c = 0; c < vc; ++c) d[di(dr + r, dc + c)] = tmp[(int64_t)r * vc + c];
    } else {
        for (int r = 0; r < vr; ++r) memcpy(d + di(dr + r, dc), tmp + (int64_t)r * vc, sizeof(DT) * (size_t)vc);
    }
}

template <typename D, typename S>
inline void copy_block(const char* name, D& dst, int dr, int dc, S& src, int sr, int sc, int vr, int vc) {
    using DT = typename D::DType;
    using ST = typename S::DType;
    if (vr <= 0 || vc <= 0) return;
    if (dr < 0 || dc < 0 || dr + vr > D::Rows || dc + vc > D::Cols)
        fatal(name, "destination block %dx%d at (%d,%d) is outside the %dx%d tile", vr, vc, dr, dc, D::Rows, D::Cols);
    if (sr < 0 || sc < 0 || sr + vr > S::Rows || sc + vc > S::Cols)
        fatal(name, "source block %dx%d at (%d,%d) is outside the %dx%d tile", vr, vc, sr, sc, S::Rows, S::Cols);
    DT* d = ptr(dst, name);
    const ST* s = ptr(src, name);
    constexpr bool same = std::is_same<DT, ST>::value;
    if constexpr ((same && ool_bits<DT>()) || ool_move_pair<DT, ST>()) {
        const PtoCpuTileRef rd = tile_ref(dst), rs = tile_ref(src);
        op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_copy), name)(&rd, dr, dc, &rs, sr, sc, vr, vc);
    } else {
        copy_block_rt(d, ix<D>(), (int)D::Loc, dr, dc, s, ix<S>(), (int)S::Loc, sr, sc, vr, vc);
    }
}

// TCVT's loop.
template <typename DT, typename ST, typename L = Ix>
inline void convert_rt(DT* d, L di, const ST* s, L si, int vr, int vc, RoundMode mode) {
    for (int r = 0; r < vr; ++r)
        for (int c = 0; c < vc; ++c) d[di(r, c)] = convert<DT>(s[si(r, c)], mode);
}

template <typename T>
constexpr bool is_16bit_float() { return std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value; }

template <typename T>
constexpr bool is_int8() { return std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value; }

// The cube computes the M x N block of the Acc tile given by the Left tile's valid rows (M) and
// columns (K) and the Right tile's valid columns (N), each of which must be 1..4095 (the rest of the
// Acc tile is not written).
inline void cube_extents(const char* name, int m, int k, int n) {
    if (m < 1 || k < 1 || n < 1 || m > 4095 || k > 4095 || n > 4095)
        fatal(name, "m=%d, k=%d, n=%d (the left tile's valid rows and columns, the right tile's valid columns): "
              "the cube takes each in 1..4095", m, k, n);
}

// The cube's f32 inner product and 16-bit widening (gemm.hpp): inline in a stand-alone build,
// else through the runtime library's hooks (compiled once there), else (no runtime library)
// plain loops doing the same operations in the same order.
inline void cube_gemm(int m, int n, int K, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                      int64_t ldc) {
#if defined(PTO_CPU_STANDALONE)
    gemm::blocked(m, n, K, a, lda, b, ldb, c, ldc);
#else
    if (auto hook = PTO_CPU_HOOK(pto_cpu_gemm_f32)) {
        hook(m, n, K, a, lda, b, ldb, c, ldc);
        return;
    }
    for (int i = 0; i < m; ++i) {
        float* __restrict ci = c + (int64_t)i * ldc;
        for (int j = 0; j < n; ++j) ci[j] = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float x = a[(int64_t)i * lda + k];
            const float* __restrict bk = b + (int64_t)k * ldb;
            for (int j = 0; j < n; ++j) ci[j] += x * bk[j];
        }
    }
#endif
}

template <typename T>
inline void cube_widen(const T* src, int64_t lds, float* dst, int64_t ldd, int rows, int n) {
    constexpr bool kBf16 = std::is_same<T, bfloat16_t>::value;
#if defined(PTO_CPU_STANDALONE)
    gemm::widen<kBf16>((const uint16_t*)(const void*)src, lds, dst, ldd, rows, n);
#else
    if (auto hook = PTO_CPU_HOOK(pto_cpu_widen16)) {
        hook(kBf16 ? 1 : 0, (const uint16_t*)(const void*)src, lds, dst, ldd, rows, n);
        return;
    }
    for (int r = 0; r < rows; ++r)
        for (int i = 0; i < n; ++i) dst[(int64_t)r * ldd + i] = (float)src[(int64_t)r * lds + i];
#endif
}

// out row i = in row i + sums (or the sums alone without in), converted to the Acc type (laid out as oi).
template <typename OD, typename IT, typename CT>
inline void matmul_store(OD* out, Ix oi, const IT* in, const CT* sums, int64_t lds, int M, int N) {
    for (int i = 0; i < M; ++i) {
        OD* o = out + oi(i, 0);
        const CT* s = sums + (int64_t)i * lds;
        if (in) {
            const IT* ip = in + oi(i, 0);
            for (int j = 0; j < N; ++j) o[j] = cvt<OD>((CT)cvt<calc_t<IT>>(ip[j]) + s[j]);
        } else {
            for (int j = 0; j < N; ++j) o[j] = cvt<OD>(s[j]);
        }
    }
}

// The floating-point cube: operands as f32 (converted once per call unless already f32
// row-major), the sums by cube_gemm (gemm.hpp: each element summed from +0 in k order). The
// operands and the result are laid out as li, ri and oi; `in` (laid out as the result) is added.
template <typename OD, typename IT, typename LD, typename RD>
inline void matmul_f32(OD* out, Ix oi, const IT* in, const LD* l, Ix li, const RD* rp, Ix ri, int M, int K, int N) {
    const float* a;
    int64_t lda;
    if (std::is_same<LD, float>::value && !li.colst) {
        a = (const float*)(const void*)l;
        lda = li.cols;
    } else {
        float* t = (float*)scratch(2, sizeof(float) * (size_t)M * (size_t)K + 64);
        bool widened = false;
        if constexpr (is_16bit_float<LD>()) {
            if (!li.colst) {
                cube_widen(l, li.cols, t, K, M, K);
                widened = true;
            }
        }
        if (!widened)
            for (int i = 0; i < M; ++i)
                for (int k = 0; k < K; ++k) t[(int64_t)i * K + k] = (float)cvt<calc_t<LD>>(l[li(i, k)]);
        a = t;
        lda = K;
    }
    // b is read a whole vector at a time, up to kMaxWidth floats past column N - 1
    const int np = (N + gemm::kMaxWidth - 1) / gemm::kMaxWidth * gemm::kMaxWidth;
    const bool right_as_is = std::is_same<RD, float>::value && !ri.colst;
    const float* b;
    int64_t ldb;
    if (right_as_is && np <= ri.cols) {
        b = (const float*)(const void*)rp;
        ldb = ri.cols;
    } else {
        float* t = (float*)scratch(0, sizeof(float) * (size_t)K * (size_t)np + 64);
        bool widened = false;
        if constexpr (is_16bit_float<RD>()) {
            if (!ri.colst) {
                cube_widen(rp, ri.cols, t, np, K, N);
                widened = true;
            }
        }
        for (int k = 0; k < K; ++k) {
            float* tr = t + (int64_t)k * np;
            if (!widened)
                for (int j = 0; j < N; ++j) tr[j] = (float)cvt<calc_t<RD>>(rp[ri(k, j)]);
            for (int j = N; j < np; ++j) tr[j] = 0.0f;
        }
        b = t;
        ldb = np;
    }
    if constexpr (std::is_same<OD, float>::value) {
        if (!in) {   // the sums are the result: straight into the Acc tile (only its M x N block)
            cube_gemm(M, N, K, a, lda, b, ldb, out, oi.cols);
            return;
        }
    }
    float* c = (float*)scratch(1, sizeof(float) * (size_t)M * (size_t)N + 64);
    cube_gemm(M, N, K, a, lda, b, ldb, c, N);
    matmul_store(out, oi, in, c, N, M, N);
}

// The int8 cube: int32 sums (exact, so the loop order is free), row by row.
template <typename AccT, typename IT, typename LT, typename RT>
inline void matmul_int(AccT&, const IT* in, typename AccT::DType* out, LT&, const typename LT::DType* l, RT&,
                       const typename RT::DType* rp, int M, int K, int N) {
    using CT = int32_t;
    CT* t = (CT*)scratch(0, sizeof(CT) * (size_t)K * (size_t)N + 64);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) t[(int64_t)k * N + j] = (CT)rp[at<RT>(k, j)];
    CT* sums = (CT*)scratch(1, sizeof(CT) * (size_t)M * (size_t)N + 64);
    for (int i = 0; i < M; ++i) {
        CT* __restrict rowp = sums + (int64_t)i * N;
        for (int j = 0; j < N; ++j) rowp[j] = 0;
        for (int k = 0; k < K; ++k) {
            const CT x = (CT)l[at<LT>(i, k)];
            const CT* __restrict rr = t + (int64_t)k * N;
            for (int j = 0; j < N; ++j) rowp[j] += x * rr[j];
        }
    }
    matmul_store(out, ix<AccT>(), in, sums, N, M, N);
}

template <typename AccT, typename InT, typename LT, typename RT>
inline void matmul(const char* name, AccT& acc, InT* acc_in, LT& left, RT& right) {
    static_assert(AccT::Loc == TileType::Acc, "TMATMUL: the result must be an Acc tile");
    static_assert(LT::Loc == TileType::Left, "TMATMUL: the left operand must be a Left tile");
    static_assert(RT::Loc == TileType::Right, "TMATMUL: the right operand must be a Right tile");
    using LD = typename LT::DType;
    using RD = typename RT::DType;
    using OD = typename AccT::DType;
    constexpr bool kInt = is_int8<LD>() && is_int8<RD>();
    const int M = vrows(left), K = vcols(left), N = vcols(right);
    cube_extents(name, M, K, N);
    if (vrows(right) < K)
        fatal(name, "left is %dx%d but right has only %d valid rows", M, K, vrows(right));
    if (M > AccT::Rows || N > AccT::Cols)
        fatal(name, "result %dx%d does not fit the %dx%d Acc tile", M, N, AccT::Rows, AccT::Cols);
    const LD* l = ptr(left, name);
    static_assert(!col_stored<AccT>(), "TMATMUL: the Acc tile must have the default layout");
    const RD* rp = ptr(right, name);
    OD* out = ptr(acc, name);
    const typename InT::DType* in = acc_in ? ptr(*acc_in, name) : nullptr;
    if constexpr (!kInt && ool_matmul<OD, typename InT::DType, LD, RD>()) {
        const PtoCpuTileRef ro = tile_ref(acc), rin = acc_in ? tile_ref(*acc_in) : ro, rl = tile_ref(left),
                            rr = tile_ref(right);
        op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_matmul), name)(&ro, acc_in ? &rin : nullptr, &rl, &rr, M, K, N);
    } else if constexpr (!kInt) {
        matmul_f32(out, ix<AccT>(), in, l, ix<LT>(), rp, ix<RT>(), M, K, N);
    } else {
        matmul_int(acc, in, out, left, l, right, rp, M, K, N);
    }
}

template <TileType D, TileType S>
constexpr bool tmov_allowed() {
    return (S == TileType::Mat && (D == TileType::Left || D == TileType::Right || D == TileType::Bias ||
                                   D == TileType::ScaleLeft || D == TileType::ScaleRight)) ||
           (S == TileType::Acc && (D == TileType::Mat || D == TileType::Vec)) ||
           (S == TileType::Vec && (D == TileType::Vec || D == TileType::Mat));
}
}  // namespace cpu

// ==================================================================== memory
template <typename TileData, typename GlobalData>
inline RecordEvent TLOAD(TileData& dst, GlobalData& src) {
    using DT = typename TileData::DType;
    using ST = typename GlobalData::DType;
    DT* d = cpu::ptr(dst, "TLOAD");
    if constexpr (std::is_same<DT, ST>::value && cpu::ool_gm<DT, GlobalData::layout>()) {
        const PtoCpuTileRef t = cpu::tile_ref(dst);
        const PtoCpuGmRef g = cpu::gm_ref(src);
        cpu::op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_gm), "TLOAD")("TLOAD", 0, &t, &g);
    } else {
        const cpu::GmView<GlobalData> v(src);
        cpu::load_rows("TLOAD", d, cpu::ix<TileData>(), cpu::vrows(dst), cpu::vcols(dst), (const ST*)src.data_,
                       src.origin_, v);
    }
    return {};
}

// TSTORE<TileData, GlobalData, AtomicType::AtomicAdd>(dst, src): GM += tile, each element one
// atomic step (blocks running at once, and other ranks, may add into one tensor). A window
// destination goes through the comm hooks.
template <typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone>
inline RecordEvent TSTORE(GlobalData& dst, TileData& src) {
    using DT = typename GlobalData::DType;
    using ST = typename TileData::DType;
    constexpr bool atomic = atomicType == AtomicType::AtomicAdd;
    const ST* s = cpu::ptr(src, "TSTORE");
    if constexpr (!atomic && std::is_same<DT, ST>::value && cpu::ool_gm<DT, GlobalData::layout>()) {
        const PtoCpuTileRef t = cpu::tile_ref(src);
        const PtoCpuGmRef g = cpu::gm_ref(dst);
        cpu::op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_gm), "TSTORE")("TSTORE", 1, &t, &g);
    } else {
        const cpu::GmView<GlobalData> v(dst);
        cpu::store_rows("TSTORE", dst.data_, dst.origin_, v, s, cpu::ix<TileData>(), cpu::vrows(src),
                        cpu::vcols(src), atomic, cpu::datatype_code<DT>());
    }
    return {};
}

// ==================================================================== elementwise
#define PTO_CPU_BINARY(NAME, OP)                                                            \
    template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>             \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {      \
        cpu::elementwise<OP>(#NAME, dst, src0, &src1, nullptr);                               \
        return {};                                                                            \
    }
PTO_CPU_BINARY(TADD, PTO_CPU_OP_ADD)
PTO_CPU_BINARY(TSUB, PTO_CPU_OP_SUB)
PTO_CPU_BINARY(TMUL, PTO_CPU_OP_MUL)
PTO_CPU_BINARY(TDIV, PTO_CPU_OP_DIV)
PTO_CPU_BINARY(TMAX, PTO_CPU_OP_MAX)
PTO_CPU_BINARY(TMIN, PTO_CPU_OP_MIN)
#undef PTO_CPU_BINARY

#define PTO_CPU_SCALAR(NAME, OP)                                                                       \
    template <typename TileDataDst, typename TileDataSrc>                                              \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc& src, typename TileDataSrc::DType scalar) { \
        const cpu::calc_t<typename TileDataDst::DType> b = cpu::cvt<cpu::calc_t<typename TileDataDst::DType>>(scalar); \
        cpu::elementwise<OP>(#NAME, dst, src, (TileDataSrc*)nullptr, &b);                              \
        return {};                                                                                     \
    }
PTO_CPU_SCALAR(TADDS, PTO_CPU_OP_ADDS)
PTO_CPU_SCALAR(TSUBS, PTO_CPU_OP_SUBS)
PTO_CPU_SCALAR(TMULS, PTO_CPU_OP_MULS)
PTO_CPU_SCALAR(TDIVS, PTO_CPU_OP_DIVS)
PTO_CPU_SCALAR(TMAXS, PTO_CPU_OP_MAXS)
PTO_CPU_SCALAR(TMINS, PTO_CPU_OP_MINS)
#undef PTO_CPU_SCALAR

// scalar / src
template <typename TileDataDst, typename TileDataSrc>
inline RecordEvent TDIVS(TileDataDst& dst, typename TileDataDst::DType scalar, TileDataSrc& src) {
    const cpu::calc_t<typename TileDataDst::DType> a = cpu::cvt<cpu::calc_t<typename TileDataDst::DType>>(scalar);
    cpu::elementwise<PTO_CPU_OP_RDIVS>("TDIVS", dst, src, (TileDataSrc*)nullptr, &a);
    return {};
}

#define PTO_CPU_UNARY(NAME, OP)                                                          \
    template <typename TileDataDst, typename TileDataSrc>                                \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc& src) {                        \
        cpu::elementwise<OP>(#NAME, dst, src, (TileDataSrc*)nullptr, nullptr);           \
        return {};                                                                       \
    }
PTO_CPU_UNARY(TEXP, PTO_CPU_OP_EXP)
PTO_CPU_UNARY(TLOG, PTO_CPU_OP_LOG)
PTO_CPU_UNARY(TSQRT, PTO_CPU_OP_SQRT)
PTO_CPU_UNARY(TRSQRT, PTO_CPU_OP_RSQRT)
PTO_CPU_UNARY(TRECIP, PTO_CPU_OP_RECIP)
PTO_CPU_UNARY(TNEG, PTO_CPU_OP_NEG)
PTO_CPU_UNARY(TABS, PTO_CPU_OP_ABS)
PTO_CPU_UNARY(TRELU, PTO_CPU_OP_RELU)
#undef PTO_CPU_UNARY

template <typename TileDataD, typename TileDataS>
inline RecordEvent TCVT(TileDataD& dst, TileDataS& src, RoundMode mode) {
    using DT = typename TileDataD::DType;
    using ST = typename TileDataS::DType;
    DT* d = cpu::ptr(dst, "TCVT");
    const ST* s = cpu::ptr(src, "TCVT");
    if constexpr (cpu::ool_arith<DT>() && cpu::ool_arith<ST>()) {
        const PtoCpuTileRef rd = cpu::tile_ref(dst), rs = cpu::tile_ref(src);
        cpu::op_hook(PTO_CPU_OP_HOOK(pto_cpu_op_cvt), "TCVT")(&rd, &rs, (int32_t)mode);
    } else {
        cpu::convert_rt(d, cpu::ix<TileDataD>(), s, cpu::ix<TileDataS>(), cpu::vrows(dst), cpu::vcols(dst), mode);
    }
    return {};
}

// ==================================================================== reductions
template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>
inline RecordEvent TROWSUM(TileDataOut& dst, TileDataIn& src, TileDataTmp&) { cpu::reduce<true, 0>("TROWSUM", dst, src); return {}; }
template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>
inline RecordEvent TROWMAX(TileDataOut& dst, TileDataIn& src, TileDataTmp&) { cpu::reduce<true, 1>("TROWMAX", dst, src); return {}; }
template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>
inline RecordEvent TROWMIN(TileDataOut& dst, TileDataIn& src, TileDataTmp&) { cpu::reduce<true, 2>("TROWMIN", dst, src); return {}; }
template <typename TileDataOut, typename TileDataIn>
inline RecordEvent TCOLSUM(TileDataOut& dst, TileDataIn& src) { cpu::colsum<false>("TCOLSUM", dst, src); return {}; }
template <typename TileDataOut, typename TileDataIn>
inline RecordEvent TCOLMAX(TileDataOut& dst, TileDataIn& src) { cpu::reduce<false, 1>("TCOLMAX", dst, src); return {}; }
template <typename TileDataOut, typename TileDataIn>
inline RecordEvent TCOLMIN(TileDataOut& dst, TileDataIn& src) { cpu::reduce<false, 2>("TCOLMIN", dst, src); return {}; }

// ==================================================================== broadcasts
template <typename TileDataDst, typename TileDataSrc>
inline RecordEvent TROWEXPAND(TileDataDst& dst, TileDataSrc& src) {
    cpu::expand_op<PTO_CPU_OP_COPY, true>("TROWEXPAND", dst, (TileDataDst*)nullptr, src);
    return {};
}
template <typename TileDataDst, typename TileDataSrc>
inline RecordEvent TCOLEXPAND(TileDataDst& dst, TileDataSrc& src) {
    cpu::expand_op<PTO_CPU_OP_COPY, false>("TCOLEXPAND", dst, (TileDataDst*)nullptr, src);
    return {};
}
#define PTO_CPU_EXPAND(NAME, ISROW, OP)                                                     \
    template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>           \
    inline RecordEvent NAME(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {    \
        cpu::expand_op<OP, ISROW>(#NAME, dst, &src0, src1);                                 \
        return {};                                                                          \
    }
PTO_CPU_EXPAND(TROWEXPANDADD, true, PTO_CPU_OP_ADD)
PTO_CPU_EXPAND(TROWEXPANDSUB, true, PTO_CPU_OP_SUB)
PTO_CPU_EXPAND(TROWEXPANDMUL, true, PTO_CPU_OP_MUL)
PTO_CPU_EXPAND(TROWEXPANDDIV, true, PTO_CPU_OP_DIV)
PTO_CPU_EXPAND(TROWEXPANDMAX, true, PTO_CPU_OP_MAX)
PTO_CPU_EXPAND(TROWEXPANDMIN, true, PTO_CPU_OP_MIN)
PTO_CPU_EXPAND(TCOLEXPANDADD, false, PTO_CPU_OP_ADD)
PTO_CPU_EXPAND(TCOLEXPANDSUB, false, PTO_CPU_OP_SUB)
PTO_CPU_EXPAND(TCOLEXPANDMUL, false, PTO_CPU_OP_MUL)
PTO_CPU_EXPAND(TCOLEXPANDDIV, false, PTO_CPU_OP_DIV)
PTO_CPU_EXPAND(TCOLEXPANDMAX, false, PTO_CPU_OP_MAX)
PTO_CPU_EXPAND(TCOLEXPANDMIN, false, PTO_CPU_OP_MIN)
#undef PTO_CPU_EXPAND
// the scratch-tile form (pypto's tile.row_expand_add(..., tmp=)): the same sums
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp>
inline RecordEvent TROWEXPANDADD(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, TileDataTmp&) {
    return TROWEXPANDADD(dst, src0, src1);
}

// ==================================================================== moves, views, sub-tiles
template <typename DstTileData, typename SrcTileData>
inline RecordEvent TMOV(DstTileData& dst, SrcTileData& src) {
    static_assert(cpu::tmov_allowed<DstTileData::Loc, SrcTileData::Loc>(),
                  "TMOV: allowed moves are Mat->Left/Right/Bias/ScaleLeft/ScaleRight, Acc->Mat, Acc->Vec, "
                  "Vec->Vec, Vec->Mat");
    cpu::copy_block("TMOV", dst, 0, 0, src, 0, 0, cpu::vrows(dst), cpu::vcols(dst));
    return {};
}

template <typename TileRes, typename TileLeft, typename TileRight>
inline RecordEvent TMATMUL(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix) {
    cpu::matmul<TileRes, TileRes>("TMATMUL", cMatrix, (TileRes*)nullptr, aMatrix, bMatrix);
    return {};
}
template <typename TileRes, typename TileLeft, typename TileRight>
inline RecordEvent TMATMUL_ACC(TileRes& cOutMatrix, TileRes& cInMatrix, TileLeft& aMatrix, TileRight& bMatrix) {
    cpu::matmul<TileRes, TileRes>("TMATMUL_ACC", cOutMatrix, &cInMatrix, aMatrix, bMatrix);
    return {};
}

// dst becomes a view of src's bytes (same memory space, same offset).
template <typename TileDataOut, typename TileDataIn>
inline RecordEvent TRESHAPE(TileDataOut& dst, TileDataIn& src) {
    static_assert(TileDataOut::Loc == TileDataIn::Loc, "TRESHAPE: both tiles must be in the same memory space");
    cpu::ptr(src, "TRESHAPE");
    cpu::bind_tile(dst, (int64_t)src.cpu_off_, "TRESHAPE", /*allow_fill=*/false);
    return {};
}

template <typename DstTileData, typename SrcTileData>
inline RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow = 0, uint16_t indexCol = 0) {
    cpu::copy_block("TEXTRACT", dst, 0, 0, src, indexRow, indexCol, cpu::vrows(dst), cpu::vcols(dst));
    return {};
}
template <typename DstTileData, typename SrcTileData>
inline RecordEvent TINSERT(DstTileData& dst, SrcTileData& src, uint16_t indexRow = 0, uint16_t indexCol = 0) {
    cpu::copy_block("TINSERT", dst, indexRow, indexCol, src, 0, 0, cpu::vrows(src), cpu::vcols(src));
    return {};
}

template <typename DstTileData, typename SrcTileData>
inline RecordEvent TFILLPAD(DstTileData& dst, SrcTileData& src) {
    using DT = typename DstTileData::DType;
    const int vr = cpu::vrows(src) < DstTileData::Rows ? cpu::vrows(src) : DstTileData::Rows;
    const int vc = cpu::vcols(src) < DstTileData::Cols ? cpu::vcols(src) : DstTileData::Cols;
    cpu::copy_block("TFILLPAD", dst, 0, 0, src, 0, 0, vr, vc);
    DT* d = cpu::ptr(dst, "TFILLPAD");
    const DT pad = cpu::pad_value<DT>(DstTileData::PadVal);
    for (int r = 0; r < DstTileData::Rows; ++r)
        for (int c = (r < vr ? vc : 0); c < DstTileData::Cols; ++c) d[cpu::at<DstTileData>(r, c)] = pad;
    return {};
}

// Column-wise concatenation: dst = [a | b] over dst's valid rows.
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>
inline RecordEvent TCONCAT(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1) {
    const int vr = cpu::vrows(dst), ac = cpu::vcols(src0), bc = cpu::vcols(src1);
    if (ac + bc > TileDataDst::Cols)
        cpu::fatal("TCONCAT", "%d + %d columns do not fit a %dx%d tile", ac, bc, TileDataDst::Rows, TileDataDst::Cols);
    cpu::copy_block("TCONCAT", dst, 0, 0, src0, 0, 0, vr, ac);
    cpu::copy_block("TCONCAT", dst, 0, ac, src1, 0, 0, vr, bc);
    return {};
}

}  // namespace pto

#endif
