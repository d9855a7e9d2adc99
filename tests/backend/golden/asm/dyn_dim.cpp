#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void rowexp(__gm__ float* v1, __gm__ float* v2, int64_t v3) {
#if defined(__DAV_VEC__)
  // rowexp.py:5
  int64_t v4 = (v3 < 32 ? v3 : 32);
  // rowexp.py:6
  Tile<TileType::Vec, float, 32, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v5 =
      Tile<TileType::Vec, float, 32, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v4, 64);
  TASSIGN(v5, 0);
  pto::Shape<1, 1, 1, -1, 64> v6 = pto::Shape<1, 1, 1, -1, 64>(1, 1, 1, v4, 64);
  pto::Stride<-1, -1, -1, 64, 1> v7 = pto::Stride<-1, -1, -1, 64, 1>(v4 * 64, v4 * 64, v4 * 64, 64, 1);
  GlobalTensor<float, pto::Shape<1, 1, 1, -1, 64>, pto::Stride<-1, -1, -1, 64, 1>, pto::Layout::ND> v8 =
      GlobalTensor<float, pto::Shape<1, 1, 1, -1, 64>, pto::Stride<-1, -1, -1, 64, 1>, pto::Layout::ND>(v1, v6, v7);
#if defined(PTO_CPU_GM_ORIGIN)
  v8.origin_ = v1;
#endif
  TLOAD(v5, v8);
  PTO_EST(PIPE_MTE2, 330u, 1, v5);
  // rowexp.py:7
  Tile<TileType::Vec, float, 32, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9 =
      Tile<TileType::Vec, float, 32, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v4, 64);
  TASSIGN(v9, 8192);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TEXP(v9, v5);
  PTO_EST(PIPE_V, 95u, 1, v9, v5);
  // rowexp.py:8
  pto::Shape<1, 1, 1, -1, 64> v10 = pto::Shape<1, 1, 1, -1, 64>(1, 1, 1, v4, 64);
  pto::Stride<-1, -1, -1, 64, 1> v11 = pto::Stride<-1, -1, -1, 64, 1>(v4 * 64, v4 * 64, v4 * 64, 64, 1);
  GlobalTensor<float, pto::Shape<1, 1, 1, -1, 64>, pto::Stride<-1, -1, -1, 64, 1>, pto::Layout::ND> v12 =
      GlobalTensor<float, pto::Shape<1, 1, 1, -1, 64>, pto::Stride<-1, -1, -1, 64, 1>, pto::Layout::ND>(v2, v10, v11);
#if defined(PTO_CPU_GM_ORIGIN)
  v12.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v12, v9);
  PTO_EST(PIPE_MTE3, 75u, 0, v9);
  pipe_barrier(PIPE_ALL);
#endif
}
