#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void layouts(__gm__ half* v1, __gm__ half* v2, __gm__ float* v3) {
#if defined(__DAV_CUBE__)
  // vector_c_programs.py:23
  pto::Shape<1, 1, 1, 16, 32> v4 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v5 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<half, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v6 =
      GlobalTensor<half, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v1, v4, v5);
#if defined(PTO_CPU_GM_ORIGIN)
  v6.origin_ = v1;
#endif
  Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v7, 0);
  TLOAD(v7, v6);
  PTO_EST(PIPE_MTE2, 280u, 1, v7);
  Tile<TileType::Left, half, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Left, half, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v8, 0);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(v8, v7);
  PTO_EST(PIPE_MTE1, 5u, 1, v8, v7);
  // vector_c_programs.py:24
  pto::Shape<1, 1, 1, 16, 32> v9 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v10 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<half, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v11 =
      GlobalTensor<half, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v2, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v2;
#endif
  Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v12, 0);
  set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
  wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
  TLOAD(v12, v11);
  PTO_EST(PIPE_MTE2, 280u, 1, v12);
  Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512, PadValue::Null, CompactMode::Null> v13;
  TRESHAPE(v13, v12);
  // vector_c_programs.py:25
  Tile<TileType::Right, half, 32, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512, PadValue::Null, CompactMode::Null> v14 =
      Tile<TileType::Right, half, 32, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512, PadValue::Null, CompactMode::Null>(32, 16);
  TASSIGN(v14, 0);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
  TMOV(v14, v13);
  PTO_EST(PIPE_MTE1, 9u, 1, v14, v13);
  Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null, CompactMode::Null> v15 =
      Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null, CompactMode::Null>(16, 16);
  TASSIGN(v15, 0);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID3);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID3);
  TMATMUL(v15, v8, v14);
  PTO_EST(PIPE_M, 8u, 1, v15, v8, v14);
  pto::Shape<1, 1, 1, 16, 16> v16 = pto::Shape<1, 1, 1, 16, 16>();
  pto::Stride<256, 256, 256, 16, 1> v17 = pto::Stride<256, 256, 256, 16, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND> v18 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>(v3, v16, v17);
#if defined(PTO_CPU_GM_ORIGIN)
  v18.origin_ = v3;
#endif
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID4);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID4);
  TSTORE(v18, v15);
  PTO_EST(PIPE_FIX, 26u, 0, v15);
  pipe_barrier(PIPE_ALL);
#endif
}
