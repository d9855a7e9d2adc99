// sim_race.hpp -- the race checker (part of the single translation unit ptosim.cpp; not a
// public header).
//
// Owns: what the checker remembers of a run (PtoSimConfig.race_check) and the check itself.
// A race is two tasks that touched overlapping global-memory bytes, at least one writing (two
// atomic adds do not race), with no path of dependency edges from the earlier to the later.
//
// * The graph: per submission its site, kernel and the submission numbers of its producers (the
//   edges the runtime built: explicit deps, and tracked tensor dependencies where tracking is
//   on).  A task that had completed when a later one was submitted is ordered before it too
//   (the orchestration waited for it, or it ran before anyone could have raced it): this covers
//   host waits and the edges the runtime does not keep to retired tasks.
// * The pre-filter: the declared regions of the task arguments (the TensorMap's geometry).  At
//   each submission of a checked task (mode 1: in a MANUAL scope or a scope nested in one; mode
//   2: every task), each tensor arg is compared with the declared accesses of the earlier
//   checked tasks to the same buffer that have not completed -- across scopes, so the tasks of
//   a scope nested in a MANUAL scope meet the outer scope's.  An overlap, one side writing, not
//   ordered by a done task or a direct edge, makes the pair a candidate (16 bytes, kept by the
//   later task).
// * The verdict: what the kernels really touched.  The tile library reports every global access
//   (pto_cpu_note_gm_rows: rows of bytes, kind read / write / atomic add); the core keeps them per
//   block, the task when the block is done.  When both tasks of a candidate are done, their
//   records are compared inside the bytes both arguments declared (rows of one stride as
//   rectangles, anything else through merged spans built once per task); only a conflict asks
//   for a path of edges, and a conflict without one is reported.  A task's records are freed
//   once it is done and nothing more is to be judged about it.  The blocks of one SPMD task run
//   concurrently and are compared with each other the same way.
// * A declared write that covers an earlier access of a task done or a direct producer of it
//   replaces that access in the per-buffer lists (a chain costs one scan step per task) and
//   keeps it beneath it: a later task not ordered after the write is also compared with the
//   accesses the write covers.
// Cost: one scan step per live overlapping declared access at submission and one record
// comparison per candidate, so a program whose tasks all declare one whole tensor pays per pair
// of its unordered live tasks (bench/run.py, race_pipeline_* rows).
// Knows nothing about rings or threads: sim_orchestration.hpp and sim_scheduler.hpp call it
// with the device lock held.
#pragma once

#include <memory>
#include <set>

#include "sim_common.hpp"
#include "sim_tensormap.hpp"

namespace {

constexpr size_t kMaxRaces = 256;

// One global-memory access of a kernel (pto_cpu_note_gm_rows): `rows` spans of `len` bytes,
// the first at `a`, each `stride` bytes after the previous.
struct RaceTouch {
    uint64_t a, stride, len;
    uint32_t rows;
    uint8_t kind;  // 0 read, 1 write, 2 atomic add
    int32_t block;
};

using RaceSpans = std::vector<std::pair<uint64_t, uint64_t>>;  // sorted, merged [a, e)

// A task's touched bytes by kind (built when a candidate pair needs them).
struct RaceBytes {
    RaceSpans rd, wr, at;
};

// One declared access: tensor arg `arg` of submission `seq`.
struct RaceAccess {
    uint64_t seq;
    uint32_t arg;
    bool write, read, untracked;
    bool nested;                          // reg's window is nested in its strides: coords hold its origin
    TMEntry reg;
    uint64_t coords[CHIP_TENSOR_MAX_DIMS];
    std::vector<uint32_t> covered;        // accesses this write replaced in the lists (indices into pool)
};

// overlaps(a.reg, e.reg) with the window coordinates computed once per access.
bool race_overlaps(const RaceAccess& a, const RaceAccess& e) {
    const TMEntry &x = a.reg, &y = e.reg;
    if (x.end <= y.start || y.end <= x.start || x.start == x.end || y.start == y.end) return false;
    if (a.nested && e.nested && same_strides(x, y)) {
        for (uint32_t i = 0; i < x.ndims; ++i)
            if (a.coords[i] + x.shapes[i] <= e.coords[i] || e.coords[i] + y.shapes[i] <= a.coords[i]) return false;
    }
    return true;
}

// A tensor argument of a checked task as the candidates need it.
struct RaceArg {
    uint64_t buffer, lo, hi;  // its buffer and the bytes its region spans (absolute)
    DataType dtype;
    bool untracked;
};

struct RaceBuffer {
    std::vector<uint32_t> reads, writes;  // indices into RaceState::pool
};

struct RaceScope {
    bool checked = false, manual = false;
};

// A pair the declared regions flag (kept by the later task b): judged on touched bytes when both
// tasks are done.
struct RaceCand {
    uint64_t a;
    uint8_t arg_a, arg_b;
    uint8_t manual;           // bit 0: in a MANUAL scope; bits 1-2: PtoSimRace.manual's nesting bits
};

// What the checker keeps of a checked task until it is done and its candidates are judged.
struct RaceDetail {
    std::vector<RaceArg> args;    // its tensor arguments
    std::vector<RaceTouch> touch;
    std::unique_ptr<RaceBytes> bytes;
    std::vector<RaceCand> cands;  // earlier tasks this one may race with (not judged yet)
    uint32_t refs = 0;            // candidates of later tasks naming this one, not judged yet
};

struct RaceState {
    int mode = 0;
    bool ended = false;
    std::vector<RaceScope> scopes;        // open scopes, outermost (the orchestration) first
    std::vector<int32_t> site, func;      // per submission number
    std::vector<uint16_t> depth;          // scope depth at submission
    std::vector<uint8_t> done;            // per submission number: completed
    std::vector<uint64_t> done_at;        // per submission number: how many submissions there were when it
                                          // completed (UINT64_MAX: not yet)
    std::vector<uint64_t> pred_off{0};    // producers of seq s: preds[pred_off[s] .. pred_off[s+1])
    std::vector<uint64_t> preds;
    std::vector<uint32_t> stamp;          // DFS marks per submission number
    uint32_t cur_stamp = 0;
    std::vector<uint64_t> dfs;            // race_reaches' stack
    std::vector<uint64_t> ord_stamp;      // per submission: the submission whose ordering verdict ...
    std::vector<uint8_t> ord_val;         // ... is cached here (race_submit)
    std::vector<RaceAccess> pool;         // the declared accesses of checked tasks still needed
    std::vector<uint32_t> free_ids;       // slots of pool no longer needed
    std::unordered_map<uint64_t, RaceBuffer> bufs;        // buffer address -> its live accesses
    std::vector<std::unique_ptr<RaceDetail>> detail;      // per submission: a checked task not yet forgotten
    std::vector<uint64_t> with_cands;     // checked tasks that were given candidates
    std::vector<PtoSimRace> races;
    uint64_t found = 0;
    std::set<std::pair<uint64_t, uint64_t>> reported;  // task pairs already reported
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
    std::vector<uint64_t>& stack = s.dfs;
    stack.assign(1, to);
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

// Is submission `a` ordered before submission `b` (> a)?  Done when b was submitted, or a path.
// Verdicts are cached for the submission being made (b = the newest one).
bool race_ordered(RaceState& s, uint64_t a, uint64_t b) {
    if (s.done[a]) return true;
    const uint64_t key = b + 1;
    if (s.ord_stamp[a] == key) return s.ord_val[a] != 0;
    const bool v = race_reaches(s, a, b);
    s.ord_stamp[a] = key;
    s.ord_val[a] = v;
    return v;
}

// Is submission `seq` (just submitted) in a checked scope?
bool race_checked_now(const RaceState& s) { return s.mode && s.scopes.back().checked; }

// ---------------------------------------------------------------------------
// touched bytes
// ---------------------------------------------------------------------------

void race_sort_merge(RaceSpans& v) {
    std::sort(v.begin(), v.end());
    size_t w = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        if (w && v[i].first <= v[w - 1].second) v[w - 1].second = std::max(v[w - 1].second, v[i].second);
        else v[w++] = v[i];
    }
    v.resize(w);
}

// Append the spans of `t` to `out` (one when its rows are contiguous).
void race_expand(const RaceTouch& t, RaceSpans& out) {
    if (t.rows <= 1 || t.stride == t.len) {
        out.emplace_back(t.a, t.a + t.len * std::max<uint32_t>(t.rows, 1));
        return;
    }
    for (uint32_t r = 0; r < t.rows; ++r) out.emplace_back(t.a + r * t.stride, t.a + r * t.stride + t.len);
}

RaceBytes* race_bytes(RaceDetail& d) {
    if (!d.bytes) {
        d.bytes.reset(new RaceBytes());
        RaceSpans* by_kind[3] = {&d.bytes->rd, &d.bytes->wr, &d.bytes->at};
        for (const RaceTouch& t : d.touch) race_expand(t, *by_kind[t.kind < 3 ? t.kind : 1]);
        for (RaceSpans* v : by_kind) race_sort_merge(*v);
    }
    return d.bytes.get();
}

// The first overlap of x and y inside [lo, hi): true and [*a, *e).
bool race_meet(const RaceSpans& x, const RaceSpans& y, uint64_t lo, uint64_t hi, uint64_t* a, uint64_t* e) {
    auto i = std::lower_bound(x.begin(), x.end(), std::make_pair(lo, (uint64_t)0));
    if (i != x.begin() && std::prev(i)->second > lo) --i;
    auto j = std::lower_bound(y.begin(), y.end(), std::make_pair(lo, (uint64_t)0));
    if (j != y.begin() && std::prev(j)->second > lo) --j;
    while (i != x.end() && j != y.end()) {
        const uint64_t s = std::max({i->first, j->first, lo}), f = std::min({i->second, j->second, hi});
        if (s >= hi) return false;
        if (s < f) {
            *a = s;
            *e = f;
            return true;
        }
        if (i->second < j->second) ++i;
        else ++j;
    }
    return false;
}

// First report of the pair of tasks (a, b)?  Marks it.
bool race_once(RaceState& s, uint64_t a, uint64_t b) { return s.reported.insert({a, b}).second; }

void race_push(RaceState& s, PtoSimRace& x) {
    ++s.found;
    if (s.races.size() < kMaxRaces) s.races.push_back(x);
}

// The first byte range x and y both touch, or false.  Two records of rows with one stride (the
// tiles of one tensor) are compared as rectangles; anything else through the merged spans of
// the two tasks (race_bytes, built once per task).
bool race_rows_meet(const RaceTouch& x, const RaceTouch& y, uint64_t* a, uint64_t* e, bool* exact) {
    const uint64_t xe = x.a + (uint64_t)(x.rows - 1) * x.stride + x.len, ye = y.a + (uint64_t)(y.rows - 1) * y.stride + y.len;
    *exact = true;
    if (xe <= y.a || ye <= x.a) return false;                 // bounding spans apart
    if (x.rows == 1 && y.rows == 1) {
        *a = std::max(x.a, y.a);
        *e = std::min(xe, ye);
        return true;
    }
    const uint64_t st = x.rows > 1 ? x.stride : y.stride;
    if ((x.rows > 1 && x.stride != st) || (y.rows > 1 && y.stride != st) || x.len > st || y.len > st) {
        *exact = false;
        return false;
    }
    const uint64_t base = std::min(x.a, y.a);
    const uint64_t xr = (x.a - base) / st, xc = (x.a - base) % st, yr = (y.a - base) / st, yc = (y.a - base) % st;
    if (xc + x.len > st || yc + y.len > st) {                 // a row wraps: no rectangle
        *exact = false;
        return false;
    }
    const uint64_t r0 = std::max(xr, yr), r1 = std::min(xr + x.rows, yr + y.rows);
    const uint64_t c0 = std::max(xc, yc), c1 = std::min(xc + x.len, yc + y.len);
    if (r0 >= r1 || c0 >= c1) return false;
    *a = base + r0 * st + c0;
    *e = base + r0 * st + c1;
    return true;
}

// (earlier side's kind, later side's kind) -> RAW 0, WAR 1, WAW 2, or -1: no conflict (two
// reads, two atomic adds).
int race_kind(uint8_t ka, uint8_t kb) {
    if ((ka == 0 && kb == 0) || (ka == 2 && kb == 2)) return -1;
    return ka == 0 ? 1 : kb == 0 ? 0 : 2;
}

// Candidate c of task b, both done: report a conflict of their touched bytes inside the bytes
// both arguments declared.
void race_judge(RaceState& s, uint64_t b, const RaceCand& c) {
    RaceDetail* da = s.detail[c.a].get();
    RaceDetail* db = s.detail[b].get();
    if (!da || !db || c.arg_a >= da->args.size() || c.arg_b >= db->args.size()) return;
    const RaceArg &ga = da->args[c.arg_a], &gb = db->args[c.arg_b];
    const uint64_t clo = std::max(ga.lo, gb.lo), chi = std::min(ga.hi, gb.hi);   // the bytes both declared
    int kind = -1;
    uint64_t lo = 0, hi = 0;
    bool slow = false;
    auto inside = [clo, chi](const RaceTouch& t) {   // the record's bounding span meets [clo, chi)
        return t.a < chi && t.a + (uint64_t)(t.rows - 1) * t.stride + t.len > clo;
    };
    for (const RaceTouch& x : da->touch) {
        if (!inside(x)) continue;
        for (const RaceTouch& y : db->touch) {
            const int k = race_kind(x.kind, y.kind);
            if (k < 0 || !inside(y)) continue;
            uint64_t ma, me;
            bool exact;
            if (race_rows_meet(x, y, &ma, &me, &exact)) {
                if (ma >= clo && me <= chi) {
                    if (kind < 0 || ma < lo) kind = k, lo = ma, hi = me;
                } else {
                    slow = true;   // the meeting bytes found are outside this candidate's range
                }
            } else if (!exact) {
                slow = true;
            }
        }
    }
    if (kind < 0 && slow) {   // expanded spans, restricted to [clo, chi)
        const RaceBytes &A = *race_bytes(*da), &B = *race_bytes(*db);
        const struct { const RaceSpans *x, *y; int kind; } tests[] = {
            {&A.wr, &B.rd, 0}, {&A.at, &B.rd, 0}, {&A.rd, &B.wr, 1}, {&A.rd, &B.at, 1},
            {&A.wr, &B.wr, 2}, {&A.wr, &B.at, 2}, {&A.at, &B.wr, 2}};
        for (const auto& t : tests) {
            uint64_t ma, me;
            if (race_meet(*t.x, *t.y, clo, chi, &ma, &me) && (kind < 0 || ma < lo)) kind = t.kind, lo = ma, hi = me;
        }
    }
    if (kind < 0) return;
    // a conflict: a race unless a was done when b was submitted, or a path of edges leads to b
    if (s.done_at[c.a] <= b || race_reaches(s, c.a, b) || !race_once(s, c.a, b)) return;
    const uint64_t es = std::max<uint64_t>(get_element_size(gb.dtype), 1);
    PtoSimRace x;
    memset(&x, 0, sizeof x);
    x.seq_a = c.a;
    x.seq_b = b;
    x.site_a = s.site[c.a];
    x.site_b = s.site[b];
    x.func_a = s.func[c.a];
    x.func_b = s.func[b];
    x.arg_a = c.arg_a;
    x.arg_b = c.arg_b;
    x.kind = kind;
    x.manual = c.manual;
    x.buffer = gb.buffer;
    x.lo = (lo - gb.buffer) / es;
    x.hi = (hi - gb.buffer + es - 1) / es;
    x.dtype = (uint32_t)gb.dtype;
    x.untracked = (ga.untracked || gb.untracked) ? 1 : 0;
    x.block_a = x.block_b = -1;
    race_push(s, x);
}

// The blocks of SPMD task `seq` are done: two blocks whose accesses overlap, at least one
// writing (not both atomic adds), race (blocks of one task are never ordered).  One report.
void race_check_blocks(RaceState& s, uint64_t seq, const std::vector<RaceTouch>& touch,
                       const std::vector<ChipTensor>& args, const uint8_t* kinds, bool manual) {
    struct Span {
        uint64_t a, e;
        int32_t block;
        uint8_t kind;
    };
    std::vector<Span> spans;
    RaceSpans tmp;
    for (const RaceTouch& t : touch) {
        tmp.clear();
        race_expand(t, tmp);
        for (auto& p : tmp) spans.push_back(Span{p.first, p.second, t.block, t.kind});
    }
    std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) {
        return x.a != y.a ? x.a < y.a : x.block != y.block ? x.block < y.block : x.kind > y.kind;
    });
    for (size_t i = 0; i < spans.size(); ++i) {
        for (size_t j = i + 1; j < spans.size() && spans[j].a < spans[i].e; ++j) {
            const Span &p = spans[i], &q = spans[j];
            if (p.block == q.block || (p.kind == 0 && q.kind == 0) || (p.kind == 2 && q.kind == 2)) continue;
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
            const Span& first = p.block < q.block ? p : q;
            const Span& second = p.block < q.block ? q : p;
            const ChipTensor& t = args.empty() ? ChipTensor{} : args[arg];
            const uint64_t es = args.empty() ? 1 : std::max<uint64_t>(t.element_size(), 1);
            PtoSimRace x;
            memset(&x, 0, sizeof x);
            x.seq_a = x.seq_b = seq;
            x.site_a = x.site_b = seq < s.site.size() ? s.site[seq] : -1;
            x.func_a = x.func_b = seq < s.func.size() ? s.func[seq] : -1;
            x.arg_a = x.arg_b = arg;
            x.kind = first.kind ? (second.kind ? 2 : 0) : 1;
            x.manual = manual ? 1 : 0;
            x.buffer = t.buffer.addr;
            x.lo = (lo - t.buffer.addr) / es;
            x.hi = (hi - t.buffer.addr + es - 1) / es;
            x.dtype = (uint32_t)t.dtype;
            x.untracked = (!args.empty() && (t.manual_dep || (PTO2ArgKind)kinds[arg] == PTO2ArgKind::NO_DEP)) ? 1 : 0;
            x.block_a = first.block;
            x.block_b = second.block;
            race_push(s, x);
            return;
        }
    }
}

// Forget a done task once nothing more is to be judged about it.
void race_forget(RaceState& s, uint64_t seq) {
    RaceDetail* d = s.detail[seq].get();
    if (d && s.done[seq] && d->refs == 0 && d->cands.empty()) s.detail[seq].reset();
}

// Judge the candidates of task b whose earlier task is done (all of them at the end of the run).
void race_judge_ready(RaceState& s, uint64_t b) {
    RaceDetail* d = s.detail[b].get();
    if (!d) return;
    size_t w = 0;
    for (size_t i = 0; i < d->cands.size(); ++i) {
        const RaceCand& c = d->cands[i];
        if (!s.done[c.a]) {
            d->cands[w++] = c;
            continue;
        }
        race_judge(s, b, c);
        if (RaceDetail* da = s.detail[c.a].get()) {
            --da->refs;
            race_forget(s, c.a);
        }
    }
    d->cands.resize(w);
    race_forget(s, b);
}

// Task `seq` completed (ran, or was skipped): `touch` is what its blocks touched (moved from the
// task).  Compares its blocks (SPMD), then judges its candidates whose earlier task is done; the
// others are judged at the end of the run.
void race_task_done(RaceState& s, uint64_t seq, std::vector<RaceTouch>& touch, int32_t block_num,
                    const std::vector<ChipTensor>& args, const uint8_t* kinds, bool manual) {
    if (!s.mode || seq >= s.done.size()) return;
    s.done[seq] = 1;
    s.done_at[seq] = s.site.size();
    RaceDetail* d = s.detail[seq].get();
    if (!d) return;
    d->touch.swap(touch);
    touch.clear();
    if (block_num > 1) race_check_blocks(s, seq, d->touch, args, kinds, manual);
    race_judge_ready(s, seq);
}

// ---------------------------------------------------------------------------
// submissions
// ---------------------------------------------------------------------------

// Access `i` of a done task is no longer needed, nor the ones it covers (done before it).
void race_free(RaceState& s, uint32_t i) {
    std::vector<uint32_t> stack{i};
    while (!stack.empty()) {
        const uint32_t j = stack.back();
        stack.pop_back();
        RaceAccess& e = s.pool[j];
        stack.insert(stack.end(), e.covered.begin(), e.covered.end());
        std::vector<uint32_t>().swap(e.covered);
        s.free_ids.push_back(j);
    }
}

uint32_t race_alloc(RaceState& s, RaceAccess&& a) {
    if (s.free_ids.empty()) {
        s.pool.push_back(std::move(a));
        return (uint32_t)s.pool.size() - 1;
    }
    const uint32_t i = s.free_ids.back();
    s.free_ids.pop_back();
    s.pool[i] = std::move(a);
    return i;
}

// Submission `seq` (site, kernel, its producers' submission numbers, its tensor args as
// committed: runtime-created outputs have their addresses).
void race_submit(RaceState& s, uint64_t seq, int32_t site, int32_t func, const std::vector<uint64_t>& prod_seqs,
                 const ChipTensor* tensors, const uint8_t* kinds, uint32_t nt, uint32_t nodep_read_only) {
    if (!s.mode) return;
    if (s.site.size() <= seq) {
        s.site.resize(seq + 1, -1);
        s.func.resize(seq + 1, -1);
        s.depth.resize(seq + 1, 0);
        s.done.resize(seq + 1, 0);
        s.done_at.resize(seq + 1, UINT64_MAX);
        s.stamp.resize(seq + 1, 0);
        s.ord_stamp.resize(seq + 1, 0);
        s.ord_val.resize(seq + 1, 0);
        s.detail.resize(seq + 1);
        s.pred_off.resize(seq + 2, s.pred_off.back());
    }
    s.site[seq] = site;
    s.func[seq] = func;
    s.depth[seq] = (uint16_t)s.scopes.size();
    for (uint64_t p : prod_seqs) s.preds.push_back(p);
    s.pred_off[seq + 1] = s.preds.size();
    const RaceScope& sc = s.scopes.back();
    if (!sc.checked) return;
    s.detail[seq].reset(new RaceDetail());
    RaceDetail& det = *s.detail[seq];
    nt = std::min<uint32_t>(nt, CORE_MAX_TENSOR_ARGS);
    auto ordered = [&](uint64_t e) { return race_ordered(s, e, seq); };
    auto direct = [&](uint64_t e) {   // done, or a producer of this task: cheap verdicts
        if (s.done[e]) return true;
        for (uint64_t i = s.pred_off[seq]; i < s.pred_off[seq + 1]; ++i)
            if (s.preds[i] == e) return true;
        return false;
    };
    std::vector<uint32_t> stack;
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
        a.nested = coords_of(a.reg, a.coords);
        const uint64_t es = t.element_size();
        det.args.push_back(RaceArg{t.buffer.addr, t.buffer.addr + a.reg.start * es, t.buffer.addr + a.reg.end * es,
                                   t.dtype, a.untracked});
        auto it = s.bufs.find(t.buffer.addr);
        if (it == s.bufs.end()) continue;
        // e (and what it covers, all ordered before it) against a
        stack.clear();
        auto visit = [&](std::vector<uint32_t>& v) {
            size_t w = 0;
            for (size_t j = 0; j < v.size(); ++j) {
                if (s.done[s.pool[v[j]].seq]) {   // done: ordered before every later task
                    race_free(s, v[j]);
                    continue;
                }
                v[w++] = v[j];
                stack.push_back(v[j]);
            }
            v.resize(w);
        };
        visit(it->second.writes);
        if (a.write) visit(it->second.reads);
        while (!stack.empty()) {
            const uint32_t ei = stack.back();
            stack.pop_back();
            const RaceAccess& e = s.pool[ei];
            // the order of the pair is asked here only to prune what e covers; a candidate's order is
            // judged when its touched bytes conflict
            if (e.seq == seq || !race_overlaps(a, e) || direct(e.seq) || (!e.covered.empty() && ordered(e.seq)))
                continue;
            if (e.write || a.write) {
                const int nest = s.depth[e.seq] < s.depth[seq] ? 1 : s.depth[e.seq] > s.depth[seq] ? 2 : 0;
                if (det.cands.empty()) s.with_cands.push_back(seq);
                det.cands.push_back(RaceCand{e.seq, (uint8_t)e.arg, (uint8_t)i, (uint8_t)((sc.manual ? 1 : 0) | nest << 1)});
                ++s.detail[e.seq]->refs;
            }
            for (uint32_t ci : e.covered) stack.push_back(ci);
        }
    }
    for (uint32_t i = 0; i < nt; ++i) {
        RaceAccess& a = acc[i];
        RaceBuffer& b = s.bufs[tensors[i].buffer.addr];
        if (a.write) {
            auto drop = [&](std::vector<uint32_t>& v) {
                size_t w = 0;
                for (size_t j = 0; j < v.size(); ++j) {
                    const RaceAccess& e = s.pool[v[j]];
                    if (e.seq != seq && covers(a.reg, e.reg) && direct(e.seq)) {
                        if (s.done[e.seq]) race_free(s, v[j]);
                        else a.covered.push_back(v[j]);
                    } else {
                        v[w++] = v[j];
                    }
                }
                v.resize(w);
            };
            drop(b.writes);
            drop(b.reads);
            b.writes.push_back(race_alloc(s, std::move(a)));
        } else {
            b.reads.push_back(race_alloc(s, std::move(a)));
        }
    }
}

// The run is over: judge what is left, then the reports in submission order (they were found as
// tasks completed).  Once per run.
void race_end_run(RaceState& s) {
    if (s.ended) return;
    s.ended = true;
    for (uint64_t b : s.with_cands)
        if (b < s.done.size() && s.done[b]) race_judge_ready(s, b);
    std::sort(s.races.begin(), s.races.end(), [](const PtoSimRace& x, const PtoSimRace& y) {
        return x.seq_a != y.seq_a ? x.seq_a < y.seq_a : x.seq_b != y.seq_b ? x.seq_b < y.seq_b : x.block_a < y.block_a;
    });
}

}  // namespace
