#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void compare(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
#if defined(__DAV_VEC__)
  // vector2_programs.py:12
  pto::Shape<1, 1, 1, 8, 64> v4 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v5 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v6 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v1, v4, v5);
#if defined(PTO_CPU_GM_ORIGIN)
  v6.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v7, 0);
  TLOAD(v7, v6);
  PTO_EST(PIPE_MTE2, 282u, 1, v7);
  // vector2_programs.py:13
  pto::Shape<1, 1, 1, 8, 40> v8 = pto::Shape<1, 1, 1, 8, 40>();
  pto::Stride<512, 512, 512, 64, 1> v9 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 40>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v10 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 40>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v2, v8, v9);
#if defined(PTO_CPU_GM_ORIGIN)
  v10.origin_ = v2;
#endif
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v11 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 40);
  TASSIGN(v11, 2048);
  TLOAD(v11, v10);
  PTO_EST(PIPE_MTE2, 282u, 1, v11);
  // vector2_programs.py:14
  Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 32);
  TASSIGN(v12, 4096);
  // vector2_programs.py:15
  Tile<TileType::Vec, uint8_t, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v13 =
      Tile<TileType::Vec, uint8_t, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 8);
  TASSIGN(v13, 4224);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TCMP(v13, v7, v11, CmpMode::LT);
  PTO_EST(PIPE_V, 54u, 1, v13, v7, v11);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v14 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v14, 4480);
  TSEL(v14, v13, v7, v11, v12);
  PTO_EST(PIPE_V, 43u, 1, v14, v13, v7, v11, v12);
  pto::Shape<1, 1, 1, 8, 64> v15 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v16 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v17 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v3, v15, v16);
#if defined(PTO_CPU_GM_ORIGIN)
  v17.origin_ = v3;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v17, v14);
  PTO_EST(PIPE_MTE3, 19u, 0, v14);
  pipe_barrier(PIPE_ALL);
#endif
}
