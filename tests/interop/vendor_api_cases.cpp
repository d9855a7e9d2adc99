// The parts of the CPU tile library the vendor assembler's C++ needs (tests/interop/test_vendor_api.py):
// mask setup, get_subblockid, TASSIGN from a host address, a TPOP that binds its tile to the consumer
// slot, and which vector lanes an unsplit pipe reaches. One executable; argv[1] names the case.
//
// It defines the simulator hooks itself (a single-threaded stand-in runtime): the calling core is
// `g_core`, whose lane a case sets; FIFOs are in-process queues; lane_joins answers from `g_joins`.
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

#include "pto/pto-inst.hpp"

using namespace pto;

static PtoCpuCore g_core;
static uint8_t* g_mem = nullptr;
static int g_joins[2] = {1, 1};      // lane_joins' answer per lane (-1: the hook reports an error)
static int g_join_asks = 0, g_attached = 0;
static std::map<std::tuple<int, int, int>, std::deque<std::vector<uint8_t>>> g_fifos;

extern "C" PtoCpuCore* pto_cpu_current_core(void) { return &g_core; }
extern "C" void pto_cpu_fatal(const char* instr, const char* message) {
    printf("fatal %s: %s\n", instr, message);
    exit(0);
}
extern "C" int pto_cpu_check_gm(const void*, uint64_t) { return 1; }
extern "C" int pto_cpu_fifo_push(PtoCpuCore*, int32_t pipe, int32_t dir, int32_t lane, const void* src,
                                 uint64_t bytes, uint32_t, uint32_t) {
    const uint8_t* s = (const uint8_t*)src;
    g_fifos[std::make_tuple(pipe, dir, lane)].emplace_back(s, s + bytes);
    return PTO_CPU_FIFO_OK;
}
extern "C" int pto_cpu_fifo_pop(PtoCpuCore*, int32_t pipe, int32_t dir, int32_t lane, void* dst, uint64_t bytes,
                                uint32_t, uint32_t) {
    auto& q = g_fifos[std::make_tuple(pipe, dir, lane)];
    if (q.empty()) return PTO_CPU_FIFO_TIMEOUT;
    if (q.front().size() != bytes) return PTO_CPU_FIFO_BAD_SIZE;
    memcpy(dst, q.front().data(), bytes);
    q.pop_front();
    return PTO_CPU_FIFO_OK;
}
extern "C" int pto_cpu_fifo_free(PtoCpuCore*, int32_t, int32_t, int32_t) { return PTO_CPU_FIFO_OK; }
extern "C" void pto_cpu_fifo_attach(PtoCpuCore* c, int32_t) {
    if (c->lane >= 0) ++g_attached;
}
extern "C" int pto_cpu_fifo_lane_joins(PtoCpuCore*, int32_t, int32_t lane, int32_t* joins) {
    ++g_join_asks;
    if (g_joins[lane] < 0) return PTO_CPU_FIFO_TIMEOUT;
    *joins = g_joins[lane];
    return PTO_CPU_FIFO_OK;
}

static void setup(int lane) {
    static const uint64_t cap[6] = {188416, 524288, 65536, 65536, 131072, 1024};
    if (!g_mem) {
        uint64_t total = 0;
        for (uint64_t c : cap) total += c;
        g_mem = (uint8_t*)aligned_alloc(4096, (size_t)(total + 4095) / 4096 * 4096);
        memset(g_mem, 0, (size_t)total);
        uint8_t* p = g_mem;
        for (int s = 0; s < 6; ++s) {
            g_core.space_base[s] = p;
            g_core.space_size[s] = cap[s];
            p += cap[s];
        }
    }
    g_core.lane = lane;
    g_core.cluster_id = 0;
    g_core.runtime = nullptr;
}

using VecT = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using MatT = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null,
                  CompactMode::Null>;
using AccT = Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null,
                  CompactMode::Null>;
using Pipe = TPipe<0, Direction::DIR_C2V, 1024, 8, 2, true>;

static long vec_offset(const VecT& t) { return (long)((uint8_t*)t.data() - g_core.space_base[0]); }

// cube pushes n tiles (value base + k) of 16x16
static void cube_push(Pipe& p, int n, float base) {
    setup(-1);
    AccT acc(16, 16);
    TASSIGN(acc, 0);
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < 16 * 16; ++i) acc.data()[i] = base + (float)k;
        TPUSH<Pipe, AccT, TileSplitAxis::TILE_NO_SPLIT>(p, acc);
    }
}

int main(int argc, char** argv) {
    const char* c = argc > 1 ? argv[1] : "";
    setup(0);
    if (!strcmp(c, "masks")) {
        set_mask_norm();
        set_vector_mask(-1, -1);
        printf("ok\n");
    } else if (!strcmp(c, "subblockid")) {
        setup(1);
        const uint32_t l1 = get_subblockid();
        setup(0);
        const uint32_t l0 = get_subblockid();
        setup(-1);
        printf("%u %u %u\n", l0, l1, get_subblockid());
    } else if (!strcmp(c, "tassign_address")) {
        VecT a(16, 16), b(16, 16), d(16, 16);
        TASSIGN(a, 1024);
        __ubuf__ float* pa = a.data();
        TASSIGN(b, reinterpret_cast<uint64_t>(pa));   // the vendor's second tile of an allocation
        TASSIGN(d, pa);                               // a pointer works the same
        a.data()[5] = 7.0f;
        printf("%ld %ld %g\n", vec_offset(b), vec_offset(d), (double)b.data()[5]);
    } else if (!strcmp(c, "tassign_other_space")) {
        MatT m(16, 16);
        TASSIGN(m, 0);
        VecT v(16, 16);
        TASSIGN(v, reinterpret_cast<uint64_t>(m.data()));
    } else if (!strcmp(c, "tassign_foreign")) {
        static float outside[64];
        VecT v(16, 16);
        TASSIGN(v, outside);
    } else if (!strcmp(c, "tpop_binds")) {
        // three pops with an unbound tile each: slots 0, 1, 0 of the consumer buffer at 4096
        setup(0);
        Pipe vp(nullptr, 4096, 0);
        Pipe cp(nullptr, 4096, 0);
        g_joins[1] = 0;
        cube_push(cp, 3, 10.0f);
        setup(0);
        for (int k = 0; k < 3; ++k) {
            VecT t(16, 16);
            TPOP<Pipe, VecT, TileSplitAxis::TILE_NO_SPLIT>(vp, t);
            printf("%ld %g\n", vec_offset(t), (double)t.data()[17]);
            TFREE<Pipe, TileSplitAxis::TILE_NO_SPLIT>(vp);
        }
    } else if (!strcmp(c, "tpop_unbound_without_buffers")) {
        Pipe cp;
        g_joins[1] = 0;
        cube_push(cp, 1, 1.0f);
        setup(0);
        Pipe vp;
        VecT t(16, 16);
        TPOP<Pipe, VecT, TileSplitAxis::TILE_NO_SPLIT>(vp, t);
    } else if (!strcmp(c, "attach")) {
        setup(-1);
        Pipe cube_side;
        setup(1);
        Pipe lane_side(nullptr, 0, 0);
        printf("%d\n", g_attached);
    } else if (!strcmp(c, "lanes")) {
        // argv[2]: which lanes take part ("01", "0", "1"); the cube pushes, then pops V2C data
        g_joins[0] = strchr(argv[2], '0') != nullptr;
        g_joins[1] = strchr(argv[2], '1') != nullptr;
        Pipe cp(nullptr, 0, 0);
        cube_push(cp, 1, 5.0f);
        printf("c2v lane0 %zu lane1 %zu asks %d\n", g_fifos[std::make_tuple(0, 1, 0)].size(),
               g_fifos[std::make_tuple(0, 1, 1)].size(), g_join_asks);
        using V2C = TPipe<0, Direction::DIR_V2C, 1024, 8, 2, true>;
        setup(0);
        VecT v(16, 16);
        TASSIGN(v, 0);
        V2C vp0(nullptr, 0, 0);
        for (int i = 0; i < 256; ++i) v.data()[i] = 100.0f;
        if (g_joins[0]) TPUSH<V2C, VecT, TileSplitAxis::TILE_NO_SPLIT>(vp0, v);
        setup(1);
        V2C vp1(nullptr, 0, 0);
        for (int i = 0; i < 256; ++i) v.data()[i] = 200.0f;
        if (g_joins[1]) TPUSH<V2C, VecT, TileSplitAxis::TILE_NO_SPLIT>(vp1, v);
        setup(-1);
        using MatP = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512,
                          PadValue::Null, CompactMode::Null>;
        V2C cube(nullptr, 0, 8192);
        MatP m(16, 16);
        TPOP<V2C, MatP, TileSplitAxis::TILE_NO_SPLIT>(cube, m);
        printf("v2c kept %g at mat offset %ld\n", (double)m.data()[0], (long)((uint8_t*)m.data() - g_core.space_base[1]));
    } else if (!strcmp(c, "join_error")) {
        g_joins[1] = -1;
        Pipe cp(nullptr, 0, 0);
        cube_push(cp, 1, 1.0f);
    } else {
        printf("unknown case %s\n", c);
        return 2;
    }
    return 0;
}
