#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void softmax(__gm__ float* v1, __gm__ float* v2) {
#if defined(__DAV_VEC__)
  // softmax.py:6
  Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v3 =
      Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 64);
  TASSIGN(v3, 0);
  pto::Shape<1, 1, 1, 16, 64> v4 = pto::Shape<1, 1, 1, 16, 64>();
  pto::Stride<1024, 1024, 1024, 64, 1> v5 = pto::Stride<1024, 1024, 1024, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND> v6 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>(v1, v4, v5);
#if defined(PTO_CPU_GM_ORIGIN)
  v6.origin_ = v1;
#endif
  TLOAD(v3, v6);
  PTO_EST(PIPE_MTE2, 298u, 1, v3);
  Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 64);
  TASSIGN(v7, 4096);
  // softmax.py:7
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 1);
  TASSIGN(v8, 12288);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TROWMAX(v8, v3, v7);
  PTO_EST(PIPE_V, 144u, 1, v8, v3, v7);
  // softmax.py:8
  Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9 =
      Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 64);
  TASSIGN(v9, 8192);
  TROWEXPANDSUB(v9, v3, v8);
  PTO_EST(PIPE_V, 318u, 1, v9, v3, v8);
  // softmax.py:9
  TEXP(v9, v9);
  PTO_EST(PIPE_V, 63u, 1, v9, v9);
  // softmax.py:10
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v10 =
      Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 1);
  TASSIGN(v10, 12416);
  TROWSUM(v10, v9, v7);
  PTO_EST(PIPE_V, 156u, 1, v10, v9, v7);
  // softmax.py:11
  TROWEXPANDDIV(v3, v9, v10);
  PTO_EST(PIPE_V, 355u, 1, v3, v9, v10);
  pto::Shape<1, 1, 1, 16, 64> v11 = pto::Shape<1, 1, 1, 16, 64>();
  pto::Stride<1024, 1024, 1024, 64, 1> v12 = pto::Stride<1024, 1024, 1024, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND> v13 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>(v2, v11, v12);
#if defined(PTO_CPU_GM_ORIGIN)
  v13.origin_ = v2;
#endif
  // softmax.py:12
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v13, v3);
  PTO_EST(PIPE_MTE3, 38u, 0, v3);
  pipe_barrier(PIPE_ALL);
#endif
}
