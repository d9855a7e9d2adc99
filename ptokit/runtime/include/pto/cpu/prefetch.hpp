// CPU tile library: the asynchronous GM -> L2 prefetch (pto.make_prefetch_async_context,
// pto.tprefetch_async, pto.get_prefetch_async_session, pto.comm.wait_async_event).
// The simulator has no L2: a prefetch moves no data and changes no value, so TPREFETCH_ASYNC checks
// what the device checks (a workspace, a flat 1-D region inside the tensor argument it names) and
// returns an event that is already complete (docs/decisions.md "pl.prefetch on the simulator").
#ifndef PTO_CPU_PREFETCH_HPP
#define PTO_CPU_PREFETCH_HPP

#include "pto/cpu/core.hpp"
#include "pto/cpu/tile.hpp"

namespace pto {

struct AsyncSession {
    const void* workspace = nullptr;
};

struct AsyncEvent {
    bool issued = false;
};

struct PrefetchAsyncContext {
    AsyncSession session;
    PrefetchAsyncContext() = default;
    template <typename T>
    explicit PrefetchAsyncContext(T* workspace) {
        if (workspace == nullptr)
            cpu::fatal("pto::PrefetchAsyncContext", "null SDMA workspace (the kernel wrapper passes the runtime's)");
        session.workspace = workspace;
    }
};

// pto.get_prefetch_async_session: the context's session (the device's ctx.session).
inline AsyncSession GET_PREFETCH_ASYNC_SESSION(const PrefetchAsyncContext& ctx) { return ctx.session; }

template <typename GT>
inline AsyncEvent TPREFETCH_ASYNC(const GT& src, PrefetchAsyncContext& ctx) {
    if (ctx.session.workspace == nullptr) cpu::fatal("TPREFETCH_ASYNC", "the prefetch context has no workspace");
    int64_t n = 1;
    for (int d = 0; d < 5; ++d) {
        const int64_t e = src.GetShape(d);
        if (d < 4 && e != 1)
            cpu::fatal("TPREFETCH_ASYNC", "the region is not flat: dimension %d of 5 has extent %lld (only the "
                       "last may exceed 1)", d, (long long)e);
        n *= e;
    }
    if (src.GetStride(4) != 1) cpu::fatal("TPREFETCH_ASYNC", "the region is not contiguous (stride %lld)",
                                          (long long)src.GetStride(4));
    using E = typename GT::DType;
    cpu::check_gm("TPREFETCH_ASYNC", src.origin_, src.data(), (uint64_t)n * sizeof(E), sizeof(E), 1, (int)n);
    return AsyncEvent{true};
}

// The CPU prefetch has completed when TPREFETCH_ASYNC returns: the wait checks the pair and is done.
inline bool TWAIT_ASYNC_EVENT(const AsyncEvent& ev, const AsyncSession& session) {
    if (!ev.issued) cpu::fatal("pto.comm.wait_async_event", "the event was never issued by TPREFETCH_ASYNC");
    if (session.workspace == nullptr) cpu::fatal("pto.comm.wait_async_event", "the session has no workspace");
    return true;
}

}  // namespace pto

#endif  // PTO_CPU_PREFETCH_HPP
