// CPU tile library: the cube ops beyond TMATMUL / TMATMUL_ACC (ops.hpp): the bias forms and GEMV.
//
// TMATMUL_BIAS: acc = left x right + bias, the [1, N] Bias row added to every result row, in the
// accumulator's type (float for fp16/bf16/fp32 inputs, int32 for int8).
// TGEMV / TGEMV_ACC / TGEMV_BIAS: the same with a one-row left operand ([1, K] valid): only row 0
// of the Acc tile is written (the Acc tile keeps its 16 physical rows).
// TMATMUL_MX / TMATMUL_MX_ACC / TMATMUL_MX_BIAS (a5): E4M3FN x E4M3FN with one E8M0 scale per 32
// elements of K on each side (left scale [M, ceil(K/32)], right scale [ceil(K/32), N]):
// acc[i][j] (+)= sum_k (a[i][k] * 2^(sa[i][k/32] - 127)) * (b[k][j] * 2^(sb[k/32][j] - 127)), in fp32,
// k ascending; a scale code 0xFF is NaN.
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

template <typename AccT, typename LT, typename LST, typename RT, typename RST>
inline void matmul_mx(const char* name, AccT& acc, const AccT* acc_in, LT& left, LST& lscale, RT& right,
                      RST& rscale) {
    static_assert(AccT::Loc == TileType::Acc && LT::Loc == TileType::Left && RT::Loc == TileType::Right,
                  "TMATMUL_MX: Acc result, Left and Right operands");
    static_assert(LST::Loc == TileType::ScaleLeft && RST::Loc == TileType::ScaleRight,
                  "TMATMUL_MX: the scales must be ScaleLeft / ScaleRight tiles");
    static_assert(std::is_same<typename LT::DType, float8_e4m3_t>::value &&
                      std::is_same<typename RT::DType, float8_e4m3_t>::value,
                  "TMATMUL_MX: the data operands must be float8_e4m3_t");
    static_assert(std::is_same<typename LST::DType, float8_e8m0_t>::value &&
                      std::is_same<typename RST::DType, float8_e8m0_t>::value,
                  "TMATMUL_MX: the scales must be float8_e8m0_t");
    static_assert(std::is_same<typename AccT::DType, float>::value, "TMATMUL_MX: the result must be fp32");
    static_assert(!col_stored<AccT>(), "TMATMUL_MX: the Acc tile must have the default layout");
    const int M = vrows(left), K = vcols(left), N = vcols(right), G = (K + 31) / 32;
    cube_extents(name, M, K, N);
    if (vrows(right) < K) fatal(name, "left is %dx%d but right has only %d valid rows", M, K, vrows(right));
    if (M > AccT::Rows || N > AccT::Cols)
        fatal(name, "result %dx%d does not fit the %dx%d Acc tile", M, N, AccT::Rows, AccT::Cols);
    if (vrows(lscale) < M || vcols(lscale) < G)
        fatal(name, "the left scale is %dx%d valid; %d x %d (one per 32 of K) are read", vrows(lscale),
              vcols(lscale), M, G);
    if (vrows(rscale) < G || vcols(rscale) < N)
        fatal(name, "the right scale is %dx%d valid; %d x %d (one per 32 of K) are read", vrows(rscale),
              vcols(rscale), G, N);
    const auto* l = ptr(left, name);
    const auto* ls = ptr(lscale, name);
    const auto* rp = ptr(right, name);
    const auto* rs = ptr(rscale, name);
    float* out = ptr(acc, name);
    const float* in = acc_in ? ptr(*acc_in, name) : nullptr;
    // the scaled operands as f32 (exact: a power of two times an E4M3 value), then the blocked
    // inner product (gemm.hpp), each element summed from +0 in k order
    const int np = (N + gemm::kMaxWidth - 1) / gemm::kMaxWidth * gemm::kMaxWidth;
    float* bf = (float*)scratch(0, sizeof(float) * (size_t)K * (size_t)np + 64);   // scaled right, [K, np]
    for (int k = 0; k < K; ++k) {
        float* br = bf + (int64_t)k * np;
        for (int j = 0; j < N; ++j) br[j] = (float)rp[at<RT>(k, j)] * (float)rs[at<RST>(k / 32, j)];
        for (int j = N; j < np; ++j) br[j] = 0.0f;
    }
    float* af = (float*)scratch(2, sizeof(float) * (size_t)M * (size_t)K + 64);   // scaled left, [M, K]
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k)
            af[(int64_t)i * K + k] = (float)l[at<LT>(i, k)] * (float)ls[at<LST>(i, k / 32)];
    if (!in) {
        cube_gemm(M, N, K, af, K, bf, np, out, AccT::Cols);
        return;
    }
    float* sums = (float*)scratch(1, sizeof(float) * (size_t)M * (size_t)N + 64);
    cube_gemm(M, N, K, af, K, bf, np, sums, N);
    matmul_store(out, ix<AccT>(), in, sums, N, M, N);
}
}  // namespace cpu

template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale>
inline RecordEvent TMATMUL_MX(TileRes& cMatrix, TileLeft& aMatrix, TileLeftScale& aScaleMatrix, TileRight& bMatrix,
                              TileRightScale& bScaleMatrix) {
    cpu::matmul_mx("TMATMUL_MX", cMatrix, (const TileRes*)nullptr, aMatrix, aScaleMatrix, bMatrix, bScaleMatrix);
    return {};
}
template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale>
inline RecordEvent TMATMUL_MX(TileRes& cOutMatrix, TileRes& cInMatrix, TileLeft& aMatrix, TileLeftScale& aScaleMatrix,
                              TileRight& bMatrix, TileRightScale& bScaleMatrix) {
    cpu::matmul_mx("TMATMUL_MX", cOutMatrix, &cInMatrix, aMatrix, aScaleMatrix, bMatrix, bScaleMatrix);
    return {};
}
template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          typename TileBias>
inline RecordEvent TMATMUL_MX(TileRes& cMatrix, TileLeft& aMatrix, TileLeftScale& aScaleMatrix, TileRight& bMatrix,
                              TileRightScale& bScaleMatrix, TileBias& biasData) {
    cpu::matmul_mx("TMATMUL_MX", cMatrix, (const TileRes*)nullptr, aMatrix, aScaleMatrix, bMatrix, bScaleMatrix);
    cpu::add_bias_row("TMATMUL_MX", cMatrix, cpu::vrows(aMatrix), biasData);
    return {};
}

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
