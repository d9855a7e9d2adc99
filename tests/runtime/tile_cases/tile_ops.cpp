// Test cases for the CPU tile library, called from Python through ctypes
// (tests/runtime/test_tile_lib.py). GM arrays are R x C row-major; tiles are R x C with
// run-time valid dims, so partial valid regions are exercised.
#include "pto/pto-inst.hpp"

using namespace pto;

namespace {
constexpr int R = 16, C = 32;

template <typename T, int Rr = R, int Cc = C>
using VT = Tile<TileType::Vec, T, Rr, Cc, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                CompactMode::Null>;
template <typename T>
using GT = GlobalTensor<T, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<-1, -1, -1, -1, 1>, pto::Layout::ND>;

// A vr x vc window of a row-major array whose rows are `ld` elements apart.
template <typename T>
GT<T> gview(T* p, int vr, int vc, int ld = C) {
    return GT<T>(p, pto::Shape<1, 1, 1, -1, -1>(1, 1, 1, vr, vc),
                 pto::Stride<-1, -1, -1, -1, 1>((int64_t)vr * ld, (int64_t)vr * ld, (int64_t)vr * ld, ld, 1));
}

template <typename T>
void binary_case(int op, const void* a, const void* b, void* o, int vr, int vc) {
    VT<T> ta(vr, vc), tb(vr, vc), td(vr, vc);
    TASSIGN(ta, 0);
    TASSIGN(tb, 4096);
    TASSIGN(td, 8192);
    GT<T> ga = gview((T*)a, vr, vc), gb = gview((T*)b, vr, vc), go = gview((T*)o, vr, vc);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    switch (op) {
        case 0: TADD(td, ta, tb); break;
        case 1: TSUB(td, ta, tb); break;
        case 2: TMUL(td, ta, tb); break;
        case 3: TDIV(td, ta, tb); break;
        case 4: TMAX(td, ta, tb); break;
        case 5: TMIN(td, ta, tb); break;
    }
    TSTORE(go, td);
}

template <typename T>
void scalar_case(int op, const void* a, float s, void* o, int vr, int vc) {
    VT<T> ta(vr, vc), td(vr, vc);
    TASSIGN(ta, 0);
    TASSIGN(td, 8192);
    GT<T> ga = gview((T*)a, vr, vc), go = gview((T*)o, vr, vc);
    TLOAD(ta, ga);
    const T sc = T(s);
    switch (op) {
        case 0: TADDS(td, ta, sc); break;
        case 1: TSUBS(td, ta, sc); break;
        case 2: TMULS(td, ta, sc); break;
        case 3: TDIVS(td, ta, sc); break;
        case 4: TMAXS(td, ta, sc); break;
        case 5: TMINS(td, ta, sc); break;
        case 6: TDIVS(td, sc, ta); break;
    }
    TSTORE(go, td);
}

template <typename T>
void unary_case(int op, const void* a, void* o, int vr, int vc) {
    VT<T> ta(vr, vc), td(vr, vc);
    TASSIGN(ta, 0);
    TASSIGN(td, 8192);
    GT<T> ga = gview((T*)a, vr, vc), go = gview((T*)o, vr, vc);
    TLOAD(ta, ga);
    switch (op) {
        case 0: TEXP(td, ta); break;
        case 1: TLOG(td, ta); break;
        case 2: TSQRT(td, ta); break;
        case 3: TRSQRT(td, ta); break;
        case 4: TRECIP(td, ta); break;
        case 5: TNEG(td, ta); break;
        case 6: TABS(td, ta); break;
        case 7: TRELU(td, ta); break;
    }
    TSTORE(go, td);
}

// A matmul through the whole cube path: GM -> Mat -> Left/Right -> Acc -> GM.
// out = a @ b (+ a2 @ b2 when acc), a: M x K (ld K), b: K x N (ld N), out: M x N (ld N).
template <typename T, typename AccT, int MM, int KK, int NN>
void matmul_case(const void* a, const void* b, const void* a2, const void* b2, void* out, int M, int K, int N,
                 int acc, int via_vec) {
    using MatA = Tile<TileType::Mat, T, MM, KK, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using MatB = Tile<TileType::Mat, T, KK, NN, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using L = Tile<TileType::Left, T, MM, KK, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using Rt = Tile<TileType::Right, T, KK, NN, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    using A = Tile<TileType::Acc, AccT, MM, NN, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    MatA ma(M, K);
    MatB mb(K, N);
    L l(M, K);
    Rt r(K, N);
    A c(M, N);
    TASSIGN(ma, 0);
    TASSIGN(mb, (int64_t)MatA::Bytes);
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(c, 0);
    GT<T> ga = gview((T*)a, M, K, K), gb = gview((T*)b, K, N, N);
    GT<AccT> go = gview((AccT*)out, M, N, N);
    TLOAD(ma, ga);
    TLOAD(mb, gb);
    TMOV(l, ma);
    TMOV(r, mb);
    TMATMUL(c, l, r);
    if (acc) {
        GT<T> ga2 = gview((T*)a2, M, K, K), gb2 = gview((T*)b2, K, N, N);
        TLOAD(ma, ga2);
        TLOAD(mb, gb2);
        TMOV(l, ma);
        TMOV(r, mb);
        TMATMUL_ACC(c, c, l, r);
    }
    if (via_vec) {  // Acc -> Vec -> GM
        Tile<TileType::Vec, AccT, MM, NN, BLayout::RowMajor, -1, -1> v(M, N);
        TASSIGN(v, 0);
        TMOV(v, c);
        TSTORE(go, v);
    } else {
        TSTORE(go, c);
    }
}
}  // namespace

extern "C" {

void bin_f32(int op, const void* a, const void* b, void* o, int vr, int vc) { binary_case<float>(op, a, b, o, vr, vc); }
void bin_f16(int op, const void* a, const void* b, void* o, int vr, int vc) { binary_case<half>(op, a, b, o, vr, vc); }
void bin_bf16(int op, const void* a, const void* b, void* o, int vr, int vc) { binary_case<bfloat16_t>(op, a, b, o, vr, vc); }
void bin_i32(int op, const void* a, const void* b, void* o, int vr, int vc) { binary_case<int32_t>(op, a, b, o, vr, vc); }
void scal_f32(int op, const void* a, float s, void* o, int vr, int vc) { scalar_case<float>(op, a, s, o, vr, vc); }
void scal_f16(int op, const void* a, float s, void* o, int vr, int vc) { scalar_case<half>(op, a, s, o, vr, vc); }
void scal_bf16(int op, const void* a, float s, void* o, int vr, int vc) { scalar_case<bfloat16_t>(op, a, s, o, vr, vc); }
void un_f32(int op, const void* a, void* o, int vr, int vc) { unary_case<float>(op, a, o, vr, vc); }
void un_f16(int op, const void* a, void* o, int vr, int vc) { unary_case<half>(op, a, o, vr, vc); }
void un_bf16(int op, const void* a, void* o, int vr, int vc) { unary_case<bfloat16_t>(op, a, o, vr, vc); }

// Reductions of a vr x vc region: kind 0 sum, 1 max, 2 min. Row results -> o[r] (ld 1),
// column results -> o[c].
void rowred_f32(int kind, const float* a, float* o, int vr, int vc) {
    VT<float> ta(vr, vc), tmp(vr, vc);
    Tile<TileType::Vec, float, R, 1, BLayout::ColMajor, -1, -1> td(vr, 1);
    TASSIGN(ta, 0);
    TASSIGN(tmp, 4096);
    TASSIGN(td, 8192);
    GT<float> ga = gview((float*)a, vr, vc);
    GT<float> go = gview(o, vr, 1, 1);
    TLOAD(ta, ga);
    if (kind == 0) TROWSUM(td, ta, tmp);
    if (kind == 1) TROWMAX(td, ta, tmp);
    if (kind == 2) TROWMIN(td, ta, tmp);
    TSTORE(go, td);
}
void colred_f32(int kind, const float* a, float* o, int vr, int vc) {
    VT<float> ta(vr, vc);
    Tile<TileType::Vec, float, 1, C, BLayout::RowMajor, -1, -1> td(1, vc);
    TASSIGN(ta, 0);
    TASSIGN(td, 8192);
    GT<float> ga = gview((float*)a, vr, vc);
    GT<float> go = gview(o, 1, vc);
    TLOAD(ta, ga);
    if (kind == 0) TCOLSUM(td, ta);
    if (kind == 1) TCOLMAX(td, ta);
    if (kind == 2) TCOLMIN(td, ta);
    TSTORE(go, td);
}
// Broadcasts: op 0 plain expand, 1 add, 2 sub, 3 mul, 4 div. vec has R (row) or C (col) entries.
void rowexp_f32(int op, const float* a, const float* vec, float* o, int vr, int vc) {
    VT<float> ta(vr, vc), td(vr, vc);
    Tile<TileType::Vec, float, R, 1, BLayout::ColMajor, -1, -1> tv(vr, 1);
    TASSIGN(ta, 0);
    TASSIGN(td, 4096);
    TASSIGN(tv, 8192);
    GT<float> ga = gview((float*)a, vr, vc), gv = gview((float*)vec, vr, 1, 1), go = gview(o, vr, vc);
    TLOAD(ta, ga);
    TLOAD(tv, gv);
    switch (op) {
        case 0: TROWEXPAND(td, tv); break;
        case 1: TROWEXPANDADD(td, ta, tv); break;
        case 2: TROWEXPANDSUB(td, ta, tv); break;
        case 3: TROWEXPANDMUL(td, ta, tv); break;
        case 4: TROWEXPANDDIV(td, ta, tv); break;
    }
    TSTORE(go, td);
}
void colexp_f32(int op, const float* a, const float* vec, float* o, int vr, int vc) {
    VT<float> ta(vr, vc), td(vr, vc);
    Tile<TileType::Vec, float, 1, C, BLayout::RowMajor, -1, -1> tv(1, vc);
    TASSIGN(ta, 0);
    TASSIGN(td, 4096);
    TASSIGN(tv, 8192);
    GT<float> ga = gview((float*)a, vr, vc), gv = gview((float*)vec, 1, vc), go = gview(o, vr, vc);
    TLOAD(ta, ga);
    TLOAD(tv, gv);
    switch (op) {
        case 0: TCOLEXPAND(td, tv); break;
        case 1: TCOLEXPANDADD(td, ta, tv); break;
        case 2: TCOLEXPANDSUB(td, ta, tv); break;
        case 3: TCOLEXPANDMUL(td, ta, tv); break;
        case 4: TCOLEXPANDDIV(td, ta, tv); break;
    }
    TSTORE(go, td);
}

// TCVT over a full R x C tile. which: 0 f32->f16, 1 f16->f32, 2 f32->bf16, 3 bf16->f32,
// 4 f32->i32, 5 i32->f32, 6 f32->i8, 7 f32->i16, 8 i32->i8, 9 f16->i32, 10 f32->u8.
extern "C++" template <typename D, typename S>
void cvt_case(const void* in, void* out, RoundMode mode) {
    VT<S> ts(R, C);
    VT<D> td(R, C);
    TASSIGN(ts, 0);
    TASSIGN(td, 4096);
    GT<S> gi = gview((S*)in, R, C);
    GT<D> go = gview((D*)out, R, C);
    TLOAD(ts, gi);
    TCVT(td, ts, mode);
    TSTORE(go, td);
}
void cvt(int which, int mode, const void* in, void* out) {
    const RoundMode m = (RoundMode)mode;
    switch (which) {
        case 0: cvt_case<half, float>(in, out, m); break;
        case 1: cvt_case<float, half>(in, out, m); break;
        case 2: cvt_case<bfloat16_t, float>(in, out, m); break;
        case 3: cvt_case<float, bfloat16_t>(in, out, m); break;
        case 4: cvt_case<int32_t, float>(in, out, m); break;
        case 5: cvt_case<float, int32_t>(in, out, m); break;
        case 6: cvt_case<int8_t, float>(in, out, m); break;
        case 7: cvt_case<int16_t, float>(in, out, m); break;
        case 8: cvt_case<int8_t, int32_t>(in, out, m); break;
        case 9: cvt_case<int32_t, half>(in, out, m); break;
        case 10: cvt_case<uint8_t, float>(in, out, m); break;
    }
}

void mm_f32(const void* a, const void* b, const void* a2, const void* b2, void* o, int M, int K, int N, int acc, int via_vec) {
    matmul_case<float, float, 128, 128, 128>(a, b, a2, b2, o, M, K, N, acc, via_vec);
}
void mm_f16(const void* a, const void* b, const void* a2, const void* b2, void* o, int M, int K, int N, int acc, int via_vec) {
    matmul_case<half, float, 128, 128, 128>(a, b, a2, b2, o, M, K, N, acc, via_vec);
}
void mm_bf16(const void* a, const void* b, const void* a2, const void* b2, void* o, int M, int K, int N, int acc, int via_vec) {
    matmul_case<bfloat16_t, float, 128, 128, 128>(a, b, a2, b2, o, M, K, N, acc, via_vec);
}
void mm_i8(const void* a, const void* b, const void* a2, const void* b2, void* o, int M, int K, int N, int acc, int via_vec) {
    matmul_case<int8_t, int32_t, 128, 128, 128>(a, b, a2, b2, o, M, K, N, acc, via_vec);
}

// Two tiles TASSIGNed at the same offset alias: o1 = (tile B after loading via A), then
// TADDS on B is visible through A: o2 = a + 1.
void alias_case(const float* a, float* o1, float* o2) {
    VT<float> ta(R, C), tb(R, C);
    TASSIGN(ta, 1024);
    TASSIGN(tb, 1024);
    GT<float> ga = gview((float*)a, R, C), g1 = gview(o1, R, C), g2 = gview(o2, R, C);
    TLOAD(ta, ga);
    TSTORE(g1, tb);
    TADDS(tb, tb, 1.0f);
    TSTORE(g2, ta);
}

// TRESHAPE: the 16x32 tile viewed as 32x16 (a view: writes through it show in the source).
void reshape_case(const float* a, float* o_view, float* o_src) {
    VT<float> ta(R, C);
    Tile<TileType::Vec, float, C, R, BLayout::RowMajor, -1, -1> tv(C, R);
    TASSIGN(ta, 0);
    TASSIGN(tv, 8192);
    GT<float> ga = gview((float*)a, R, C);
    TLOAD(ta, ga);
    TRESHAPE(tv, ta);
    TMULS(tv, tv, 2.0f);
    GT<float> gv = gview(o_view, C, R, R), gs = gview(o_src, R, C);
    TSTORE(gv, tv);
    TSTORE(gs, ta);
}

// TEXTRACT an 8x8 block at (r0, c0); TINSERT it back into a zero tile at (r1, c1).
void extract_insert_case(const float* a, float* o_ext, float* o_ins, int r0, int c0, int r1, int c1) {
    VT<float> ta(R, C), tz(R, C);
    Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, -1, -1> te(8, 8);
    TASSIGN(ta, 0);
    TASSIGN(tz, 4096);
    TASSIGN(te, 8192);
    GT<float> ga = gview((float*)a, R, C);
    TLOAD(ta, ga);
    TMULS(tz, ta, 0.0f);
    TEXTRACT(te, ta, r0, c0);
    TINSERT(tz, te, r1, c1);
    GT<float> ge = gview(o_ext, 8, 8, 8), gi = gview(o_ins, R, C);
    TSTORE(ge, te);
    TSTORE(gi, tz);
}

// TFILLPAD: src valid vr x vc, dst (full R x C) padded with pad (0 Zero/Null, 2 Max, 3 Min).
extern "C++" template <PadValue P>
void fillpad_case(const float* a, float* o, int vr, int vc) {
    VT<float> ta(vr, vc);
    Tile<TileType::Vec, float, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, P> td(R, C);
    TASSIGN(ta, 0);
    TASSIGN(td, 4096);
    GT<float> ga = gview((float*)a, vr, vc), go = gview(o, R, C);
    TLOAD(ta, ga);
    TFILLPAD(td, ta);
    TSTORE(go, td);
}
void fillpad_f32(int pad, const float* a, float* o, int vr, int vc) {
    if (pad == 2) fillpad_case<PadValue::Max>(a, o, vr, vc);
    else if (pad == 3) fillpad_case<PadValue::Min>(a, o, vr, vc);
    else fillpad_case<PadValue::Zero>(a, o, vr, vc);
}

// TCONCAT: [a(:, :ca) | b(:, :cb)] over vr rows, into an R x C tile.
void concat_f32(const float* a, const float* b, float* o, int vr, int ca, int cb) {
    VT<float> ta(vr, ca), tb(vr, cb), td(vr, ca + cb);
    TASSIGN(ta, 0);
    TASSIGN(tb, 4096);
    TASSIGN(td, 8192);
    GT<float> ga = gview((float*)a, vr, ca), gb = gview((float*)b, vr, cb), go = gview(o, vr, ca + cb);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    TCONCAT(td, ta, tb);
    TSTORE(go, td);
}

// TMOV Vec -> Vec (different tile types/strides) and DN global tensors (column-major GM).
void mov_dn_case(const float* a_colmajor, float* o) {
    Tile<TileType::Vec, float, R, C, BLayout::RowMajor, -1, -1> ta(R, C);
    Tile<TileType::Vec, float, R, 64, BLayout::RowMajor, -1, -1> tb(R, C);
    TASSIGN(ta, 0);
    TASSIGN(tb, 4096);
    GlobalTensor<float, pto::Shape<1, 1, 1, R, C>, pto::Stride<R * C, R * C, R * C, 1, R>, pto::Layout::DN> g(
        (float*)a_colmajor);
    TLOAD(ta, g);
    TMOV(tb, ta);
    GT<float> go = gview(o, R, C);
    TSTORE(go, tb);
}

// Debug NaN fill: with debug_nan_fill set, a freshly TASSIGNed float/half tile reads as NaN.
void nan_fill_case(float* o32, uint16_t* o16, int32_t* oi) {
    PtoCpuCore* core = pto::cpu::core();
    const int saved = core->debug_nan_fill;
    core->debug_nan_fill = 1;
    VT<float> t(R, C);
    VT<half> th(R, C);
    VT<int32_t> ti(R, C);
    TASSIGN(ti, 32768);
    TASSIGN(t, 0);
    TASSIGN(th, 8192);
    GT<float> g = gview(o32, R, C);
    GT<half> gh = gview((half*)o16, R, C);
    GT<int32_t> gi = gview(oi, R, C);
    TSTORE(g, t);
    TSTORE(gh, th);
    TSTORE(gi, ti);
    core->debug_nan_fill = saved;
}

// Shape/Stride constructors: returns the resolved shape/stride of three forms.
void shape_forms(int64_t* out) {
    pto::Shape<1, 1, 1, -1, 64> s1(1, 1, 1, 7, 999);   // positional: static dim keeps 64
    pto::Shape<1, 1, 1, -1, -1> s2(5, 6);              // compact
    pto::Stride<-1, -1, -1, 64, 1> st(11, 12, 13);     // compact
    pto::Shape<1, -1, 1, -1, 8> s3;                    // default: dynamic -> 1
    for (int i = 0; i < 5; ++i) {
        out[i] = s1.shape[i];
        out[5 + i] = s2.shape[i];
        out[10 + i] = st.stride[i];
        out[15 + i] = s3.shape[i];
    }
    GT<float> g(nullptr, pto::Shape<1, 1, 1, -1, -1>(1, 1, 1, 3, 4), pto::Stride<-1, -1, -1, -1, 1>(1, 2, 3, 4, 5));
    out[20] = g.GetShape(3);
    out[21] = g.GetShape(4);
    out[22] = g.GetStride(3);
    out[23] = g.GetStride(4);
}

}  // extern "C"
