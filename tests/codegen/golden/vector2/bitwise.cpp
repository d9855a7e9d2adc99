#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void bitwise(__gm__ int16_t* v1, __gm__ int16_t* v2) {
#if defined(__DAV_VEC__)
  // vector2_programs.py:20
  pto::Shape<1, 1, 1, 8, 64> v3 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v4 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<int16_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v5 =
      GlobalTensor<int16_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v1, v3, v4);
#if defined(PTO_CPU_GM_ORIGIN)
  v5.origin_ = v1;
#endif
  Tile<TileType::Vec, int16_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v6 =
      Tile<TileType::Vec, int16_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v6, 0);
  TLOAD(v6, v5);
  PTO_EST(PIPE_MTE2, 274u, 1, v6);
  // vector2_programs.py:21
  Tile<TileType::Vec, int16_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, int16_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v7, 1024);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TSHLS(v7, v6, 3);
  PTO_EST(PIPE_V, 24u, 1, v7, v6);
  Tile<TileType::Vec, int16_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, int16_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v8, 2048);
  TXOR(v8, v7, v6, v6);
  PTO_EST(PIPE_V, 190u, 1, v8, v7, v6, v6);
  pto::Shape<1, 1, 1, 8, 64> v9 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v10 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<int16_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v11 =
      GlobalTensor<int16_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v2, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v11, v8);
  PTO_EST(PIPE_MTE3, 10u, 0, v8);
  pipe_barrier(PIPE_ALL);
#endif
}
