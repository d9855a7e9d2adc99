// sim_estimate.hpp -- the estimated device timeline of one core (part of the single translation unit
// ptosim.cpp; not a public header).
//
// Owns: EstCore, the pipeline model of docs/estimate.md. A core's block starts at device cycle 0; each
// instruction the tile library reports (pto_cpu_est_op) waits for its pipe to be free, for the gates
// wait_flag / pipe_barrier / cross-core waits put on that pipe, and for the tile buffers it touches
// (read after write, write after read or write, by byte range within a memory space), then occupies
// the pipe for its cycles. The scalar pipe issues in order; only scalar instructions and flag
// operations take its time. A FIFO push waits for its slot (push_after, sim_fifo.hpp). Nothing here reads a clock: the same instruction stream gives the same
// cycles on every run.
#pragma once

#include <stdint.h>

#include <algorithm>
#include <vector>

namespace {

constexpr int kEstPipeIds = 11;   // pipe_t values PIPE_S .. PIPE_FIX (PIPE_ALL = 6 is no pipe)
constexpr int kEstPipeAll = 6;
// report order (PtoSimEstimate): Scalar, MTE2, MTE1, CUBE, FIXP, VEC, MTE3; -1: not reported
constexpr int kEstReportOf[kEstPipeIds] = {0, 5, 3, 2, 1, 6, -1, -1, -1, -1, 4};

struct EstBufUse {
    int32_t space;
    uint64_t lo, hi;              // bytes [lo, hi) of the space
    uint64_t read_end, write_end; // when the last read / write of these bytes ends
};

struct EstCore {
    uint64_t free_at[kEstPipeIds];
    uint64_t gate[kEstPipeIds];
    uint64_t flags[kEstPipeIds][kEstPipeIds][8] = {};
    std::vector<uint64_t*> raised;    // the flags set this block (reset cleans only these)
    uint64_t issue;
    PtoSimEstimate res;
    std::vector<EstBufUse> bufs;

    void reset() {
        std::fill(&free_at[0], &free_at[0] + kEstPipeIds, 0);
        std::fill(&gate[0], &gate[0] + kEstPipeIds, 0);
        for (uint64_t* f : raised) *f = 0;
        raised.clear();
        issue = 0;
        last_pipe = -1;
        last_start = last_end = 0;
        res = PtoSimEstimate();
        bufs.clear();
    }
    // when everything issued so far is done
    uint64_t now() const {
        uint64_t t = issue;
        for (int p = 0; p < kEstPipeIds; ++p) t = std::max(t, free_at[p]);
        return t;
    }
    void account(int pipe, uint64_t start, uint64_t end) {
        const int k = kEstReportOf[pipe];
        if (k < 0) return;
        if (res.busy[k] == 0 && res.last[k] == 0) res.first[k] = start;
        res.busy[k] += end - start;
        res.last[k] = std::max(res.last[k], end);
    }
    int last_pipe = -1;               // the last instruction: its pipe and when it ran
    uint64_t last_start = 0, last_end = 0;

    void op(int pipe, uint64_t cycles, const PtoCpuEstBuf* b, int n, int nwrites) {
        if (pipe < 0 || pipe >= kEstPipeIds || pipe == kEstPipeAll) return;
        uint64_t start = std::max(std::max(issue, free_at[pipe]), gate[pipe]);
        for (int i = 0; i < n; ++i) {
            const uint64_t lo = b[i].offset, hi = b[i].offset + b[i].bytes;
            for (const EstBufUse& u : bufs)
                if (u.space == b[i].space && u.lo < hi && lo < u.hi)
                    start = std::max(start, i < nwrites ? std::max(u.read_end, u.write_end) : u.write_end);
        }
        const uint64_t end = start + cycles;
        for (int i = 0; i < n; ++i) {
            const uint64_t lo = b[i].offset, hi = b[i].offset + b[i].bytes;
            EstBufUse* same = nullptr;
            for (EstBufUse& u : bufs)
                if (u.space == b[i].space && u.lo == lo && u.hi == hi) same = &u;
            if (!same) {
                bufs.push_back(EstBufUse{b[i].space, lo, hi, 0, 0});
                same = &bufs.back();
            }
            if (i < nwrites) same->write_end = std::max(same->write_end, end);
            else same->read_end = std::max(same->read_end, end);
        }
        free_at[pipe] = end;
        if (pipe == 0) issue = end;
        account(pipe, start, end);
        res.instructions++;
        last_pipe = pipe;
        last_start = start;
        last_end = end;
    }
    // A FIFO push whose slot is free only at device time t (the consumer released it then): its copy,
    // the last instruction, starts no earlier than t, and the core issues nothing before it is done
    // (the push blocks until it has a slot). The copy's busy cycles stay as they were.
    void push_after(uint64_t t) {
        if (last_pipe < 0 || t <= last_start) return;
        const uint64_t end = t + (last_end - last_start);
        free_at[last_pipe] = std::max(free_at[last_pipe], end);
        const int k = kEstReportOf[last_pipe];
        if (k >= 0) res.last[k] = std::max(res.last[k], end);
        last_start = t;
        last_end = end;
        wait_until(end);
    }
    void sync(int kind, int a, int b, int event) {
        if (kind == 2) {                       // pipe_barrier(PIPE_ALL): every pipe drains
            if (a != kEstPipeAll) return;      // a barrier inside one pipe: it is in order already
            const uint64_t t = now();
            std::fill(&gate[0], &gate[0] + kEstPipeIds, t);
            issue = t;
            return;
        }
        // flags take no scalar time here: a fused run of the built-in assembler skips the flags its
        // unfused path raises, and both must give the same timeline (the buffer hazards order them)
        if (a < 0 || a >= kEstPipeIds || b < 0 || b >= kEstPipeIds || event < 0 || event > 7) return;
        if (kind == 0) {                       // set_flag: raised once the source pipe's work is done
            flags[a][b][event] = std::max(free_at[a], issue);
            raised.push_back(&flags[a][b][event]);
        } else {                               // wait_flag: the destination pipe waits for the raise
            gate[b] = std::max(gate[b], flags[a][b][event]);
            if (b == 0) issue = std::max(issue, flags[a][b][event]);
        }
    }
    // a cross-core wait that ended at device time t: nothing on this core starts earlier
    void wait_until(uint64_t t) {
        for (int p = 0; p < kEstPipeIds; ++p) gate[p] = std::max(gate[p], t);
        issue = std::max(issue, t);
    }
    const PtoSimEstimate& finish() {
        res.cycles = now();
        return res;
    }
};

}  // namespace
