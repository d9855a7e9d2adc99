#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void axpb(__gm__ float* v1, __gm__ float* v2, float v3) {
#if defined(__DAV_VEC__)
  // axpb.py:7
  Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v4 =
      Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 64);
  TASSIGN(v4, 0);
  pto::Shape<1, 1, 1, 16, 64> v5 = pto::Shape<1, 1, 1, 16, 64>();
  pto::Stride<1024, 1024, 1024, 64, 1> v6 = pto::Stride<1024, 1024, 1024, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND> v7 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>(v1, v5, v6);
#if defined(PTO_CPU_GM_ORIGIN)
  v7.origin_ = v1;
#endif
  TLOAD(v4, v7);
  PTO_EST(PIPE_MTE2, 298u, 1, v4);
  // axpb.py:8
  Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 64);
  TASSIGN(v8, 4096);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TMULS(v8, v4, v3);
  PTO_EST(PIPE_V, 42u, 1, v8, v4);
  // axpb.py:9
  TADDS(v8, v8, 1.5f);
  PTO_EST(PIPE_V, 41u, 1, v8, v8);
  // axpb.py:10
  pto::Shape<1, 1, 1, 16, 64> v9 = pto::Shape<1, 1, 1, 16, 64>();
  pto::Stride<1024, 1024, 1024, 64, 1> v10 = pto::Stride<1024, 1024, 1024, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND> v11 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>(v2, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v11, v8);
  PTO_EST(PIPE_MTE3, 38u, 0, v8);
  pipe_barrier(PIPE_ALL);
#endif
}
