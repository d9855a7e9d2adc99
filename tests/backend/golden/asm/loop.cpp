#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void blocked_add(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3, int64_t v4) {
#if defined(__DAV_VEC__)
  int64_t v5 = v4 + 15;
  // blocked.py:9
  int64_t v6 = v5 / 16 - (((v5 % 16) != 0) && (v5 < 0));
  // blocked.py:10
  int64_t v7 = 0;
  for (int64_t v8 = 0; v8 < v6; ++v8) {
    int64_t v9 = v8 * 16;
    int64_t v10 = v4 - v9;
    bool v11 = v10 >= 16;
    // blocked.py:11
    int64_t v12 = {};
    if (v11) {
      v12 = 16;
    } else {
      int64_t v13 = (v10 > 0 ? v10 : 0);
      v12 = v13;
    }
    // blocked.py:12
    Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v14 =
        Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v12, 32);
    TASSIGN(v14, 0);
    pto::Shape<1, 1, 1, -1, 32> v15 = pto::Shape<1, 1, 1, -1, 32>(1, 1, 1, v12, 32);
    pto::Stride<-1, -1, -1, 32, 1> v16 = pto::Stride<-1, -1, -1, 32, 1>(v12 * 32, v12 * 32, v12 * 32, 32, 1);
    GlobalTensor<float, pto::Shape<1, 1, 1, -1, 32>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND> v17 =
        GlobalTensor<float, pto::Shape<1, 1, 1, -1, 32>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND>(v1 + v9 * 32, v15, v16);
#if defined(PTO_CPU_GM_ORIGIN)
    v17.origin_ = v1;
#endif
    TLOAD(v14, v17);
    PTO_EST(PIPE_MTE2, 282u, 1, v14);
    // blocked.py:13
    Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v18 =
        Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v12, 32);
    TASSIGN(v18, 2048);
    pto::Shape<1, 1, 1, -1, 32> v19 = pto::Shape<1, 1, 1, -1, 32>(1, 1, 1, v12, 32);
    pto::Stride<-1, -1, -1, 32, 1> v20 = pto::Stride<-1, -1, -1, 32, 1>(v12 * 32, v12 * 32, v12 * 32, 32, 1);
    GlobalTensor<float, pto::Shape<1, 1, 1, -1, 32>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND> v21 =
        GlobalTensor<float, pto::Shape<1, 1, 1, -1, 32>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND>(v2 + v9 * 32, v19, v20);
#if defined(PTO_CPU_GM_ORIGIN)
    v21.origin_ = v2;
#endif
    TLOAD(v18, v21);
    PTO_EST(PIPE_MTE2, 282u, 1, v18);
    // blocked.py:14
    Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v22 =
        Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v12, 32);
    TASSIGN(v22, 4096);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(v22, v14, v18);
    PTO_EST(PIPE_V, 74u, 1, v22, v14, v18);
    // blocked.py:15
    pto::Shape<1, 1, 1, -1, 32> v23 = pto::Shape<1, 1, 1, -1, 32>(1, 1, 1, v12, 32);
    pto::Stride<-1, -1, -1, 32, 1> v24 = pto::Stride<-1, -1, -1, 32, 1>(v12 * 32, v12 * 32, v12 * 32, 32, 1);
    GlobalTensor<float, pto::Shape<1, 1, 1, -1, 32>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND> v25 =
        GlobalTensor<float, pto::Shape<1, 1, 1, -1, 32>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND>(v3 + v9 * 32, v23, v24);
#if defined(PTO_CPU_GM_ORIGIN)
    v25.origin_ = v3;
#endif
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    TSTORE(v25, v22);
    PTO_EST(PIPE_MTE3, 19u, 0, v22);
    int64_t v26 = v7 + 1;
    v7 = v26;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
  }
  pipe_barrier(PIPE_ALL);
#endif
}
