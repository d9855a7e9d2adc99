// A small kernel in the shape of assembler output (artifacts.md), used for the
// -Wall -Werror check and the cold-compile-time measurement.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void vadd(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
#if defined(__DAV_VEC__)
  int64_t v7 = 32;
  int64_t v8 = 4096;
  int64_t v9 = 0;
  int64_t v13 = 0;
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v10 =
      Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v7, v7);
  TASSIGN(v10, v9);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v11 =
      Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v7, v7);
  TASSIGN(v11, v8);
  pto::Shape<1, 1, 1, 32, 32> v14 = pto::Shape<1, 1, 1, 32, 32>();
  pto::Stride<1024, 1024, 1024, 32, 1> v15 = pto::Stride<1024, 1024, 1024, 32, 1>();
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v16 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v1 + v13, v14, v15);
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v17 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v2 + v13, v14, v15);
  GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND> v21 =
      GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>(v3 + v13, v14, v15);
  TLOAD(v10, v16);
  TLOAD(v11, v17);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(v11, v10, v11);
  TEXP(v11, v11);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(v21, v11);
  pipe_barrier(PIPE_ALL);
#else
  (void)v1; (void)v2; (void)v3;
#endif
}

extern "C" void kernel_entry(__gm__ int64_t* args) {
  vadd((float*)args[0], (float*)args[1], (float*)args[2]);
}
