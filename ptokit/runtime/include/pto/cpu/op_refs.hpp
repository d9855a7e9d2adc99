// CPU tile library: how an instruction hands its tiles to the runtime library's out-of-line
// operations (pto_cpu_op_* of cpu_sim_hooks.h, defined by pto/cpu/ops_hooks.hpp).
//
// A kernel's g++ time is mostly the optimisation of the instructions it instantiates, one copy
// per tile type. The instructions whose loops depend only on element types (element-wise,
// loads and stores, moves, conversions, reductions, the cube) are therefore compiled once, for
// runtime shapes, in the simulator's runtime library; the kernel's instruction checks its
// operands, describes them (tile_ref, gm_ref) and calls the hook. The loops are the same
// templates the library inlines, so the results are the same bits.
//
// A kernel opts in with -DPTO_CPU_OOL_OPS (ptokit's simulator builds its kernels so, and loads
// the runtime library first); without it every instruction is inlined as before. Element types
// the hooks do not take are always inlined.
#ifndef PTO_CPU_OP_REFS_HPP
#define PTO_CPU_OP_REFS_HPP

#include "pto/cpu/atomic.hpp"
#include "pto/cpu/core.hpp"
#include "pto/cpu/tile.hpp"

namespace pto { namespace cpu {

// Element types the out-of-line arithmetic (element-wise, reductions, conversions)
// is compiled for: those of model code. Others are inlined, as before.
template <typename T>
constexpr bool ool_arith() {
    return kOutOfLineOps && (std::is_same<T, float>::value || std::is_same<T, half>::value ||
                             std::is_same<T, bfloat16_t>::value || std::is_same<T, int32_t>::value);
}
// The floating-point cube (pto_cpu_op_matmul): f32 results from f16, bf16 or f32 operands.
template <typename OD, typename IT, typename LD, typename RD>
constexpr bool ool_matmul() {
    return kOutOfLineOps && std::is_same<OD, float>::value && std::is_same<IT, float>::value &&
           std::is_same<LD, RD>::value &&
           (std::is_same<LD, float>::value || std::is_same<LD, half>::value || std::is_same<LD, bfloat16_t>::value);
}
// Moves between two element types: the accumulator's (f32, i32) to the others.
template <typename DT, typename ST>
constexpr bool ool_move_pair() {
    return ool_arith<DT>() && (std::is_same<ST, float>::value || std::is_same<ST, int32_t>::value) &&
           !std::is_same<DT, ST>::value && kOutOfLineOps;
}
// Element types the out-of-line copies (loads, stores, moves of one type) take: any plain type
// of 1, 2, 4 or 8 bytes with a datatype_code, moved as its bits.
template <typename T>
constexpr bool ool_bits() {
    return kOutOfLineOps && datatype_code<T>() >= 0 && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                                                        sizeof(T) == 8);
}

// Loads and stores of one element type through a view of layout L (pto_cpu_op_gm): ND and DN
// views of any such type, NZ of 1, 2 and 4 bytes (cube operands), the MX layouts of one byte (scales).
template <typename T, Layout L>
constexpr bool ool_gm() {
    return ool_bits<T>() && (L == Layout::ND || L == Layout::DN || (L == Layout::NZ && sizeof(T) <= 4) ||
                             ((L == Layout::MX_A_ZZ || L == Layout::MX_B_NN) && sizeof(T) == 1));
}

template <typename TileT>
inline PtoCpuTileRef tile_ref(const TileT& t) {
    return PtoCpuTileRef{(void*)t.cpu_data_, TileT::Rows, TileT::Cols, t.cpu_vr_, t.cpu_vc_,
                         datatype_code<typename TileT::DType>(), col_stored<TileT>() ? 1 : 0, (int32_t)TileT::Loc};
}

template <typename GT>
inline PtoCpuGmRef gm_ref(const GT& g) {
    PtoCpuGmRef r;
    r.data = (void*)g.data_;
    r.origin = g.origin_;
    for (int i = 0; i < 5; ++i) {
        r.shape[i] = g.shape_.shape[i];
        r.stride[i] = g.stride_.stride[i];
    }
    r.layout = (int32_t)GT::layout;
    r.dtype = datatype_code<typename GT::DType>();
    return r;
}

}}  // namespace pto::cpu

#endif
