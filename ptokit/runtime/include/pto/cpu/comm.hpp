// CPU tile library: the communication instructions of distributed programs (pto::comm):
// TNOTIFY, TWAIT, TTEST, TPUT, TGET, TQUIET -- names, template parameters and argument order
// as pto-isa's pto/comm/pto_comm_inst.hpp, so a kernel written against one compiles against
// the other. See docs/distributed.md and docs/tile-api.md.
//
// Signals are int32 cells in global memory (usually a window). Window addresses are reached
// only through the simulator's comm hooks (pto/cpu/window.hpp); a signal in plain GM is
// changed with the same atomics and futex waits (pto/cpu_comm_signal.h).
#ifndef PTO_CPU_COMM_HPP
#define PTO_CPU_COMM_HPP

#include "pto/cpu/ops.hpp"
#include "pto/cpu_comm_signal.h"

namespace pto {
namespace comm {

enum class NotifyOp : uint8_t { AtomicAdd = 0, Set = 1 };
enum class WaitCmp : uint8_t { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };

// A one-element int32 signal: comm::Signal sig(ptr);
using Signal = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>, Layout::ND>;

namespace detail {

constexpr int64_t kStandaloneWaitNs = 60LL * 1000000000LL;   // no simulator: the wait's bound

template <typename... E>
constexpr bool all_events() {
    return (std::is_same<typename std::decay<E>::type, RecordEvent>::value && ...);
}

// "rank 1's window (domain 0) at offset 96" or "global address 0x..." for messages.
inline void describe_cell(const void* cell, char* out, size_t n) {
    const PtoCommWindow* w = nullptr;
    uint64_t off = 0;
    if (pto_comm_find(cpu::comm_ops(), cell, 4, &w, &off) == 1)
        snprintf(out, n, "rank %d's window (domain %d) at offset %llu", (int)w->peer, (int)w->domain,
                 (unsigned long long)off);
    else
        snprintf(out, n, "global address %p", cell);
}

template <typename G>
inline int32_t* signal_cell(const char* instr, G& sig) {
    static_assert(std::is_same<typename G::RawDType, int32_t>::value, "a signal must be an int32 global tensor");
    int32_t* cell = sig.data();
    if (!cell) cpu::fatal(instr, "signal global tensor has a null data pointer");
    if ((uintptr_t)cell % 4 != 0) cpu::fatal(instr, "signal at %p is not 4-byte aligned", (void*)cell);
    return cell;
}

inline void notify_cell(int32_t* cell, int32_t value, NotifyOp op) {
    if (auto hook = PTO_CPU_HOOK(pto_cpu_comm_notify)) {
        const int rc = hook(cell, value, (int32_t)op);
        if (rc != PTO_COMM_OK) {
            char where[160];
            describe_cell(cell, where, sizeof where);
            cpu::fatal("TNOTIFY", "notify of the signal at %s failed: %s", where, cpu::comm_error_text(rc));
        }
        return;
    }
    pto_signal_apply(cell, value, (int32_t)op);
}

inline void wait_cell(const char* instr, int32_t* cell, int32_t expected, WaitCmp cmp) {
    int32_t seen = 0;
    int rc = PTO_COMM_OK;
    if (auto hook = PTO_CPU_HOOK(pto_cpu_comm_wait)) {
        rc = hook(cell, expected, (int32_t)cmp, &seen);
    } else {
        const int64_t deadline = pto_signal_now_ns() + kStandaloneWaitNs;
        while (!pto_signal_wait_slice(cell, expected, (int32_t)cmp, deadline, &seen)) {
            if (pto_signal_now_ns() >= deadline) {
                rc = PTO_COMM_TIMEOUT;
                break;
            }
        }
    }
    if (rc == PTO_COMM_OK) return;
    char where[160];
    describe_cell(cell, where, sizeof where);
    if (rc == PTO_COMM_TIMEOUT)
        cpu::fatal(instr, "timed out (0.9 x the run's timeout) waiting for the signal at %s: value %d, expected %s %d",
                   where, (int)seen, pto_signal_cmp_text((int32_t)cmp), (int)expected);
    cpu::fatal(instr, "wait on the signal at %s failed: %s (value %d, expected %s %d)", where, cpu::comm_error_text(rc),
               (int)seen, pto_signal_cmp_text((int32_t)cmp), (int)expected);
}

inline int32_t read_cell(const char* instr, const int32_t* cell) {
    if (cpu::in_window(instr, cell, 4)) {
        int32_t v = 0;
        cpu::window_read(instr, cell, &v, 4);
        return v;
    }
    return __atomic_load_n(cell, __ATOMIC_SEQ_CST);
}

// Every element of the signal view, in row-major order of its (rows, cols).
template <typename G, typename F>
inline void for_each_cell(const char* instr, G& sig, F f) {
    int32_t* base = signal_cell(instr, sig);
    const cpu::GmView<G> v(sig);
    for (int64_t r = 0; r < v.rows; ++r)
        for (int64_t c = 0; c < v.cols; ++c)
            if (!f(base + v.offset(r, c))) return;
}

// dst (vr x vc of its view) <- src (the same extent); either side may be a window. `atomic`:
// add into dst instead of storing.
template <typename GD, typename GS, typename TileData>
inline void copy_global(const char* instr, GD& dst, GS& src, TileData& staging, bool atomic) {
    using T = typename GS::RawDType;
    static_assert(std::is_same<typename GD::RawDType, T>::value, "TPUT/TGET: source and destination element types differ");
    static_assert(std::is_same<typename TileData::DType, T>::value, "TPUT/TGET: the staging tile's element type differs");
    static_assert(GD::layout == GS::layout, "TPUT/TGET: source and destination layouts differ");
    static_assert(TileData::Loc == TileType::Vec, "TPUT/TGET: the staging tile must be a Vec tile");
    cpu::ptr(staging, instr);                           // the staging tile must be bound (TASSIGN)
    const cpu::GmView<GS> vs(src);
    const cpu::GmView<GD> vd(dst);
    if (vs.rows != vd.rows || vs.cols != vd.cols)
        cpu::fatal(instr, "source view is %lldx%lld but destination view is %lldx%lld", (long long)vs.rows,
                   (long long)vs.cols, (long long)vd.rows, (long long)vd.cols);
    const int rows = (int)vs.rows, cols = (int)vs.cols;
    const bool src_win = cpu::check_region(instr, src, vs, rows, cols);
    const bool dst_win = cpu::check_region(instr, dst, vd, rows, cols, true, atomic);
    T* row = (T*)cpu::scratch(0, sizeof(T) * (size_t)(cols > 0 ? cols : 1));
    for (int r = 0; r < rows; ++r) {
        cpu::gm_read_row(instr, src, vs, r, cols, row, src_win);
        cpu::gm_write_row(instr, dst, vd, r, cols, row, dst_win, atomic);
    }
}

}  // namespace detail

// ---------------------------------------------------------------- signals
// Runtime op: TNOTIFY(sig, value, NotifyOp::AtomicAdd). Applies `value` to the signal's first
// element (add or store), after this core's earlier writes (release), and wakes its waiters.
template <typename GlobalSignalData>
inline RecordEvent TNOTIFY(GlobalSignalData& dstSignal, int32_t value, NotifyOp op) {
    detail::notify_cell(detail::signal_cell("TNOTIFY", dstSignal), value, op);
    return {};
}

template <NotifyOp op = NotifyOp::Set, typename GlobalSignalData>
inline RecordEvent TNOTIFY(GlobalSignalData& dstSignal, int32_t value = 1) {
    return TNOTIFY(dstSignal, value, op);
}

// TWAIT(sig, cmpValue, WaitCmp::GE): blocks until every element of the signal view compares
// true against cmpValue (acquire). Bounded: 0.9 x the run's timeout, then a fatal error naming
// the cell, its value and the expected one.
template <typename GlobalSignalData>
inline RecordEvent TWAIT(GlobalSignalData& signal, int32_t cmpValue, WaitCmp cmp) {
    detail::for_each_cell("TWAIT", signal, [&](int32_t* cell) {
        detail::wait_cell("TWAIT", cell, cmpValue, cmp);
        return true;
    });
    return {};
}

template <WaitCmp cmp = WaitCmp::EQ, typename GlobalSignalData>
inline RecordEvent TWAIT(GlobalSignalData& signal, int32_t cmpValue) {
    return TWAIT(signal, cmpValue, cmp);
}

// TTEST: true when every element of the signal view compares true now (never blocks).
template <typename GlobalSignalData>
inline bool TTEST(GlobalSignalData& signal, int32_t cmpValue, WaitCmp cmp) {
    bool ok = true;
    detail::for_each_cell("TTEST", signal, [&](int32_t* cell) {
        ok = pto_signal_compare(detail::read_cell("TTEST", cell), cmpValue, (int32_t)cmp) != 0;
        return ok;
    });
    if (ok) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return ok;
}

template <WaitCmp cmp = WaitCmp::EQ, typename GlobalSignalData>
inline bool TTEST(GlobalSignalData& signal, int32_t cmpValue) {
    return TTEST(signal, cmpValue, cmp);
}

// ---------------------------------------------------------------- data
// TPUT(dst, src, staging): copies the local view src into dst (another rank's window); with
// AtomicType::AtomicAdd dst += src element by element. On the CPU the whole view moves at once
// (the staging tiles only have to be bound Vec tiles of the element type); it has landed when
// TPUT returns, so TQUIET has nothing left to wait for.
template <AtomicType atomicType = AtomicType::AtomicNone, typename GlobalDstData, typename GlobalSrcData,
          typename TileData, typename... WaitEvents,
          typename = typename std::enable_if<is_tile<TileData>::value && detail::all_events<WaitEvents...>()>::type>
inline RecordEvent TPUT(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& stagingTileData,
                        WaitEvents&... events) {
    (void)sizeof...(events);
    detail::copy_global("TPUT", dstGlobalData, srcGlobalData, stagingTileData, atomicType == AtomicType::AtomicAdd);
    return {};
}

template <AtomicType atomicType = AtomicType::AtomicNone, typename GlobalDstData, typename GlobalSrcData,
          typename TileData, typename... WaitEvents,
          typename = typename std::enable_if<is_tile<TileData>::value && detail::all_events<WaitEvents...>()>::type>
inline RecordEvent TPUT(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& pingTile,
                        TileData& pongTile, WaitEvents&... events) {
    (void)sizeof...(events);
    cpu::ptr(pongTile, "TPUT");
    detail::copy_global("TPUT", dstGlobalData, srcGlobalData, pingTile, atomicType == AtomicType::AtomicAdd);
    return {};
}

template <typename GlobalDstData, typename GlobalSrcData, typename TileData, typename... WaitEvents,
          typename = typename std::enable_if<is_tile<TileData>::value && detail::all_events<WaitEvents...>()>::type>
inline RecordEvent TPUT(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& stagingTileData,
                        AtomicType atomicType, WaitEvents&... events) {
    (void)sizeof...(events);
    detail::copy_global("TPUT", dstGlobalData, srcGlobalData, stagingTileData, atomicType == AtomicType::AtomicAdd);
    return {};
}

// TGET(dst, src, staging): copies src (another rank's window) into the local view dst.
template <typename GlobalDstData, typename GlobalSrcData, typename TileData, typename... WaitEvents,
          typename = typename std::enable_if<is_tile<TileData>::value && detail::all_events<WaitEvents...>()>::type>
inline RecordEvent TGET(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& stagingTileData,
                        WaitEvents&... events) {
    (void)sizeof...(events);
    detail::copy_global("TGET", dstGlobalData, srcGlobalData, stagingTileData, false);
    return {};
}

template <typename GlobalDstData, typename GlobalSrcData, typename TileData, typename... WaitEvents,
          typename = typename std::enable_if<is_tile<TileData>::value && detail::all_events<WaitEvents...>()>::type>
inline RecordEvent TGET(GlobalDstData& dstGlobalData, GlobalSrcData& srcGlobalData, TileData& pingTile,
                        TileData& pongTile, WaitEvents&... events) {
    (void)sizeof...(events);
    cpu::ptr(pongTile, "TGET");
    detail::copy_global("TGET", dstGlobalData, srcGlobalData, pingTile, false);
    return {};
}

// Every TPUT/TGET has completed when it returns on the CPU.
inline RecordEvent TQUIET() { return {}; }

}  // namespace comm
}  // namespace pto

#endif
