#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void generate(__gm__ int32_t* v1, __gm__ uint32_t* v2, __gm__ int32_t* v3, int32_t v4) {
#if defined(__DAV_VEC__)
  // vector2_programs.py:41
  Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v5 =
      Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v5, 0);
  TTRI<decltype(v5), 1>(v5, v4);
  pto::Shape<1, 1, 1, 8, 64> v6 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v7 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<int32_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v8 =
      GlobalTensor<int32_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v1, v6, v7);
#if defined(PTO_CPU_GM_ORIGIN)
  v8.origin_ = v1;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(v8, v5);
  PTO_EST(PIPE_MTE3, 19u, 0, v5);
  // vector2_programs.py:42
  Tile<TileType::Vec, uint32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9 =
      Tile<TileType::Vec, uint32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v9, 0);
  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
  TRANDOM<7>(v9, 1, 2, 3, 4, 5, 6);
  pto::Shape<1, 1, 1, 8, 64> v10 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v11 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<uint32_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v12 =
      GlobalTensor<uint32_t, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v2, v10, v11);
#if defined(PTO_CPU_GM_ORIGIN)
  v12.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  TSTORE(v12, v9);
  PTO_EST(PIPE_MTE3, 19u, 0, v9);
  // vector2_programs.py:43
  Tile<TileType::Vec, int32_t, 1, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v13 =
      Tile<TileType::Vec, int32_t, 1, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 64);
  TASSIGN(v13, 0);
  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
  TCI<decltype(v13), typename decltype(v13)::DType, 1>(v13, 0);
  pto::Shape<1, 1, 1, 1, 64> v14 = pto::Shape<1, 1, 1, 1, 64>();
  pto::Stride<64, 64, 64, 64, 1> v15 = pto::Stride<64, 64, 64, 64, 1>();
  GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 64>, pto::Stride<64, 64, 64, 64, 1>, pto::Layout::ND> v16 =
      GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 64>, pto::Stride<64, 64, 64, 64, 1>, pto::Layout::ND>(v3, v14, v15);
#if defined(PTO_CPU_GM_ORIGIN)
  v16.origin_ = v3;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);
  TSTORE(v16, v13);
  PTO_EST(PIPE_MTE3, 3u, 0, v13);
  pipe_barrier(PIPE_ALL);
#endif
}
