// CPU tile library: the cube ops beyond TMATMUL / TMATMUL_ACC (ops.hpp): the bias forms and GEMV.
//
// TMATMUL_BIAS: acc = left x right + bias, the [1, N] Bias row added to every result row, in the
// accumulator's type (float for fp16/bf16/fp32 inputs, int32 for int8).
// TGEMV / TGEMV_ACC / TGEMV_BIAS: the same with a one-row left operand ([1, K] valid): only row 0
// of the Acc tile is written (the Acc tile keeps its 16 physical rows).
#ifndef PTO_CPU_OPS_CUBE_HPP
#define PTO_CPU_OPS_CUBE_HPP

#include "pto/cpu/ops.hpp"

namespace pto {
namespace cpu {
template <typename AccT, typename BiasT>
inline void add_bias_row(const char* name, AccT& acc, int rows, BiasT& bias) {
    static_assert(BiasT::Loc == TileType::Bias, "TMATMUL_BIAS: the bias must be a Bias tile");
    using OD = typename AccT::DType;
    using BD = typename BiasT::DType;
    static_assert(std::is_same<OD, BD>::value, "TMATMUL_BIAS: the bias must have the accumulator's dtype");
    const int N = vcols(acc);
    if (vcols(bias) < N) fatal(name, "the bias row has %d valid columns, the result %d", vcols(bias), N);
    OD* out = ptr(acc, name);
    const BD* b = ptr(bias, name);
    for (int i = 0; i < rows; ++i) {
        OD* o = out + at<AccT>(i, 0);
        for (int j = 0; j < N; ++j) o[j] = (OD)(o[j] + b[at<BiasT>(0, j)]);
    }
}

template <typename LT>
inline void gemv_left(const char* name, LT& left) {
    if (vrows(left) != 1) fatal(name, "the left operand has %d valid rows, GEMV takes one", vrows(left));
}
}  // namespace cpu

template <typename TileRes, typename TileLeft, typename TileRight, typename TileBias>
inline RecordEvent TMATMUL_BIAS(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix, TileBias& biasData) {
    cpu::matmul<TileRes, TileRes>("TMATMUL_BIAS", cMatrix, (TileRes*)nullptr, aMatrix, bMatrix);
    cpu::add_bias_row("TMATMUL_BIAS", cMatrix, cpu::vrows(aMatrix), biasData);
    return {};
}

template <typename TileRes, typename TileLeft, typename TileRight>
inline RecordEvent TGEMV(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix) {
    cpu::gemv_left("TGEMV", aMatrix);
    cpu::matmul<TileRes, TileRes>("TGEMV", cMatrix, (TileRes*)nullptr, aMatrix, bMatrix);
    return {};
}
template <typename TileRes, typename TileLeft, typename TileRight>
inline RecordEvent TGEMV_ACC(TileRes& cOutMatrix, TileRes& cInMatrix, TileLeft& aMatrix, TileRight& bMatrix) {
    cpu::gemv_left("TGEMV_ACC", aMatrix);
    cpu::matmul<TileRes, TileRes>("TGEMV_ACC", cOutMatrix, &cInMatrix, aMatrix, bMatrix);
    return {};
}
template <typename TileRes, typename TileLeft, typename TileRight, typename TileBias>
inline RecordEvent TGEMV_BIAS(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix, TileBias& biasData) {
    cpu::gemv_left("TGEMV_BIAS", aMatrix);
    cpu::matmul<TileRes, TileRes>("TGEMV_BIAS", cMatrix, (TileRes*)nullptr, aMatrix, bMatrix);
    cpu::add_bias_row("TGEMV_BIAS", cMatrix, 1, biasData);
    return {};
}
}  // namespace pto

#endif
