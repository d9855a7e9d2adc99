#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void params(__gm__ float* v1, __gm__ int32_t* v2, __gm__ float* v3) {
#if defined(__DAV_VEC__)
  // vector2_programs.py:49
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
  // vector2_programs.py:50
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v8, 2048);
  // vector2_programs.py:51
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v9, 4096);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TDIV(v9, v7, v7);
  PTO_EST(PIPE_V, 62u, 1, v9, v7, v7);
  Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v10 =
      Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v10, 4096);
  TCVT(v10, v9, RoundMode::CAST_FLOOR);
  PTO_EST(PIPE_V, 37u, 1, v10, v9);
  pto::Shape<1, 1, 1, 8, 64> v11 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v12 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<int32_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v13 =
      GlobalTensor<int32_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v2, v11, v12);
#if defined(PTO_CPU_GM_ORIGIN)
  v13.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE<decltype(v10), decltype(v13), AtomicType::AtomicAdd>(v13, v10);
  PTO_EST(PIPE_MTE3, 19u, 0, v10);
  // vector2_programs.py:53
  Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v14 =
      Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 64);
  TASSIGN(v14, 4096);
  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
  TCOLSUM(v14, v7, v8, true);
  PTO_EST(PIPE_V, 171u, 1, v14, v7, v8);
  pto::Shape<1, 1, 1, 1, 64> v15 = pto::Shape<1, 1, 1, 1, 64>();
  pto::Stride<64, 64, 64, 64, 1> v16 = pto::Stride<64, 64, 64, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 1, 64>, pto::Stride<64, 64, 64, 64, 1>, pto::Layout::ND> v17 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 1, 64>, pto::Stride<64, 64, 64, 64, 1>, pto::Layout::ND>(v3, v15, v16);
#if defined(PTO_CPU_GM_ORIGIN)
  v17.origin_ = v3;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);
  TSTORE(v17, v14);
  PTO_EST(PIPE_MTE3, 3u, 0, v14);
  pipe_barrier(PIPE_ALL);
#endif
}
