// A kernel built like a simulator kernel (header only, hooks resolved at load time against
// fake_runtime.so). Entry points take an int64 args array, like kernel_entry.
#include "pto/pto-inst.hpp"

using namespace pto;

namespace {
constexpr int R = 16, C = 32;
using V = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, -1, -1>;
using G = GlobalTensor<float, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<-1, -1, -1, -1, 1>, pto::Layout::ND>;
G gview(float* p, int rows, int cols, int ld) {
    return G(p, pto::Shape<1, 1, 1, -1, -1>(1, 1, 1, rows, cols), pto::Stride<-1, -1, -1, -1, 1>(1, 1, 1, ld, 1));
}
using PipeC2V = TPipe<3, Direction::DIR_C2V, R * C * 4, 2>;
using PipeV2C = TPipe<4, Direction::DIR_V2C, R * C * 4, 2>;
}  // namespace

extern "C" {
// args: [gm_in, out_addr]: TLOAD into a Vec tile at offset 256; *out = tile.data(); TADDS 1; TSTORE back.
void k_tile_addr(const int64_t* args) {
    float* gm = (float*)args[0];
    V t(R, C);
    TASSIGN(t, 256);
    G g = gview(gm, R, C, C);
    TLOAD(t, g);
    *(void**)args[1] = (void*)t.data();
    TADDS(t, t, 1.0f);
    TSTORE(g, t);
}
// args: [offset]
void k_capacity(const int64_t* args) {
    V t(R, C);
    TASSIGN(t, args[0]);
}
// args: [gm, rows]
void k_load_rows(const int64_t* args) {
    V t((size_t)args[1], C);
    TASSIGN(t, 0);
    G g = gview((float*)args[0], (int)args[1], C, C);
    TLOAD(t, g);
}
// Cube: acc = a(16x16) @ b(16x32), pushed C2V. args: [a, b, split]
void k_cube_push(const int64_t* args) {
    Tile<TileType::Mat, float, R, R, BLayout::ColMajor, -1, -1, SLayout::RowMajor> ma(R, R);
    Tile<TileType::Mat, float, R, C, BLayout::ColMajor, -1, -1, SLayout::RowMajor> mb(R, C);
    TileLeft<float, R, R> l;
    TileRight<float, R, C> r;
    TileAcc<float, R, C> acc;
    TASSIGN(ma, 0);
    TASSIGN(mb, 4096);
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(acc, 0);
    G ga = gview((float*)args[0], R, R, R), gb = gview((float*)args[1], R, C, C);
    TLOAD(ma, ga);
    TLOAD(mb, gb);
    TMOV(l, ma);
    TMOV(r, mb);
    TMATMUL(acc, l, r);
    PipeC2V p;
    if (args[2] == 1) TPUSH<PipeC2V, TileAcc<float, R, C>, TileSplitAxis::TILE_UP_DOWN>(p, acc);
    else if (args[2] == 2) TPUSH<PipeC2V, TileAcc<float, R, C>, TileSplitAxis::TILE_LEFT_RIGHT>(p, acc);
    else TPUSH(p, acc);
}
// Vector: pop a rows x cols tile, store it. args: [out, rows, cols, ld]
void k_vec_pop(const int64_t* args) {
    V t((size_t)args[1], (size_t)args[2]);
    TASSIGN(t, 0);
    PipeC2V p;
    TPOP(p, t);
    G g = gview((float*)args[0], (int)args[1], (int)args[2], (int)args[3]);
    TSTORE(g, t);
    TFREE(p);
}
// Vector: load and push a 16x32 tile V2C. args: [in]
void k_vec_push(const int64_t* args) {
    V t(R, C);
    TASSIGN(t, 0);
    G g = gview((float*)args[0], R, C, C);
    TLOAD(t, g);
    PipeV2C p;
    TPUSH(p, t);
}
// Cube: pop into a Mat tile and store it. args: [out]
void k_cube_pop(const int64_t* args) {
    Tile<TileType::Mat, float, R, C, BLayout::ColMajor, -1, -1, SLayout::RowMajor> m(R, C);
    TASSIGN(m, 0);
    PipeV2C p;
    TPOP(p, m);
    G g = gview((float*)args[0], R, C, C);
    TSTORE(g, m);
    TFREE(p);
}
}
