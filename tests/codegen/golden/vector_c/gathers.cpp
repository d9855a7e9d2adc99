#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void gathers(__gm__ float* v1, __gm__ int32_t* v2, __gm__ float* v3, __gm__ int32_t* v4, __gm__ float* v5, __gm__ float* v6, __gm__ float* v7, __gm__ float* v8) {
#if defined(__DAV_VEC__)
  // vector_c_programs.py:33
  pto::Shape<1, 1, 1, 8, 64> v9 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v10 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v11 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v1, v9, v10);
#if defined(PTO_CPU_GM_ORIGIN)
  v11.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v12, 0);
  TLOAD(v12, v11);
  PTO_EST(PIPE_MTE2, 282u, 1, v12);
  // vector_c_programs.py:34
  pto::Shape<1, 1, 1, 8, 32> v13 = pto::Shape<1, 1, 1, 8, 32>();
  pto::Stride<256, 256, 256, 32, 1> v14 = pto::Stride<256, 256, 256, 32, 1>();
  GlobalTensor<int32_t, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND> v15 =
      GlobalTensor<int32_t, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND>(v2, v13, v14);
#if defined(PTO_CPU_GM_ORIGIN)
  v15.origin_ = v2;
#endif
  Tile<TileType::Vec, int32_t, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v16 =
      Tile<TileType::Vec, int32_t, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v16, 2048);
  TLOAD(v16, v15);
  PTO_EST(PIPE_MTE2, 274u, 1, v16);
  // vector_c_programs.py:35
  Tile<TileType::Vec, int32_t, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v17 =
      Tile<TileType::Vec, int32_t, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v17, 3072);
  Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v18 =
      Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v18, 4096);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TGATHER(v18, v12, v16, v17);
  pto::Shape<1, 1, 1, 8, 32> v19 = pto::Shape<1, 1, 1, 8, 32>();
  pto::Stride<256, 256, 256, 32, 1> v20 = pto::Stride<256, 256, 256, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND> v21 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND>(v5, v19, v20);
#if defined(PTO_CPU_GM_ORIGIN)
  v21.origin_ = v5;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v21, v18);
  PTO_EST(PIPE_MTE3, 10u, 0, v18);
  // vector_c_programs.py:36
  Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v22 =
      Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v22, 3072);
  TGATHER<decltype(v22), decltype(v12), MaskPattern::P0101>(v22, v12);
  pto::Shape<1, 1, 1, 8, 32> v23 = pto::Shape<1, 1, 1, 8, 32>();
  pto::Stride<256, 256, 256, 32, 1> v24 = pto::Stride<256, 256, 256, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND> v25 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND>(v6, v23, v24);
#if defined(PTO_CPU_GM_ORIGIN)
  v25.origin_ = v6;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  TSTORE(v25, v22);
  PTO_EST(PIPE_MTE3, 10u, 0, v22);
  // vector_c_programs.py:37
  pto::Shape<1, 1, 1, 1, 8> v26 = pto::Shape<1, 1, 1, 1, 8>();
  pto::Stride<8, 8, 8, 8, 1> v27 = pto::Stride<8, 8, 8, 8, 1>();
  GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 8>, pto::Stride<8, 8, 8, 8, 1>, pto::Layout::ND> v28 =
      GlobalTensor<int32_t, pto::Shape<1, 1, 1, 1, 8>, pto::Stride<8, 8, 8, 8, 1>, pto::Layout::ND>(v4, v26, v27);
#if defined(PTO_CPU_GM_ORIGIN)
  v28.origin_ = v4;
#endif
  Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v29 =
      Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 8);
  TASSIGN(v29, 0);
  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);
  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);
  TLOAD(v29, v28);
  PTO_EST(PIPE_MTE2, 267u, 1, v29);
  pto::Shape<1, 1, 1, 64, 32> v30 = pto::Shape<1, 1, 1, 64, 32>();
  pto::Stride<2048, 2048, 2048, 32, 1> v31 = pto::Stride<2048, 2048, 2048, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 64, 32>, pto::Stride<2048, 2048, 2048, 32, 1>, pto::Layout::ND> v32 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 64, 32>, pto::Stride<2048, 2048, 2048, 32, 1>, pto::Layout::ND>(v3, v30, v31);
#if defined(PTO_CPU_GM_ORIGIN)
  v32.origin_ = v3;
#endif
  Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v33 =
      Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v33, 128);
  MGATHER<Coalesce::Row, GatherOOB::Wrap>(v33, v32, v29);
  pto::Shape<1, 1, 1, 8, 32> v34 = pto::Shape<1, 1, 1, 8, 32>();
  pto::Stride<256, 256, 256, 32, 1> v35 = pto::Stride<256, 256, 256, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND> v36 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND>(v7, v34, v35);
#if defined(PTO_CPU_GM_ORIGIN)
  v36.origin_ = v7;
#endif
  set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID4);
  wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID4);
  TSTORE(v36, v33);
  PTO_EST(PIPE_MTE3, 10u, 0, v33);
  // vector_c_programs.py:38
  pto::Shape<1, 1, 1, 8, 64> v37 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v38 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v39 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v1, v37, v38);
#if defined(PTO_CPU_GM_ORIGIN)
  v39.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v40 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v40, 0);
  set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID5);
  wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID5);
  TLOAD(v40, v39);
  PTO_EST(PIPE_MTE2, 282u, 1, v40);
  pto::Shape<1, 1, 1, 8, 32> v41 = pto::Shape<1, 1, 1, 8, 32>();
  pto::Stride<256, 256, 256, 32, 1> v42 = pto::Stride<256, 256, 256, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND> v43 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND>(v5, v41, v42);
#if defined(PTO_CPU_GM_ORIGIN)
  v43.origin_ = v5;
#endif
  Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v44 =
      Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v44, 3072);
  TLOAD(v44, v43);
  PTO_EST(PIPE_MTE2, 274u, 1, v44);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID6);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID6);
  TSCATTER(v40, v44, v16);
  // vector_c_programs.py:39
  pto::Shape<1, 1, 1, 8, 32> v45 = pto::Shape<1, 1, 1, 8, 32>();
  pto::Stride<256, 256, 256, 32, 1> v46 = pto::Stride<256, 256, 256, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND> v47 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 32>, pto::Stride<256, 256, 256, 32, 1>, pto::Layout::ND>(v6, v45, v46);
#if defined(PTO_CPU_GM_ORIGIN)
  v47.origin_ = v6;
#endif
  Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v48 =
      Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 32);
  TASSIGN(v48, 0);
  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID7);
  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID7);
  TLOAD(v48, v47);
  PTO_EST(PIPE_MTE2, 274u, 1, v48);
  pto::Shape<1, 1, 1, 64, 32> v49 = pto::Shape<1, 1, 1, 64, 32>();
  pto::Stride<2048, 2048, 2048, 32, 1> v50 = pto::Stride<2048, 2048, 2048, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 64, 32>, pto::Stride<2048, 2048, 2048, 32, 1>, pto::Layout::ND> v51 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 64, 32>, pto::Stride<2048, 2048, 2048, 32, 1>, pto::Layout::ND>(v8, v49, v50);
#if defined(PTO_CPU_GM_ORIGIN)
  v51.origin_ = v8;
#endif
  set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
  MSCATTER(v51, v48, v16);
  pipe_barrier(PIPE_ALL);
#endif
}
