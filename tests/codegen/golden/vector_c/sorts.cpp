#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void sorts(__gm__ float* v1, __gm__ uint32_t* v2, __gm__ float* v3, __gm__ float* v4) {
#if defined(__DAV_VEC__)
  // vector_c_programs.py:45
  pto::Shape<1, 1, 1, 1, 128> v5 = pto::Shape<1, 1, 1, 1, 128>();
  pto::Stride<128, 128, 128, 128, 1> v6 = pto::Stride<128, 128, 128, 128, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 1, 128>, pto::Stride<128, 128, 128, 128, 1>, pto::Layout::ND> v7 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 1, 128>, pto::Stride<128, 128, 128, 128, 1>, pto::Layout::ND>(v1, v5, v6);
#if defined(PTO_CPU_GM_ORIGIN)
  v7.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 1, 128, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 1, 128, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 128);
  TASSIGN(v8, 0);
  TLOAD(v8, v7);
  PTO_EST(PIPE_MTE2, 270u, 1, v8);
  pto::Shape<1, 1, 1, 1, 128> v9 = pto::Shape<1, 1, 1, 1, 128>();
  pto::Stride<128, 128, 128, 128, 1> v10 = pto::Stride<128, 128, 128, 128, 1>();
  GlobalTensor<uint32_t, pto::Shape<1, 1, 1, 1, 128>, pto::Stride<128, 128, 128, 128, 1>, pto::Layout::ND> v11 =
      GlobalTensor<uint32_t, pto::Shape<1, 1, 1, 1, 128>, pto::Stride<128, 128, 128, 128, 1>, pto::Layout::ND>(v2, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v2;
#endif
  Tile<TileType::Vec, uint32_t, 1, 128, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Vec, uint32_t, 1, 128, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 128);
  TASSIGN(v12, 512);
  TLOAD(v12, v11);
  PTO_EST(PIPE_MTE2, 270u, 1, v12);
  Tile<TileType::Vec, float, 1, 256, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v13 =
      Tile<TileType::Vec, float, 1, 256, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 256);
  TASSIGN(v13, 1024);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TSORT32(v13, v8, v12);
  // vector_c_programs.py:46
  Tile<TileType::Vec, float, 1, 256, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v14 =
      Tile<TileType::Vec, float, 1, 256, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 256);
  TASSIGN(v14, 0);
  TMRGSORT(v14, v13, 64);
  pto::Shape<1, 1, 1, 1, 256> v15 = pto::Shape<1, 1, 1, 1, 256>();
  pto::Stride<256, 256, 256, 256, 1> v16 = pto::Stride<256, 256, 256, 256, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 1, 256>, pto::Stride<256, 256, 256, 256, 1>, pto::Layout::ND> v17 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 1, 256>, pto::Stride<256, 256, 256, 256, 1>, pto::Layout::ND>(v3, v15, v16);
#if defined(PTO_CPU_GM_ORIGIN)
  v17.origin_ = v3;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v17, v14);
  PTO_EST(PIPE_MTE3, 10u, 0, v14);
  // vector_c_programs.py:47
  Tile<TileType::Vec, float, 1, 512, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v18 =
      Tile<TileType::Vec, float, 1, 512, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 512);
  TASSIGN(v18, 2048);
  Tile<TileType::Vec, float, 1, 512, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v19 =
      Tile<TileType::Vec, float, 1, 512, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 512);
  TASSIGN(v19, 4096);
  MrgSortExecutedNumList v20{};
  TMRGSORT<decltype(v19), decltype(v18), decltype(v13), decltype(v13), true>(v19, v20, v18, v13, v13);
  pto::Shape<1, 1, 1, 1, 512> v21 = pto::Shape<1, 1, 1, 1, 512>();
  pto::Stride<512, 512, 512, 512, 1> v22 = pto::Stride<512, 512, 512, 512, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 1, 512>, pto::Stride<512, 512, 512, 512, 1>, pto::Layout::ND> v23 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 1, 512>, pto::Stride<512, 512, 512, 512, 1>, pto::Layout::ND>(v4, v21, v22);
#if defined(PTO_CPU_GM_ORIGIN)
  v23.origin_ = v4;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  TSTORE(v23, v19);
  PTO_EST(PIPE_MTE3, 19u, 0, v19);
  pipe_barrier(PIPE_ALL);
#endif
}
