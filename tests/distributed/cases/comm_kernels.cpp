// Hand-written kernels of the distributed tests and benchmarks: C++ against ptokit's tile library
// (pto::comm instructions for windows and signals). One kernel per build, selected with
// -DK_<NAME> (the tree's kernel source defines it and includes this file). Tensor arguments in the
// order the chip's params list them; then the user scalars; then one CommContext address per
// window param (the hidden comm_ctx scalars).
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "comm_context.h"
#include "intrinsic.h"
#include "pto/pto-inst.hpp"
#include "tensor.h"

using namespace pto;

static inline ChipTensor* T(int64_t* args, int i) { return reinterpret_cast<ChipTensor*>(args[i]); }
static inline int64_t S(int64_t* args, int i) { return (int64_t)args[i]; }
static inline CommContext* CTX(int64_t* args, int i) { return reinterpret_cast<CommContext*>((uintptr_t)args[i]); }
static inline int64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

template <typename E, int N>
using Row = GlobalTensor<E, Shape<1, 1, 1, 1, N>, Stride<1, 1, 1, N, 1>>;
template <typename E, int N>
using RowTile = Tile<TileType::Vec, E, 1, N>;
using DynRow = GlobalTensor<float, Shape<1, 1, 1, 1, -1>, Stride<1, 1, 1, -1, 1>>;

// The barrier of docs/distributed.md (reusable signals): in round g every rank adds 1 to its own
// cell in every peer's signal, then waits until every peer's cell in its own signal is >= g;
// reset() adds -g to each non-self cell of its own signal, which reads zero again.
struct Barrier {
    CommContext* ctx;
    int32_t* sig;
    int32_t g = 0;
    void round() {
        ++g;
        const int r = ctx->rankId, w = ctx->rankNum;
        for (int p = 0; p < w; ++p) {
            if (p == r) continue;
            comm::Signal s(comm_peer_ptr(ctx, sig + r, p));
            comm::TNOTIFY(s, 1, comm::NotifyOp::AtomicAdd);
        }
        for (int p = 0; p < w; ++p) {
            if (p == r) continue;
            comm::Signal s(sig + p);
            comm::TWAIT(s, g, comm::WaitCmp::GE);
        }
    }
    void reset() {
        const int r = ctx->rankId, w = ctx->rankNum;
        for (int p = 0; p < w; ++p) {
            if (p == r) continue;
            comm::Signal s(sig + p);
            comm::TNOTIFY(s, -g, comm::NotifyOp::AtomicAdd);
        }
    }
};

extern "C" void kernel_entry(int64_t* args) {
#if defined(K_PUT)  // (x, y, src W, dst W, sig W; atomic; ctx x3)
    CommContext* ctx = CTX(args, 6);
    const int r = ctx->rankId, w = ctx->rankNum;
    float* src = T(args, 2)->data<float>();
    float* dst = T(args, 3)->data<float>();
    int32_t* sig = T(args, 4)->data<int32_t>();
    RowTile<float, 64> t;
    TASSIGN(t, 0);
    Row<float, 64> gx(T(args, 0)->data<float>()), gy(T(args, 1)->data<float>()), gsrc(src), gdst(dst);
    TLOAD(t, gx);
    TSTORE(gsrc, t);
    if (S(args, 5) == 0) {          // put to (r+1)%W, notify it, wait for the put from (r-1)%W
        const int peer = (r + 1) % w;
        Row<float, 64> gpeer(comm_peer_ptr(ctx, dst, peer));
        comm::TPUT(gpeer, gsrc, t);
        comm::Signal sp(comm_peer_ptr(ctx, sig, peer));
        comm::TNOTIFY(sp, 1, comm::NotifyOp::AtomicAdd);
        comm::Signal sl(sig);
        comm::TWAIT(sl, 1, comm::WaitCmp::GE);
        TLOAD(t, gdst);
    } else {                        // every rank adds its x into rank 0's dst
        Row<float, 64> g0(comm_peer_ptr(ctx, dst, 0));
        comm::TPUT<AtomicType::AtomicAdd>(g0, gsrc, t);
        comm::Signal s0(comm_peer_ptr(ctx, sig, 0));
        comm::TNOTIFY(s0, 1, comm::NotifyOp::AtomicAdd);
        if (r == 0) {
            comm::Signal sl(sig);
            comm::TWAIT(sl, w, comm::WaitCmp::GE);
            TLOAD(t, gdst);
        }
    }
    TSTORE(gy, t);
#elif defined(K_GET)  // (x, y, src W, sig W; ctx x2): notify (r-1)%W, wait, get from (r+1)%W
    CommContext* ctx = CTX(args, 4);
    const int r = ctx->rankId, w = ctx->rankNum;
    float* src = T(args, 2)->data<float>();
    int32_t* sig = T(args, 3)->data<int32_t>();
    RowTile<float, 64> t;
    TASSIGN(t, 0);
    Row<float, 64> gx(T(args, 0)->data<float>()), gy(T(args, 1)->data<float>()), gsrc(src);
    TLOAD(t, gx);
    TSTORE(gsrc, t);
    comm::Signal sp(comm_peer_ptr(ctx, sig, (r - 1 + w) % w));
    comm::TNOTIFY(sp, 1, comm::NotifyOp::AtomicAdd);
    comm::Signal sl(sig);
    comm::TWAIT(sl, 1, comm::WaitCmp::GE);
    Row<float, 64> gnext(comm_peer_ptr(ctx, src, (r + 1) % w));
    comm::TGET(gy, gnext, t);
#elif defined(K_NOTIFY)  // (y [1,8] i32, sig W [8]; mode; ctx): 0 AtomicAdd to row r of every peer, 1 Set
    CommContext* ctx = CTX(args, 3);
    const int r = ctx->rankId, w = ctx->rankNum;
    int32_t* sig = T(args, 1)->data<int32_t>();
    if (S(args, 2) == 0) {
        for (int p = 0; p < w; ++p) {
            if (p == r) continue;
            comm::Signal s(comm_peer_ptr(ctx, sig + r, p));
            comm::TNOTIFY<comm::NotifyOp::AtomicAdd>(s, 1);
        }
        for (int p = 0; p < w; ++p) {
            if (p == r) continue;
            comm::Signal s(sig + p);
            comm::TWAIT<comm::WaitCmp::GE>(s, 1);
        }
    } else {
        comm::Signal s(comm_peer_ptr(ctx, sig, (r + 1) % w));
        comm::TNOTIFY(s, r + 1, comm::NotifyOp::Set);
        comm::Signal l(sig);
        comm::TWAIT(l, 1, comm::WaitCmp::GE);
    }
    RowTile<int32_t, 8> it;
    TASSIGN(it, 0);
    Row<int32_t, 8> gsig(sig), gy(T(args, 0)->data<int32_t>());
    TLOAD(it, gsig);
    TSTORE(gy, it);
#elif defined(K_WAIT)  // (y [1,8] i32, sig W [8]; stuck_rank; ctx): sum into rank 0 (Eq), broadcast by Set (Ge)
    CommContext* ctx = CTX(args, 3);
    const int r = ctx->rankId, w = ctx->rankNum;
    int32_t* sig = T(args, 1)->data<int32_t>();
    comm::Signal s0(comm_peer_ptr(ctx, sig, 0));
    comm::TNOTIFY(s0, r + 1, comm::NotifyOp::AtomicAdd);
    if (S(args, 2) == r) {          // a wait nobody satisfies (after this rank's share, so rank 0 finishes)
        comm::Signal l(sig + 7);
        comm::TWAIT(l, 1, comm::WaitCmp::GE);
    }
    const int32_t total = w * (w + 1) / 2;
    if (r == 0) {
        comm::Signal l0(sig);
        comm::TWAIT(l0, total, comm::WaitCmp::EQ);
        for (int p = 0; p < w; ++p) {
            comm::Signal s(comm_peer_ptr(ctx, sig + 1, p));
            comm::TNOTIFY(s, total, comm::NotifyOp::Set);
        }
    }
    comm::Signal l1(sig + 1);
    comm::TWAIT(l1, 1, comm::WaitCmp::GE);
    RowTile<int32_t, 8> it;
    TASSIGN(it, 0);
    Row<int32_t, 8> gsig(sig), gy(T(args, 0)->data<int32_t>());
    TLOAD(it, gsig);
    TSTORE(gy, it);
#elif defined(K_BARRIER)  // (x, y, z [1,8] i32, data W, sig W [8]; ctx x2)
    CommContext* ctx = CTX(args, 5);
    const int r = ctx->rankId, w = ctx->rankNum;
    float* data = T(args, 3)->data<float>();
    int32_t* sig = T(args, 4)->data<int32_t>();
    Barrier b{ctx, sig};
    RowTile<float, 64> t, u, acc;
    TASSIGN(t, 0);
    TASSIGN(u, 256);
    TASSIGN(acc, 512);
    Row<float, 64> gx(T(args, 0)->data<float>()), gy(T(args, 1)->data<float>()), gdata(data);
    Row<float, 64> gnext(comm_peer_ptr(ctx, data, (r + 1) % w));
    TLOAD(t, gx);
    TMULS(acc, t, 0.0f);
    for (int k = 0; k < 3; ++k) {
        TLOAD(t, gx);
        TADDS(t, t, (float)k);
        TSTORE(gdata, t);
        b.round();
        TLOAD(u, gnext);
        b.round();
        TADD(acc, acc, u);
    }
    b.reset();
    TSTORE(gy, acc);
    RowTile<int32_t, 8> it;
    TASSIGN(it, 768);
    Row<int32_t, 8> gsig(sig), gz(T(args, 2)->data<int32_t>());
    TLOAD(it, gsig);
    TSTORE(gz, it);
#elif defined(K_ALLREDUCE)  // (x [1,256], y, data W, sig W [8]; ctx x2): y = x[0] + x[1] + ... (rank order)
    CommContext* ctx = CTX(args, 4);
    const int w = ctx->rankNum;
    float* data = T(args, 2)->data<float>();
    Barrier b{ctx, T(args, 3)->data<int32_t>()};
    RowTile<float, 256> t, acc;
    TASSIGN(t, 0);
    TASSIGN(acc, 1024);
    Row<float, 256> gx(T(args, 0)->data<float>()), gy(T(args, 1)->data<float>()), gdata(data);
    TLOAD(t, gx);
    TSTORE(gdata, t);
    b.round();
    Row<float, 256> g0(comm_peer_ptr(ctx, data, 0));
    TLOAD(acc, g0);
    for (int s = 1; s < w; ++s) {
        Row<float, 256> gs(comm_peer_ptr(ctx, data, s));
        TLOAD(t, gs);
        TADD(acc, acc, t);
    }
    b.round();
    b.reset();
    TSTORE(gy, acc);
#elif defined(K_OFFSETS)  // (y [1,8] i64, a W, b W; ctx_a, ctx_b): what a rank sees of its windows
    CommContext* ca = CTX(args, 3);
    CommContext* cb = CTX(args, 4);
    int64_t* y = T(args, 0)->data<int64_t>();
    const int r = ca->rankId;
    y[0] = (int64_t)((uint64_t)(uintptr_t)T(args, 1)->data<float>() - ca->windowsIn[r]);
    y[1] = (int64_t)((uint64_t)(uintptr_t)T(args, 2)->data<int32_t>() - cb->windowsIn[r]);
    y[2] = ca->rankId;
    y[3] = ca->rankNum;
    y[4] = (int64_t)ca->winSize;
    y[5] = ca == cb;
    int same = 1;
    for (int k = 0; k < ca->rankNum; ++k) same &= ca->windowsIn[k] == ca->windowsOut[k] && ca->windowsIn[k] != 0;
    y[6] = same;
    y[7] = ca->workSpace == 0 && ca->workSpaceSize == 0;
#elif defined(K_CRASH)  // (y [1,8] i32, w W; ctx): a null write on rank 1
    CommContext* ctx = CTX(args, 2);
    if (ctx->rankId == 1) {
        volatile int32_t* p = nullptr;
        *p = 42;
    }
    T(args, 0)->data<int32_t>()[0] = ctx->rankId;
#elif defined(K_PUTBW)  // (y [1,8] i64, src W, dst W; nfloats, reps, get; ctx x2): rank 0 moves data to/from rank 1
    CommContext* ctx = CTX(args, 6);
    int64_t* y = T(args, 0)->data<int64_t>();
    const int64_t n = S(args, 3), reps = S(args, 4), get = S(args, 5);
    float* src = T(args, 1)->data<float>();
    float* dst = T(args, 2)->data<float>();
    RowTile<float, 64> t;
    TASSIGN(t, 0);
    DynRow local(src, Shape<1, 1, 1, 1, -1>(n), Stride<1, 1, 1, -1, 1>(n));
    DynRow remote(comm_peer_ptr(ctx, dst, 1), Shape<1, 1, 1, 1, -1>(n), Stride<1, 1, 1, -1, 1>(n));
    DynRow mine(dst, Shape<1, 1, 1, 1, -1>(n), Stride<1, 1, 1, -1, 1>(n));
    int64_t t0 = now_ns(), t1 = t0, t2 = t0;
    if (ctx->rankId == 0) {
        for (int64_t i = 0; i < reps; ++i) {
            if (get) comm::TGET(local, remote, t);
            else comm::TPUT(remote, local, t);
        }
        t1 = now_ns();
        for (int64_t i = 0; i < reps; ++i) memcpy(dst, src, (size_t)n * sizeof(float));   // the same bytes, locally
        t2 = now_ns();
    }
    (void)mine;
    y[0] = t1 - t0;
    y[1] = t2 - t1;
#elif defined(K_BARRIERS)  // (y [1,8] i64, sig W [8]; reps; ctx): reps barrier rounds
    CommContext* ctx = CTX(args, 3);
    Barrier b{ctx, T(args, 1)->data<int32_t>()};
    const int64_t reps = S(args, 2);
    b.round();
    const int64_t t0 = now_ns();
    for (int64_t i = 0; i < reps; ++i) b.round();
    T(args, 0)->data<int64_t>()[0] = now_ns() - t0;
    b.reset();
#elif defined(K_ALLREDUCE_BIG)  // (x [1,N], y, data W, sig W [8]; n; ctx x2): chunked rank-order allreduce
    CommContext* ctx = CTX(args, 5);
    const int w = ctx->rankNum;
    const int64_t n = S(args, 4);
    float* data = T(args, 2)->data<float>();
    float* x = T(args, 0)->data<float>();
    float* y = T(args, 1)->data<float>();
    Barrier b{ctx, T(args, 3)->data<int32_t>()};
    RowTile<float, 4096> t, acc;
    TASSIGN(t, 0);
    TASSIGN(acc, 16384);
    const int64_t t0 = now_ns();
    for (int64_t off = 0; off < n; off += 4096) {
        Row<float, 4096> gx(x + off), gd(data + off);
        TLOAD(t, gx);
        TSTORE(gd, t);
    }
    b.round();
    for (int64_t off = 0; off < n; off += 4096) {
        Row<float, 4096> g0(comm_peer_ptr(ctx, data + off, 0)), gy(y + off);
        TLOAD(acc, g0);
        for (int s = 1; s < w; ++s) {
            Row<float, 4096> gs(comm_peer_ptr(ctx, data + off, s));
            TLOAD(t, gs);
            TADD(acc, acc, t);
        }
        TSTORE(gy, acc);
    }
    b.round();
    b.reset();
    (void)t0;
#elif defined(K_TO_WINDOW)  // (x [1,256], w W; ctx): w = x
    RowTile<float, 256> t;
    TASSIGN(t, 0);
    Row<float, 256> gx(T(args, 0)->data<float>()), gw(T(args, 1)->data<float>());
    TLOAD(t, gx);
    TSTORE(gw, t);
#elif defined(K_FROM_WINDOW)  // (w W, y OUT [1,256]; ctx): y = w
    RowTile<float, 256> t;
    TASSIGN(t, 0);
    Row<float, 256> gw(T(args, 0)->data<float>()), gy(T(args, 1)->data<float>());
    TLOAD(t, gw);
    TSTORE(gy, t);
#elif defined(K_WALLREDUCE)  // (data W, res W, sig W; ctx x3): res = data[0] + data[1] + ... (a host collective)
    CommContext* ctx = CTX(args, 3);
    const int w = ctx->rankNum;
    float* data = T(args, 0)->data<float>();
    Barrier b{ctx, T(args, 2)->data<int32_t>()};
    RowTile<float, 256> t, acc;
    TASSIGN(t, 0);
    TASSIGN(acc, 1024);
    b.round();
    Row<float, 256> g0(comm_peer_ptr(ctx, data, 0)), gres(T(args, 1)->data<float>());
    TLOAD(acc, g0);
    for (int s = 1; s < w; ++s) {
        Row<float, 256> gs(comm_peer_ptr(ctx, data, s));
        TLOAD(t, gs);
        TADD(acc, acc, t);
    }
    TSTORE(gres, acc);
    b.round();
    b.reset();
#elif defined(K_POKE)  // (y [1,8] i32; addr): TNOTIFY Set 5 on a signal outside every window (plain GM)
    comm::Signal s(reinterpret_cast<int32_t*>((uintptr_t)S(args, 1)));
    comm::TNOTIFY(s, 5, comm::NotifyOp::Set);
    T(args, 0)->data<int32_t>()[0] = 1;
#elif defined(K_ATOMIC_LOCAL)  // (x [1,64] f32, y [1,64] f32, h [1,64] f16 inout; blocks): y += x, h += 1 from every block
    RowTile<float, 64> t;
    TASSIGN(t, 0);
    Row<float, 64> gx(T(args, 0)->data<float>()), gy(T(args, 1)->data<float>());
    TLOAD(t, gx);
    TSTORE<RowTile<float, 64>, Row<float, 64>, AtomicType::AtomicAdd>(gy, t);
    RowTile<half, 64> one;
    TASSIGN(one, 256);
    RowTile<float, 64> ones;
    TASSIGN(ones, 512);
    TMULS(ones, t, 0.0f);
    TADDS(ones, ones, 1.0f);
    TCVT(one, ones, RoundMode::CAST_RINT);
    Row<half, 64> gh(T(args, 2)->data<half>());
    TSTORE<RowTile<half, 64>, Row<half, 64>, AtomicType::AtomicAdd>(gh, one);
#elif defined(K_LOCAL_SIGNAL)  // (y [1,8] i32 inout; 2 blocks): block 1 waits for block 0's Set on y[0], then y[1] = y[0] + 1
    int32_t* y = T(args, 0)->data<int32_t>();
    comm::Signal s0(y);
    if (get_block_idx(args) == 0) {
        comm::TNOTIFY(s0, 41, comm::NotifyOp::Set);
    } else {
        comm::TWAIT(s0, 41, comm::WaitCmp::EQ);
        if (!comm::TTEST(s0, 41, comm::WaitCmp::EQ) || comm::TTEST(s0, 0, comm::WaitCmp::EQ)) pto_cpu_fatal("TTEST", "wrong");
        y[1] = y[0] + 1;
    }
#else
#error "select a kernel with -DK_<NAME>"
#endif
}
