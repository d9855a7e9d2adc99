// Error paths of the CPU tile library, one per argv[1]; run as a subprocess by
// tests/runtime/test_tile_lib_errors.py (fatal errors abort the process).
// This executable defines pto_cpu_check_gm itself, so global accesses are bounds-checked.
#include "pto/pto-inst.hpp"

using namespace pto;

static float g_buf[16 * 32];

extern "C" int pto_cpu_check_gm(const void* p, uint64_t bytes) {
    const char* lo = (const char*)g_buf;
    const char* q = (const char*)p;
    return q >= lo && q + bytes <= lo + sizeof g_buf;
}

using V = Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1>;
using G = GlobalTensor<float, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<-1, -1, -1, 32, 1>, pto::Layout::ND>;

static G gview(float* p, int rows, int cols) {
    return G(p, pto::Shape<1, 1, 1, -1, -1>(1, 1, 1, rows, cols), pto::Stride<-1, -1, -1, 32, 1>(1, 1, 1, 32, 1));
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const char* c = argv[1];
    V t(32, 32);
    if (!strcmp(c, "capacity")) {
        TASSIGN(t, 188416 - 2048);
    } else if (!strcmp(c, "capacity_left")) {
        TileLeft<float, 128, 128> l;
        TASSIGN(l, 128);
    } else if (!strcmp(c, "misaligned")) {
        TASSIGN(t, 64);
    } else if (!strcmp(c, "negative")) {
        TASSIGN(t, -128);
    } else if (!strcmp(c, "oob_load")) {
        TASSIGN(t, 0);
        G g = gview(g_buf, 32, 32);  // the buffer holds only 16 rows
        TLOAD(t, g);
    } else if (!strcmp(c, "oob_store")) {
        TASSIGN(t, 0);
        G g = gview(g_buf + 8 * 32, 16, 32);  // rows 8..23 of a 16-row buffer
        V u(16, 32);
        TASSIGN(u, 0);
        TSTORE(g, u);
    } else if (!strcmp(c, "shape_too_small")) {
        TASSIGN(t, 0);
        G g = gview(g_buf, 8, 32);
        TLOAD(t, g);  // tile valid 32x32, global tensor only 8x32
    } else if (!strcmp(c, "unbound")) {
        V u(32, 32);
        TASSIGN(t, 0);
        TADD(t, t, u);
    } else if (!strcmp(c, "valid_too_big")) {
        V u(33, 32);
        TASSIGN(u, 0);
    } else if (!strcmp(c, "fifo_no_runtime")) {
        TASSIGN(t, 0);
        TPipe<0, Direction::DIR_C2V, 4096, 2> p;
        TPUSH(p, t);
    } else if (!strcmp(c, "ok")) {
        V u(16, 32);
        TASSIGN(u, 0);
        G g = gview(g_buf, 16, 32);
        TLOAD(u, g);
        TADDS(u, u, 1.0f);
        TSTORE(g, u);
        printf("ok %g\n", (double)g_buf[16 * 32 - 1]);
    } else {
        return 2;
    }
    return 0;
}
