// CPU tile library: the out-of-line tile operations of cpu_sim_hooks.h but the reductions
// (pto/cpu/ops_hooks_reduce.hpp): element-wise, conversions, moves, loads and stores, the cube,
// binding and the FIFO transfer. Define them in exactly one source of a runtime library
// (pto/cpu/ops_hooks.hpp says how).
#ifndef PTO_CPU_OPS_HOOKS_MAIN_HPP
#define PTO_CPU_OPS_HOOKS_MAIN_HPP

#include "pto/cpu/ops_hooks_common.hpp"

namespace pto { namespace cpu { namespace ool {

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
