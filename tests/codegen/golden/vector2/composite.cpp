#include "pto/pto-inst.hpp"
using namespace pto;

#ifndef PTO_EST  // estimated device time (docs/estimate.md)
#define PTO_EST(...)
#endif

__global__ AICORE void composite(__gm__ float* v1, __gm__ float* v2) {
#if defined(__DAV_VEC__)
  // vector2_programs.py:58
  pto::Shape<1, 1, 1, 8, 64> v3 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v4 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v5 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v1, v3, v4);
#if defined(PTO_CPU_GM_ORIGIN)
  v5.origin_ = v1;
#endif
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v6 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v6, 0);
  TLOAD(v6, v5);
  PTO_EST(PIPE_MTE2, 282u, 1, v6);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v7, 2048);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TMULS(v7, v6, 0.318309873f);
  PTO_EST(PIPE_V, 34u, 1, v7, v6);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v8, 2048);
  TADDS(v8, v7, -0.5f);
  PTO_EST(PIPE_V, 33u, 1, v8, v7);
  Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9 =
      Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v9, 2048);
  TCVT(v9, v8, RoundMode::CAST_RINT);
  PTO_EST(PIPE_V, 37u, 1, v9, v8);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v10 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v10, 2048);
  TCVT(v10, v9, RoundMode::CAST_RINT);
  PTO_EST(PIPE_V, 37u, 1, v10, v9);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v11 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v11, 4096);
  TADDS(v11, v10, 0.5f);
  PTO_EST(PIPE_V, 33u, 1, v11, v10);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v12 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v12, 6144);
  TMULS(v12, v11, 3.14160156f);
  PTO_EST(PIPE_V, 34u, 1, v12, v11);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v13 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v13, 0);
  TSUB(v13, v6, v12);
  PTO_EST(PIPE_V, 41u, 1, v13, v6, v12);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v14 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v14, 6144);
  TMULS(v14, v11, -8.907169e-06f);
  PTO_EST(PIPE_V, 34u, 1, v14, v11);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v15 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v15, 0);
  TSUB(v15, v13, v14);
  PTO_EST(PIPE_V, 41u, 1, v15, v13, v14);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v16 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v16, 6144);
  TMULS(v16, v11, -1.74122761e-09f);
  PTO_EST(PIPE_V, 34u, 1, v16, v11);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v17 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v17, 0);
  TSUB(v17, v15, v16);
  PTO_EST(PIPE_V, 41u, 1, v17, v15, v16);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v18 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v18, 4096);
  TMULS(v18, v11, 1.24344979e-13f);
  PTO_EST(PIPE_V, 34u, 1, v18, v11);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v19 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v19, 0);
  TSUB(v19, v17, v18);
  PTO_EST(PIPE_V, 41u, 1, v19, v17, v18);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v20 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v20, 4096);
  TMULS(v20, v10, 0.5f);
  PTO_EST(PIPE_V, 34u, 1, v20, v10);
  Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v21 =
      Tile<TileType::Vec, int32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v21, 4096);
  TCVT(v21, v20, RoundMode::CAST_FLOOR);
  PTO_EST(PIPE_V, 37u, 1, v21, v20);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v22 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v22, 4096);
  TCVT(v22, v21, RoundMode::CAST_RINT);
  PTO_EST(PIPE_V, 37u, 1, v22, v21);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v23 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v23, 4096);
  TMULS(v23, v22, 2.0f);
  PTO_EST(PIPE_V, 34u, 1, v23, v22);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v24 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v24, 2048);
  TSUB(v24, v10, v23);
  PTO_EST(PIPE_V, 41u, 1, v24, v10, v23);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v25 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v25, 2048);
  TMULS(v25, v24, 2.0f);
  PTO_EST(PIPE_V, 34u, 1, v25, v24);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v26 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v26, 2048);
  TADDS(v26, v25, -1.0f);
  PTO_EST(PIPE_V, 33u, 1, v26, v25);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v27 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v27, 4096);
  TMUL(v27, v19, v19);
  PTO_EST(PIPE_V, 42u, 1, v27, v19, v19);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v28 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v28, 6144);
  TMULS(v28, v27, 1.60590438e-10f);
  PTO_EST(PIPE_V, 34u, 1, v28, v27);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v29 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v29, 6144);
  TADDS(v29, v28, -2.50521084e-08f);
  PTO_EST(PIPE_V, 33u, 1, v29, v28);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v30 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v30, 6144);
  TMUL(v30, v29, v27);
  PTO_EST(PIPE_V, 42u, 1, v30, v29, v27);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v31 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v31, 6144);
  TADDS(v31, v30, 2.75573192e-06f);
  PTO_EST(PIPE_V, 33u, 1, v31, v30);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v32 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v32, 6144);
  TMUL(v32, v31, v27);
  PTO_EST(PIPE_V, 42u, 1, v32, v31, v27);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v33 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v33, 6144);
  TADDS(v33, v32, -0.0001984127f);
  PTO_EST(PIPE_V, 33u, 1, v33, v32);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v34 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v34, 6144);
  TMUL(v34, v33, v27);
  PTO_EST(PIPE_V, 42u, 1, v34, v33, v27);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v35 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v35, 6144);
  TADDS(v35, v34, 0.00833333333f);
  PTO_EST(PIPE_V, 33u, 1, v35, v34);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v36 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v36, 6144);
  TMUL(v36, v35, v27);
  PTO_EST(PIPE_V, 42u, 1, v36, v35, v27);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v37 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v37, 6144);
  TADDS(v37, v36, -0.166666667f);
  PTO_EST(PIPE_V, 33u, 1, v37, v36);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v38 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v38, 4096);
  TMUL(v38, v37, v27);
  PTO_EST(PIPE_V, 42u, 1, v38, v37, v27);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v39 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v39, 4096);
  TADDS(v39, v38, 1.0f);
  PTO_EST(PIPE_V, 33u, 1, v39, v38);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v40 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v40, 0);
  TMUL(v40, v39, v19);
  PTO_EST(PIPE_V, 42u, 1, v40, v39, v19);
  Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v41 =
      Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(8, 64);
  TASSIGN(v41, 0);
  TMUL(v41, v40, v26);
  PTO_EST(PIPE_V, 42u, 1, v41, v40, v26);
  pto::Shape<1, 1, 1, 8, 64> v42 = pto::Shape<1, 1, 1, 8, 64>();
  pto::Stride<512, 512, 512, 64, 1> v43 = pto::Stride<512, 512, 512, 64, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND> v44 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 8, 64>, pto::Stride<512, 512, 512, 64, 1>, pto::Layout::ND>(v2, v42, v43);
#if defined(PTO_CPU_GM_ORIGIN)
  v44.origin_ = v2;
#endif
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(v44, v41);
  PTO_EST(PIPE_MTE3, 19u, 0, v41);
  pipe_barrier(PIPE_ALL);
#endif
}
