#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void k(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
#if defined(__DAV_VEC__)
  // tensor_form_programs.py:77
  pto::Shape<1, 1, 1, 16, 32> v4 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v5 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v6 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v1, v4, v5);
#if defined(PTO_CPU_GM_ORIGIN)
  v6.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v7, 0);
  TLOAD(v7, v6);
  PTO_EST(PIPE_MTE2, 282u, 1, v7);
  pto::Shape<1, 1, 1, 16, 32> v8 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v9 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v10 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v2, v8, v9);
#if defined(PTO_CPU_GM_ORIGIN)
  v10.origin_ = v2;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v11 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v11, 2048);
  TLOAD(v11, v10);
  PTO_EST(PIPE_MTE2, 282u, 1, v11);
  Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 4);
  TASSIGN(v12, 4096);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TCMP(v12, v7, v11, CmpMode::LT);
  PTO_EST(PIPE_V, 70u, 1, v12, v7, v11);
  pto::Shape<1, 1, 1, 16, 32> v13 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v14 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v15 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v1, v13, v14);
#if defined(PTO_CPU_GM_ORIGIN)
  v15.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v16 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v16, 0);
  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
  TLOAD(v16, v15);
  PTO_EST(PIPE_MTE2, 282u, 1, v16);
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v17 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v17, 2048);
  TEXPANDS(v17, 1.0f);
  PTO_EST(PIPE_V, 32u, 1, v17);
  Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v18 =
      Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 32);
  TASSIGN(v18, 0);
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v19 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v19, 4608);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
  TSELS(v19, v12, v17, v18, 0.0f);
  pto::Shape<1, 1, 1, 16, 32> v20 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v21 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v22 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v1, v20, v21);
#if defined(PTO_CPU_GM_ORIGIN)
  v22.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v23 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v23, 0);
  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);
  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);
  TLOAD(v23, v22);
  PTO_EST(PIPE_MTE2, 282u, 1, v23);
  pto::Shape<1, 1, 1, 16, 32> v24 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v25 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v26 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v2, v24, v25);
#if defined(PTO_CPU_GM_ORIGIN)
  v26.origin_ = v2;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v27 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v27, 2048);
  TLOAD(v27, v26);
  PTO_EST(PIPE_MTE2, 282u, 1, v27);
  Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v28 =
      Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 4);
  TASSIGN(v28, 4096);
  TCMPS(v28, v19, 0.0f, CmpMode::NE);
  PTO_EST(PIPE_V, 70u, 1, v28, v19);
  Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v29 =
      Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(1, 32);
  TASSIGN(v29, 4608);
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v30 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v30, 4736);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID4);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID4);
  TSEL(v30, v28, v23, v27, v29);
  PTO_EST(PIPE_V, 61u, 1, v30, v28, v23, v27, v29);
  // tensor_form_programs.py:78
  pto::Shape<1, 1, 1, 16, 32> v31 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v32 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v33 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v2, v31, v32);
#if defined(PTO_CPU_GM_ORIGIN)
  v33.origin_ = v2;
#endif
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v34 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v34, 0);
  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID5);
  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID5);
  TLOAD(v34, v33);
  PTO_EST(PIPE_MTE2, 282u, 1, v34);
  Tile<TileType::Vec, uint8_t, 17, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v35 =
      Tile<TileType::Vec, uint8_t, 17, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(17, 32);
  TASSIGN(v35, 2048);
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v36 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v36, 2688);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID6);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID6);
  TPRELU(v36, v30, v34, v35);
  PTO_EST(PIPE_V, 206u, 1, v36, v30, v34, v35);
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v37 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v37, 0);
  Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v38 =
      Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(16, 32);
  TASSIGN(v38, 4736);
  TRSQRT(v38, v36, v37);
  PTO_EST(PIPE_V, 32u, 1, v38, v36, v37);
  pto::Shape<1, 1, 1, 16, 32> v39 = pto::Shape<1, 1, 1, 16, 32>();
  pto::Stride<512, 512, 512, 32, 1> v40 = pto::Stride<512, 512, 512, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND> v41 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 16, 32>, pto::Stride<512, 512, 512, 32, 1>, pto::Layout::ND>(v3, v39, v40);
#if defined(PTO_CPU_GM_ORIGIN)
  v41.origin_ = v3;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID7);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID7);
  TSTORE(v41, v38);
  PTO_EST(PIPE_MTE3, 19u, 0, v38);
  pipe_barrier(PIPE_ALL);
#endif
}
