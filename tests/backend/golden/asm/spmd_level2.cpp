#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void relu_blocks(__gm__ float* v1, __gm__ float* v2, int32_t v3, int32_t v4) {
#if defined(__DAV_VEC__)
  // relu.py:4
  int64_t v5 = static_cast<int64_t>(v3);
  // relu.py:5
  int64_t v6 = v5 * 16;
  // relu.py:6
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v7, 0);
  pto::Shape<1, 1, 1, 16, 32> v8 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v9 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v10 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v1 + v6 * 32, v8, v9);
#if defined(PTO_CPU_GM_ORIGIN)
  v10.origin_ = v1;
#endif
  TLOAD(v7, v10);
  PTO_EST(PIPE_MTE2, 282u, 1, v7);
  // relu.py:7
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v11 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v11, 2048);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TRELU(v11, v7);
  PTO_EST(PIPE_V, 31u, 1, v11, v7);
  pto::Shape<1, 1, 1, 16, 32> v12 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v13 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v14 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v2 + v6 * 32, v12, v13);
#if defined(PTO_CPU_GM_ORIGIN)
  v14.origin_ = v2;
#endif
  // relu.py:8
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v14, v11);
  PTO_EST(PIPE_MTE3, 19u, 0, v11);
  pipe_barrier(PIPE_ALL);
#endif
}
