#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void matmul(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
#if defined(__DAV_CUBE__)
  // mm.py:6
  Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v4 =
      Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v4, 0);
  pto::Shape<1, 1, 1, 32, 32> v5 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v6 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v7 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v1, v5, v6);
#if defined(PTO_CPU_GM_ORIGIN)
  v7.origin_ = v1;
#endif
  TLOAD(v4, v7);
  PTO_EST(PIPE_MTE2, 319u, 1, v4);
  // mm.py:7
  Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v8, 4096);
  pto::Shape<1, 1, 1, 32, 32> v9 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v10 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v11 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v2, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v2;
#endif
  TLOAD(v8, v11);
  PTO_EST(PIPE_MTE2, 319u, 1, v8);
  // mm.py:8
  Tile<TileType::Left, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Left, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v12, 0);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(v12, v4);
  PTO_EST(PIPE_MTE1, 17u, 1, v12, v4);
  // mm.py:9
  Tile<TileType::Right, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512, PadValue::Null, CompactMode::Null> v13 =
      Tile<TileType::Right, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v13, 0);
  TMOV(v13, v8);
  PTO_EST(PIPE_MTE1, 33u, 1, v13, v8);
  // mm.py:10
  Tile<TileType::Acc, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null, CompactMode::Null> v14 =
      Tile<TileType::Acc, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null, CompactMode::Null>(32, 32);
  TASSIGN(v14, 0);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);
  TMATMUL(v14, v12, v13);
  PTO_EST(PIPE_M, 38u, 1, v14, v12, v13);
  // mm.py:11
  pto::Shape<1, 1, 1, 32, 32> v15 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v16 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v17 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v3, v15, v16);
#if defined(PTO_CPU_GM_ORIGIN)
  v17.origin_ = v3;
#endif
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID2);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID2);
  TSTORE(v17, v14);
  PTO_EST(PIPE_FIX, 101u, 0, v14);
  pipe_barrier(PIPE_ALL);
#endif
}
