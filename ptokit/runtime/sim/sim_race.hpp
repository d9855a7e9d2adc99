// sim_race.hpp -- the race checker (part of the single translation unit ptosim.cpp; not a
// public header).
//
// Owns: what the checker remembers of a run (PtoSimConfig.race_check) -- per submission its
// site, kernel and the submission numbers of its producers (the edges the runtime built:
// explicit deps, and tracked tensor dependencies where tracking is on), and per open scope
// the tensor regions its tasks read and wrote -- and the check itself: when a task is
// submitted, each of its tensor args is compared, with the TensorMap's region geometry, with
// the earlier accesses of the same scope to the same buffer; an overlap where at least one
// side writes and no path of edges leads from the earlier task to the new one is a race.
// Which scopes are checked: mode 1 the MANUAL ones (and scopes nested in them), mode 2 all.
// The blocks of an SPMD task in a checked scope are compared by what they really touched: the
// dense TLOAD/TSTORE spans the tile library reports (pto_cpu_note_gm_span; strided spans, whose
// gaps a neighbour may own, are left out), when the task's last block is done.
// A write that covers an earlier access replaces it (a later conflict with the earlier one
// also conflicts with the write, so at least one race is still reported).  Knows nothing
// about rings or threads: sim_orchestration.hpp calls it with the device lock held.
#pragma once

#include "sim_common.hpp"
#include "sim_tensormap.hpp"

namespace {

constexpr size_t kMaxRaces = 256;

// One dense global-memory access of a block of an SPMD task (pto_cpu_note_gm_span).
struct RaceSpan {
    uint64_t a, e;  // bytes [a, e)
    int32_t block;
    bool write;
};

struct RaceAccess {
    uint64_t seq;
    uint32_t arg;
    bool write, read, untracked;
    TMEntry reg;
};

struct RaceBuffer {
    std::vector<RaceAccess> reads, writes;
};

struct RaceScope {
    bool checked = false, manual = false;
    std::unordered_map<uint64_t, RaceBuffer> bufs;  // buffer address -> accesses
};

struct RaceState {
    int mode = 0;
    std::vector<RaceScope> scopes;        // open scopes, outermost (the orchestration) first
    std::vector<int32_t> site, func;      // per submission number
    std::vector<uint64_t> pred_off{0};    // producers of seq s: preds[pred_off[s] .. pred_off[s+1])
    std::vector<uint64_t> preds;
    std::vector<uint32_t> stamp;          // DFS marks per submission number
    uint32_t cur_stamp = 0;
    std::vector<PtoSimRace> races;
    uint64_t found = 0;
    std::vector<std::pair<uint64_t, uint64_t>> reported;  // task pairs already reported
};

void race_begin_run(RaceState& s, int mode) {
    s = RaceState();
    s.mode = mode;
    s.scopes.emplace_back();
    s.scopes.back().checked = mode == 2;
}

void race_scope_begin(RaceState& s, bool manual) {
    if (!s.mode) return;
    bool m = manual || s.scopes.back().manual;
    s.scopes.emplace_back();
    s.scopes.back().manual = m;
    s.scopes.back().checked = s.mode == 2 || m;
}

void race_scope_end(RaceState& s) {
    if (s.mode && s.scopes.size() > 1) s.scopes.pop_back();
}

// Is there a path of producer edges from submission `from` to submission `to` (> from)?
bool race_reaches(RaceState& s, uint64_t from, uint64_t to) {
    if (++s.cur_stamp == 0) {
        std::fill(s.stamp.begin(), s.stamp.end(), 0);
        s.cur_stamp = 1;
    }
    std::vector<uint64_t> stack{to};
    while (!stack.empty()) {
        uint64_t x = stack.back();
        stack.pop_back();
        for (uint64_t i = s.pred_off[x]; i < s.pred_off[x + 1]; ++i) {
            uint64_t p = s.preds[i];
            if (p == from) return true;
            if (p < from || s.stamp[p] == s.cur_stamp) continue;
            s.stamp[p] = s.cur_stamp;
            stack.push_back(p);
        }
    }
    return false;
}

void race_report(RaceState& s, const RaceAccess& e, const RaceAccess& q, uint64_t seq, uint64_t buffer, DataType dt,
                 bool manual) {
    for (auto& pr : s.reported)
        if (pr.first == e.seq && pr.second == seq) return;  // one report per pair of tasks
    s.reported.emplace_back(e.seq, seq);
    ++s.found;
    if (s.races.size() >= kMaxRaces) return;
    PtoSimRace x;
    memset(&x, 0, sizeof x);
    x.seq_a = e.seq;
    x.seq_b = seq;
    x.site_a = s.site[e.seq];
    x.site_b = s.site[seq];
    x.func_a = s.func[e.seq];
    x.func_b = s.func[seq];
    x.arg_a = e.arg;
    x.arg_b = q.arg;
    x.kind = e.write ? (q.read ? 0 : 2) : 1;
    x.manual = manual ? 1 : 0;
    x.buffer = buffer;
    x.lo = std::max(e.reg.start, q.reg.start);
    x.hi = std::min(e.reg.end, q.reg.end);
    x.dtype = (uint32_t)dt;
    x.untracked = (e.untracked || q.untracked) ? 1 : 0;
    x.block_a = x.block_b = -1;
    s.races.push_back(x);
}

// Is submission `seq` (just submitted) in a checked scope?  Then its blocks are compared too.
bool race_checked_now(const RaceState& s) { return s.mode && s.scopes.back().checked; }

// The blocks of SPMD task `seq` are done: two blocks whose dense accesses overlap, at least one
// writing, race (blocks of one task are never ordered).  One report per task.
void race_check_blocks(RaceState& s, uint64_t seq, std::vector<RaceSpan>& spans, const std::vector<ChipTensor>& args,
                       const uint8_t* kinds, bool manual) {
    std::sort(spans.begin(), spans.end(), [](const RaceSpan& x, const RaceSpan& y) {
        return x.a != y.a ? x.a < y.a : x.block != y.block ? x.block < y.block : x.write > y.write;
    });
    for (size_t i = 0; i < spans.size(); ++i) {
        for (size_t j = i + 1; j < spans.size() && spans[j].a < spans[i].e; ++j) {
            const RaceSpan &p = spans[i], &q = spans[j];
            if (p.block == q.block || !(p.write || q.write)) continue;
            const uint64_t lo = std::max(p.a, q.a), hi = std::min(p.e, q.e);
            uint32_t arg = 0;  // the argument holding the bytes
            for (uint32_t k = 0; k < args.size(); ++k) {
                const ChipTensor& t = args[k];
                uint64_t base = t.buffer.addr + t.start_offset * t.element_size();
                if (lo >= base && lo < base + t.extent_elems() * t.element_size()) {
                    arg = k;
                    break;
                }
            }
            const RaceSpan& first = p.block < q.block ? p : q;
            const RaceSpan& second = p.block < q.block ? q : p;
            ++s.found;
            if (s.races.size() >= kMaxRaces) return;
            const ChipTensor& t = args.empty() ? ChipTensor{} : args[arg];
            const uint64_t es = args.empty() ? 1 : std::max<uint64_t>(t.element_size(), 1);
            PtoSimRace x;
            memset(&x, 0, sizeof x);
            x.seq_a = x.seq_b = seq;
            x.site_a = x.site_b = seq < s.site.size() ? s.site[seq] : -1;
            x.func_a = x.func_b = seq < s.func.size() ? s.func[seq] : -1;
            x.arg_a = x.arg_b = arg;
            x.kind = first.write ? (second.write ? 2 : 0) : 1;
            x.manual = manual ? 1 : 0;
            x.buffer = t.buffer.addr;
            x.lo = (lo - t.buffer.addr) / es;
            x.hi = (hi - t.buffer.addr + es - 1) / es;
            x.dtype = (uint32_t)t.dtype;
            x.untracked = (!args.empty() && (t.manual_dep || (PTO2ArgKind)kinds[arg] == PTO2ArgKind::NO_DEP)) ? 1 : 0;
            x.block_a = first.block;
            x.block_b = second.block;
            s.races.push_back(x);
            return;
        }
    }
}

// Submission `seq` (site, kernel, its producers' submission numbers, its tensor args as
// committed: runtime-created outputs have their addresses).
void race_submit(RaceState& s, uint64_t seq, int32_t site, int32_t func, const std::vector<uint64_t>& prod_seqs,
                 const ChipTensor* tensors, const uint8_t* kinds, uint32_t nt, uint32_t nodep_read_only) {
    if (!s.mode) return;
    if (s.site.size() <= seq) {
        s.site.resize(seq + 1, -1);
        s.func.resize(seq + 1, -1);
        s.stamp.resize(seq + 1, 0);
        s.pred_off.resize(seq + 2, s.pred_off.back());
    }
    s.site[seq] = site;
    s.func[seq] = func;
    for (uint64_t p : prod_seqs) s.preds.push_back(p);
    s.pred_off[seq + 1] = s.preds.size();
    RaceScope& sc = s.scopes.back();
    if (!sc.checked || nt == 0) return;
    nt = std::min<uint32_t>(nt, CORE_MAX_TENSOR_ARGS);
    RaceAccess acc[CORE_MAX_TENSOR_ARGS];
    for (uint32_t i = 0; i < nt; ++i) {
        const ChipTensor& t = tensors[i];
        PTO2ArgKind k = (PTO2ArgKind)kinds[i];
        RaceAccess& a = acc[i];
        a.seq = seq;
        a.arg = i;
        a.read = k == PTO2ArgKind::INPUT || k == PTO2ArgKind::INOUT || k == PTO2ArgKind::NO_DEP;
        a.write = k == PTO2ArgKind::OUTPUT || k == PTO2ArgKind::OUTPUT_EXISTING || k == PTO2ArgKind::INOUT ||
                  (k == PTO2ArgKind::NO_DEP && !(i < 32 && (nodep_read_only >> i & 1)));
        a.untracked = k == PTO2ArgKind::NO_DEP || t.manual_dep;
        a.reg = region_of(t, seq);
        auto it = sc.bufs.find(t.buffer.addr);
        if (it == sc.bufs.end()) continue;
        auto check = [&](const std::vector<RaceAccess>& v) {
            for (const RaceAccess& e : v)
                if (e.seq != seq && overlaps(a.reg, e.reg) && !race_reaches(s, e.seq, seq))
                    race_report(s, e, a, seq, t.buffer.addr, t.dtype, sc.manual);
        };
        check(it->second.writes);
        if (a.write) check(it->second.reads);
    }
    for (uint32_t i = 0; i < nt; ++i) {
        const RaceAccess& a = acc[i];
        RaceBuffer& b = sc.bufs[tensors[i].buffer.addr];
        if (a.write) {
            auto drop = [&](std::vector<RaceAccess>& v) {
                size_t w = 0;
                for (size_t j = 0; j < v.size(); ++j)
                    if (v[j].seq == seq || !covers(a.reg, v[j].reg)) v[w++] = v[j];
                v.resize(w);
            };
            drop(b.writes);
            drop(b.reads);
            b.writes.push_back(a);
        } else {
            b.reads.push_back(a);
        }
    }
}

}  // namespace
