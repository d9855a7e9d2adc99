#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void views(__gm__ float* v1, __gm__ float* v2, __gm__ int32_t* v3, __gm__ float* v4) {
#if defined(__DAV_VEC__)
  // vector_c_programs.py:13
  pto::Shape<1, 1, 1, 16, 32> v5 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v6 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v7 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v1, v5, v6);
#if defined(PTO_CPU_GM_ORIGIN)
  v7.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v8, 0);
  TLOAD(v8, v7);
  PTO_EST(PIPE_MTE2, 282u, 1, v8);
  // vector_c_programs.py:14
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v9, 2048);
  Tile<TileType::Vec, float, 32, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v10 =
      Tile<TileType::Vec, float, 32, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(32, 16);
  TASSIGN(v10, 4096);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TTRANS(v10, v8, v9);
  PTO_EST(PIPE_V, 22u, 1, v10, v8, v9);
  pto::Shape<1, 1, 1, 32, 16> v11 = pto::Shape<1, 1, 1, 32, 16>();
  pto::Stride<512, 512, 512, 16, 1> v12 = pto::Stride<512, 512, 512, 16, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 16>, pto::Stride<512, 512, 512, 16, 1>, pto::Layout::ND> v13 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 16>, pto::Stride<512, 512, 512, 16, 1>, pto::Layout::ND>(v2, v11, v12);
#if defined(PTO_CPU_GM_ORIGIN)
  v13.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v13, v10);
  PTO_EST(PIPE_MTE3, 19u, 0, v10);
  // vector_c_programs.py:15
  Tile<TileType::Vec, int32_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v14;
  TRESHAPE(v14, v8);
  pto::Shape<1, 1, 1, 16, 32> v15 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v16 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<int32_t, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v17 =
      GlobalTensor<int32_t, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v3, v15, v16);
#if defined(PTO_CPU_GM_ORIGIN)
  v17.origin_ = v3;
#endif
  TSTORE(v17, v14);
  PTO_EST(PIPE_MTE3, 19u, 0, v14);
  // vector_c_programs.py:16
  v8.SetValidShape(8, 16);
  Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v18 =
      Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 16);
  TASSIGN(v18, 2048);
  TEXTRACT(v18, v8, 0, 16);
  PTO_EST(PIPE_V, 2u, 1, v18, v8);
  pto::Shape<1, 1, 1, 16, 16> v19 = pto::Shape<1, 1, 1, 16, 16>();
  pto::Stride<256, 256, 256, 16, 1> v20 = pto::Stride<256, 256, 256, 16, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND> v21 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>(v4, v19, v20);
#if defined(PTO_CPU_GM_ORIGIN)
  v21.origin_ = v4;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  TSTORE(v21, v18);
  PTO_EST(PIPE_MTE3, 10u, 0, v18);
  pipe_barrier(PIPE_ALL);
#endif
}
