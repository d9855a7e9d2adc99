// CPU tile library: the out-of-line tile operations of cpu_sim_hooks.h (pto_cpu_op_*), for a
// runtime library to define in exactly one of its sources (after `#define PTO_CPU_SIM_HOOKS_IMPL`
// or `#define PTO_CPU_OPS_IMPL` and `#include "pto/cpu_sim_hooks.h"`). The simulator's runtime
// library (ptokit/runtime/sim) does: its kernels' element-wise instructions, loads, stores, moves,
// conversions and reductions then run the loops compiled here once, for runtime shapes,
// instead of a copy per tile type in every kernel (pto/cpu/op_refs.hpp). Each hook dispatches on
// the element types to the same templates the library inlines.
#ifndef PTO_CPU_OPS_HOOKS_HPP
#define PTO_CPU_OPS_HOOKS_HPP

#if !defined(PTO_CPU_SIM_HOOKS_IMPL) && !defined(PTO_CPU_OPS_IMPL)
#error "ops_hooks.hpp defines hooks: #define PTO_CPU_OPS_IMPL (or PTO_CPU_SIM_HOOKS_IMPL) and include pto/cpu_sim_hooks.h first"
#endif

#include "pto/cpu/ops.hpp"
#include "pto/cpu/fifo.hpp"

namespace pto { namespace cpu { namespace ool {

// f(T{}) for the element type of datatype_code `code` among the arithmetic types (ool_arith).
template <typename F>
inline bool with_arith(int32_t code, F f) {
    switch (code) {
        case datatype_code<float>(): f(float{}); return true;
        case datatype_code<half>(): f(half{}); return true;
        case datatype_code<bfloat16_t>(): f(bfloat16_t{}); return true;
        case datatype_code<int32_t>(): f(int32_t{}); return true;
    }
    return false;
}
// An unsigned integer of the element size of `code`: copies of one type move bits (ool_bits).
template <typename F>
inline bool with_bits(int32_t code, F f) {
    switch (code) {
        case datatype_code<int8_t>(): case datatype_code<uint8_t>(): case datatype_code<bool>():
            f(uint8_t{}); return true;
        case datatype_code<half>(): case datatype_code<bfloat16_t>(): case datatype_code<int16_t>():
        case datatype_code<uint16_t>():
            f(uint16_t{}); return true;
        case datatype_code<float>(): case datatype_code<int32_t>(): case datatype_code<uint32_t>():
            f(uint32_t{}); return true;
        case datatype_code<int64_t>(): case datatype_code<uint64_t>():
            f(uint64_t{}); return true;
    }
    return false;
}

[[noreturn]] inline void unsupported(const char* instr, int32_t a, int32_t b) {
    fatal(instr, "the runtime library's out-of-line operation has no loop for element types %d and %d", a, b);
}

inline Ix ix_of(const PtoCpuTileRef* t) { return Ix{t->rows, t->cols, t->col_stored != 0}; }

// f(layout of a, layout of b, layout of c): IxRowMajor when the three are row-major (the loops then
// vectorise as the inlined ones do), else Ix.
template <typename F>
inline void with_layouts(const PtoCpuTileRef* a, const PtoCpuTileRef* b, const PtoCpuTileRef* c, F f) {
    if (!a->col_stored && !b->col_stored && !c->col_stored)
        f(IxRowMajor{a->rows, a->cols}, IxRowMajor{b->rows, b->cols}, IxRowMajor{c->rows, c->cols});
    else
        f(ix_of(a), ix_of(b), ix_of(c));
}

template <typename T>
inline void elementwise_typed(int32_t op, const PtoCpuTileRef* d, const PtoCpuTileRef* a, const PtoCpuTileRef* b,
                              const void* scalar) {
    T* pd = (T*)d->data;
    const T* pa = (const T*)a->data;
    const T* pb = b ? (const T*)b->data : nullptr;
    const int64_t lb = b ? b->cols : 0;
    switch (op) {
#define PTO_CPU_OOL_CASE(OP) \
    case OP: elementwise_rt<OP, T>(pd, pa, pb, d->vr, d->vc, d->cols, a->cols, lb, scalar); return;
        PTO_CPU_OOL_CASE(PTO_CPU_OP_ADD) PTO_CPU_OOL_CASE(PTO_CPU_OP_SUB) PTO_CPU_OOL_CASE(PTO_CPU_OP_MUL)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_DIV) PTO_CPU_OOL_CASE(PTO_CPU_OP_MAX) PTO_CPU_OOL_CASE(PTO_CPU_OP_MIN)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_ADDS) PTO_CPU_OOL_CASE(PTO_CPU_OP_SUBS) PTO_CPU_OOL_CASE(PTO_CPU_OP_MULS)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_DIVS) PTO_CPU_OOL_CASE(PTO_CPU_OP_MAXS) PTO_CPU_OOL_CASE(PTO_CPU_OP_MINS)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_RDIVS)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_EXP) PTO_CPU_OOL_CASE(PTO_CPU_OP_LOG) PTO_CPU_OOL_CASE(PTO_CPU_OP_SQRT)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_RSQRT) PTO_CPU_OOL_CASE(PTO_CPU_OP_RECIP) PTO_CPU_OOL_CASE(PTO_CPU_OP_NEG)
        PTO_CPU_OOL_CASE(PTO_CPU_OP_ABS) PTO_CPU_OOL_CASE(PTO_CPU_OP_RELU)
#undef PTO_CPU_OOL_CASE
    }
    fatal("PTO", "out-of-line element-wise operation %d does not exist", (int)op);
}

template <typename T>
inline void reduce_typed(int32_t kind, bool is_row, const PtoCpuTileRef* d, const PtoCpuTileRef* s) {
    T* pd = (T*)d->data;
    const T* ps = (const T*)s->data;
    const Ix di = ix_of(d), si = ix_of(s);
    if (is_row) {
        if (kind == 0) reduce_rt<true, 0>(pd, di, ps, si, s->vr, s->vc);
        else if (kind == 1) reduce_rt<true, 1>(pd, di, ps, si, s->vr, s->vc);
        else reduce_rt<true, 2>(pd, di, ps, si, s->vr, s->vc);
    } else {
        if (kind == 0) reduce_rt<false, 0>(pd, di, ps, si, s->vr, s->vc);
        else if (kind == 1) reduce_rt<false, 1>(pd, di, ps, si, s->vr, s->vc);
        else reduce_rt<false, 2>(pd, di, ps, si, s->vr, s->vc);
    }
}

template <typename T, Layout L>
inline void gm_typed(const char* instr, bool store, const PtoCpuTileRef* t, const PtoCpuGmRef* g) {
    const GmLayoutView<L> v(g->shape, g->stride);
    if (store)
        store_rows(instr, (T*)g->data, g->origin, v, (const T*)t->data, ix_of(t), t->vr, t->vc, false, g->dtype);
    else
        load_rows(instr, (T*)t->data, ix_of(t), t->vr, t->vc, (const T*)g->data, g->origin, v);
}

}}}  // namespace pto::cpu::ool

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_elementwise(int32_t op, const PtoCpuTileRef* dst,
                                                                            const PtoCpuTileRef* a,
                                                                            const PtoCpuTileRef* b,
                                                                            const void* scalar) {
    using namespace pto::cpu;
    if (!ool::with_arith(dst->dtype, [&](auto t) { ool::elementwise_typed<decltype(t)>(op, dst, a, b, scalar); }))
        ool::unsupported("PTO", dst->dtype, dst->dtype);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_reduce(int32_t kind, int32_t is_row,
                                                                       const PtoCpuTileRef* dst,
                                                                       const PtoCpuTileRef* src) {
    using namespace pto::cpu;
    if (!ool::with_arith(dst->dtype, [&](auto t) { ool::reduce_typed<decltype(t)>(kind, is_row != 0, dst, src); }))
        ool::unsupported("PTO", dst->dtype, dst->dtype);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_cvt(const PtoCpuTileRef* dst,
                                                                    const PtoCpuTileRef* src, int32_t mode) {
    using namespace pto::cpu;
    const bool ok = ool::with_arith(dst->dtype, [&](auto dt) {
        using DT = decltype(dt);
        if (!ool::with_arith(src->dtype, [&](auto st) {
                using ST = decltype(st);
                ool::with_layouts(dst, src, src, [&](auto di, auto si, auto) {
                    convert_rt((DT*)dst->data, di, (const ST*)src->data, si, dst->vr, dst->vc, (pto::RoundMode)mode);
                });
            }))
            ool::unsupported("TCVT", dst->dtype, src->dtype);
    });
    if (!ok) ool::unsupported("TCVT", dst->dtype, src->dtype);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_copy(const PtoCpuTileRef* dst, int32_t dr,
                                                                     int32_t dc, const PtoCpuTileRef* src,
                                                                     int32_t sr, int32_t sc, int32_t vr, int32_t vc) {
    using namespace pto::cpu;
    bool ok;
    if (dst->dtype == src->dtype) {
        ok = ool::with_bits(dst->dtype, [&](auto t) {
            using T = decltype(t);
            ool::with_layouts(dst, src, src, [&](auto dl, auto sl, auto) {
                copy_block_rt((T*)dst->data, dl, dst->space, dr, dc, (const T*)src->data, sl, src->space, sr, sc, vr,
                              vc);
            });
        });
    } else {
        ok = ool::with_arith(dst->dtype, [&](auto dt) {
            using DT = decltype(dt);
            const auto move = [&](auto st) {
                using ST = decltype(st);
                ool::with_layouts(dst, src, src, [&](auto dl, auto sl, auto) {
                    copy_block_rt((DT*)dst->data, dl, dst->space, dr, dc, (const ST*)src->data, sl, src->space, sr,
                                  sc, vr, vc);
                });
            };
            if (src->dtype == datatype_code<float>()) move(float{});
            else if (src->dtype == datatype_code<int32_t>()) move(int32_t{});
            else ool::unsupported("TMOV", dst->dtype, src->dtype);
        });
    }
    if (!ok) ool::unsupported("TMOV", dst->dtype, src->dtype);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_gm(const char* instr, int32_t store,
                                                                   const PtoCpuTileRef* tile, const PtoCpuGmRef* gm) {
    using namespace pto::cpu;
    // ND and DN views address alike (GmLayoutView); NZ holds cube operands (1, 2 or 4 bytes), the
    // MX layouts one-byte scales
    const bool ok = ool::with_bits(tile->dtype, [&](auto t) {
        using T = decltype(t);
        const auto layout = (pto::Layout)gm->layout;
        if (layout == pto::Layout::ND || layout == pto::Layout::DN)
            ool::gm_typed<T, pto::Layout::ND>(instr, store != 0, tile, gm);
        else if (layout == pto::Layout::NZ && sizeof(T) <= 4)
            ool::gm_typed<T, pto::Layout::NZ>(instr, store != 0, tile, gm);
        else if (layout == pto::Layout::MX_A_ZZ && sizeof(T) == 1)
            ool::gm_typed<T, pto::Layout::MX_A_ZZ>(instr, store != 0, tile, gm);
        else if (layout == pto::Layout::MX_B_NN && sizeof(T) == 1)
            ool::gm_typed<T, pto::Layout::MX_B_NN>(instr, store != 0, tile, gm);
        else
            fatal(instr, "global tensor layout %d of %d-byte elements has no out-of-line loop", (int)gm->layout,
                  (int)sizeof(T));
    });
    if (!ok) ool::unsupported(instr, tile->dtype, gm->dtype);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_matmul(const PtoCpuTileRef* acc,
                                                                       const PtoCpuTileRef* in,
                                                                       const PtoCpuTileRef* left,
                                                                       const PtoCpuTileRef* right, int32_t m,
                                                                       int32_t k, int32_t n) {
    using namespace pto::cpu;
    const auto run = [&](auto t) {
        using T = decltype(t);
        matmul_f32((float*)acc->data, ool::ix_of(acc), in ? (const float*)in->data : nullptr, (const T*)left->data,
                   ool::ix_of(left), (const T*)right->data, ool::ix_of(right), m, k, n);
    };
    if (left->dtype == datatype_code<float>()) run(float{});
    else if (left->dtype == datatype_code<half>()) run(half{});
    else if (left->dtype == datatype_code<bfloat16_t>()) run(bfloat16_t{});
    else ool::unsupported("TMATMUL", left->dtype, right->dtype);
}

extern "C" __attribute__((visibility("default"))) uint8_t* pto_cpu_op_bind(int32_t sp, uint64_t bytes,
                                                                           uint64_t align, int64_t off,
                                                                           const char* instr, int32_t fill_elem,
                                                                           uint64_t fill_bits, int32_t numel) {
    return pto::cpu::bind_bytes_impl(sp, bytes, align, off, instr, fill_elem, fill_bits, numel);
}

extern "C" __attribute__((visibility("default"))) uint8_t* pto_cpu_op_assign(int32_t sp, uint64_t bytes,
                                                                             uint64_t align, int64_t v,
                                                                             int32_t fill_elem, uint64_t fill_bits,
                                                                             int32_t numel, int64_t* off,
                                                                             int32_t* fill) {
    return pto::cpu::assign_value_impl(sp, bytes, align, v, fill_elem, fill_bits, numel, off, fill);
}

extern "C" __attribute__((visibility("default"))) void pto_cpu_op_fifo(const char* instr, int32_t pop, PtoCpuCore* c,
                                                                     const PtoCpuFifoPipe* pipe,
                                                                     const PtoCpuFifoTile* tile, int32_t split) {
    if (pop)
        pto::cpu::fifo_pop_tile(instr, c, *pipe, *tile, split);
    else
        pto::cpu::fifo_push_tile(instr, c, *pipe, *tile, split);
}

#endif
