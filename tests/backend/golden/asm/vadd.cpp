#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void vadd(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
#if defined(__DAV_VEC__)
  // vadd.py:10
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v4 =
      Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v4, 0);
  pto::Shape<1, 1, 1, 32, 32> v5 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v6 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v7 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v1, v5, v6);
#if defined(PTO_CPU_GM_ORIGIN)
  v7.origin_ = v1;
#endif
  TLOAD(v4, v7);
  PTO_EST(PIPE_MTE2, 298u, 1, v4);
  // vadd.py:11
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v8, 4096);
  pto::Shape<1, 1, 1, 32, 32> v9 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v10 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v11 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v2, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v2;
#endif
  TLOAD(v8, v11);
  PTO_EST(PIPE_MTE2, 298u, 1, v8);
  // vadd.py:12
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v12, 8192);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(v12, v4, v8);
  PTO_EST(PIPE_V, 106u, 1, v12, v4, v8);
  // vadd.py:13
  pto::Shape<1, 1, 1, 32, 32> v13 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v14 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v15 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v3, v13, v14);
#if defined(PTO_CPU_GM_ORIGIN)
  v15.origin_ = v3;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v15, v12);
  PTO_EST(PIPE_MTE3, 38u, 0, v12);
  pipe_barrier(PIPE_ALL);
#endif
}
