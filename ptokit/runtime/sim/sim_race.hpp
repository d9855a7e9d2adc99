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
// * Happens-before in O(1): at submission each task gets the set of its ancestors that were
//   still running then, as a bitset over submission numbers (the union of its producers' sets
//   and the producers themselves; submission order is a topological order, and a path from a
//   running task only passes through running tasks).  "a before b" is "a was done when b was
//   submitted, or bit a of b's set".  Sets are kept only from the first checked task on, and
//   freed once nothing can ask about them.
// * The touched bytes: the tile library reports every global access of a checked task (mode 1:
//   in a MANUAL scope or a scope nested in one; mode 2: every task) as rows of bytes
//   (pto_cpu_note_gm_rows, kind read / write / atomic add).  When a task completes, its
//   records become rectangles of per-buffer planes (the buffer as rows of the row pitch of the
//   first argument that declared it: a tile of rows of that pitch is one rectangle, a contiguous
//   span at most three, anything else one per row -- always exact), and go into the plane's
//   disjoint column segments, each with disjoint row segments holding the live accesses that
//   covered all of it.  Only the segments the task's rectangles meet are visited, so tasks that
//   share one tensor but touch different tiles never meet (near-linear in the rectangles
//   touched, whatever the declared regions).  Each access met that conflicts (one side
//   writing; two atomic adds do not) and is not ordered with the task is a race; an access
//   ordered before it that it supersedes (a write supersedes anything, a read a read, an atomic
//   add an atomic add) leaves the segment: a later task not ordered after the newer access is
//   reported against it (the nearest of the two), one not ordered after the older one is then
//   not ordered after the newer one either.
// * The declared regions say which arguments a conflict is about: its bytes must lie in the
//   region both arguments declared, the regions must overlap, one side declaring a write.  They
//   no longer pick the pairs (with every task declaring one whole tensor they cannot).
// * A completed task's accesses are forgotten once every checked task submitted before it
//   completed has completed too: any task after that is ordered after it.
// * The blocks of one SPMD task run concurrently and are compared with each other.
// Cost: per task, a few map steps per rectangle and segment plus one O(1) order query per
// live access met (bench/run.py, race_pipeline_* rows: 128 to 2048 tasks sharing one tensor).
// Knows nothing about rings or threads: sim_orchestration.hpp and sim_scheduler.hpp call it
// with the device lock held.
#pragma once

#include <deque>
#include <map>
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

using RaceSpans = std::vector<std::pair<uint64_t, uint64_t>>;  // [a, e)

// One declared tensor argument of a checked task.
struct RaceDecl {
    uint64_t buffer, lo, hi;              // its buffer and the bytes its region spans (absolute)
    DataType dtype;
    bool write, read, untracked;
    bool nested;                          // reg's window is nested in its strides: coords hold its origin
    TMEntry reg;
    uint64_t coords[CHIP_TENSOR_MAX_DIMS];
};

// overlaps(a.reg, e.reg) with the window coordinates computed once per argument.
bool race_overlaps(const RaceDecl& a, const RaceDecl& e) {
    const TMEntry &x = a.reg, &y = e.reg;
    if (x.end <= y.start || y.end <= x.start || x.start == x.end || y.start == y.end) return false;
    if (a.nested && e.nested && same_strides(x, y)) {
        for (uint32_t i = 0; i < x.ndims; ++i)
            if (a.coords[i] + x.shapes[i] <= e.coords[i] || e.coords[i] + y.shapes[i] <= a.coords[i]) return false;
    }
    return true;
}

struct RaceScope {
    bool checked = false, manual = false;
};


// A live access in the shadow map.
struct RaceEnt {
    uint64_t seq;
    uint8_t kind;
    bool operator==(const RaceEnt& o) const { return seq == o.seq && kind == o.kind; }
};

// A row segment [key, e) of one column segment: the live accesses that covered all of it.
struct RaceSeg {
    uint64_t e;
    std::vector<RaceEnt> ents;
};

// A column segment [key, e) of a plane (bytes within a row): its rows, segmented.
struct RaceCol {
    uint64_t e;
    std::map<uint64_t, RaceSeg> rows;
};

// One buffer seen as rows of `pitch` bytes (the row pitch of the first declared argument that
// named it; 0: one row).  Any access is exact in it: a tile of rows of that pitch is one
// rectangle, a contiguous span at most three, anything else a rectangle per row.
struct RacePlane {
    uint64_t pitch = 0;
    std::map<uint64_t, RaceCol> cols;
};

// A rectangle of a plane: rows [r0, r1), bytes [c0, c1) of each row.
struct RaceRect {
    uint64_t buffer, r0, r1, c0, c1;
    uint8_t kind;
};

// A conflict met while a task's rectangles went into the planes (the task is the other side).
struct RaceHit {
    uint64_t other;
    uint8_t kind_other, kind_self;
    uint64_t lo, hi;   // absolute bytes: the first row of the segment where they met
};

// What the checker keeps of a checked task until it is forgotten.
struct RaceDetail {
    std::vector<RaceDecl> args;   // its tensor arguments
    std::vector<RaceTouch> touch; // what its blocks touched (once it is done)
    std::vector<RaceRect> rects;  // ... as rectangles of the planes
};

struct RaceState {
    int mode = 0;
    bool ended = false;
    std::vector<RaceScope> scopes;        // open scopes, outermost (the orchestration) first
    std::vector<int32_t> site, func;      // per submission number
    std::vector<uint16_t> depth;          // scope depth at submission
    std::vector<uint8_t> manual;          // submitted in a MANUAL scope (or one nested in it)
    std::vector<uint8_t> done;            // per submission number: completed
    std::vector<uint64_t> done_at;        // per submission number: how many submissions there were when it
                                          // completed (UINT64_MAX: not yet)
    std::vector<std::unique_ptr<RaceDetail>> detail;      // per submission: a checked task not yet forgotten
    // happens-before: per submission, its ancestors running at its submission, bits from word anc_base
    std::vector<std::vector<uint64_t>> anc;
    std::vector<uint64_t> anc_base;
    uint64_t first_checked = UINT64_MAX;  // the first checked submission
    uint64_t low_all = 0;                 // every submission below it is done
    uint64_t low = 0;                     // every checked submission below it is done
    std::deque<uint64_t> done_q;          // checked tasks done, not yet forgotten, in completion order
    std::unordered_map<uint64_t, RacePlane> planes;   // buffer -> its live accesses
    std::vector<RaceHit> hits;            // scratch of race_index
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

// Is submission `a` ordered before submission `b` (> a)?  Done when b was submitted, or a path.
bool race_ordered(const RaceState& s, uint64_t a, uint64_t b) {
    if (s.done_at[a] <= b) return true;
    const std::vector<uint64_t>& v = s.anc[b];
    const uint64_t w = a / 64;
    if (w < s.anc_base[b]) return true;   // below b's window: done when b was submitted
    if (w >= s.anc_base[b] + v.size()) return false;
    return (v[w - s.anc_base[b]] >> (a % 64)) & 1;
}

// Is submission `seq` (just submitted) in a checked scope?
bool race_checked_now(const RaceState& s) { return s.mode && s.scopes.back().checked; }

// ---------------------------------------------------------------------------
// touched bytes
// ---------------------------------------------------------------------------

// Append the spans of `t` to `out` (one when its rows are contiguous).
void race_expand(const RaceTouch& t, RaceSpans& out) {
    if (t.rows <= 1 || t.stride == t.len) {
        out.emplace_back(t.a, t.a + t.len * std::max<uint32_t>(t.rows, 1));
        return;
    }
    for (uint32_t r = 0; r < t.rows; ++r) out.emplace_back(t.a + r * t.stride, t.a + r * t.stride + t.len);
}

// First report of the pair of tasks (a, b)?  Marks it.
bool race_once(RaceState& s, uint64_t a, uint64_t b) { return s.reported.insert({a, b}).second; }

void race_push(RaceState& s, PtoSimRace& x) {
    ++s.found;
    if (s.races.size() < kMaxRaces) s.races.push_back(x);
}

// (earlier side's kind, later side's kind) -> RAW 0, WAR 1, WAW 2, or -1: no conflict (two
// reads, two atomic adds).
int race_kind(uint8_t ka, uint8_t kb) {
    if ((ka == 0 && kb == 0) || (ka == 2 && kb == 2)) return -1;
    return ka == 0 ? 1 : kb == 0 ? 0 : 2;
}

// Does an access of kind `k` (ordered after one of kind `old`) make the older one redundant?
bool race_supersedes(uint8_t k, uint8_t old) { return k == 1 || k == old; }

// A segment boundary at `x` in a map of disjoint segments [key, e) (the one holding x is split).
template <typename Seg>
void race_split(std::map<uint64_t, Seg>& m, uint64_t x) {
    auto it = m.upper_bound(x);
    if (it == m.begin()) return;
    --it;
    if (it->first < x && x < it->second.e) {
        Seg tail = it->second;
        it->second.e = x;
        m.emplace_hint(std::next(it), x, std::move(tail));
    }
}

// Task `seq`'s access of kind k to segment `g` (first row's bytes [lo, hi)): conflicts against the
// live accesses there go to s.hits, superseded ordered ones leave, then the access joins.
void race_visit(RaceState& s, uint64_t seq, uint8_t k, uint64_t lo, uint64_t hi, RaceSeg& g) {
    std::vector<RaceEnt>& v = g.ents;
    bool have = false;
    size_t w = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const RaceEnt e = v[i];
        if (e.seq == seq) {   // its own: a write holds its reads and atomic adds
            if (e.kind == k || e.kind == 1) have = true;
            else if (k == 1) continue;
            v[w++] = e;
            continue;
        }
        const bool conflict = race_kind(e.kind, k) >= 0;
        const bool ordered = e.seq < seq && race_ordered(s, e.seq, seq);
        if (conflict && !ordered) s.hits.push_back(RaceHit{e.seq, e.kind, k, lo, hi});
        if (ordered && race_supersedes(k, e.kind)) continue;
        v[w++] = e;
    }
    v.resize(w);
    if (!have) v.push_back(RaceEnt{seq, k});
}

// Rows [r0, r1) of column segment [c0, col.e) of buffer `buf` (rows of `pitch` bytes), task
// `seq`, kind k.
void race_rows(RaceState& s, uint64_t buf, uint64_t pitch, uint64_t c0, RaceCol& col, uint64_t seq, uint8_t k,
               uint64_t r0, uint64_t r1) {
    std::map<uint64_t, RaceSeg>& m = col.rows;
    race_split(m, r0);
    race_split(m, r1);
    auto it = m.lower_bound(r0);
    uint64_t cur = r0;
    while (cur < r1) {
        if (it == m.end() || it->first > cur) {   // a gap: nothing live there
            const uint64_t e = it == m.end() ? r1 : std::min(r1, it->first);
            if (it != m.begin()) {   // extend the previous segment if it holds only this access
                auto p = std::prev(it);
                if (p->second.e == cur && p->second.ents.size() == 1 && p->second.ents[0] == RaceEnt{seq, k}) {
                    p->second.e = e;
                    cur = e;
                    continue;
                }
            }
            it = std::next(m.emplace_hint(it, cur, RaceSeg{e, {RaceEnt{seq, k}}}));
            cur = e;
            continue;
        }
        // the bytes they met: the segment's first row, or all its rows when they are whole
        const uint64_t lo = buf + cur * pitch + c0;
        const bool whole = !pitch || (c0 == 0 && col.e == pitch);
        race_visit(s, seq, k, lo, whole ? buf + it->second.e * pitch + (pitch ? 0 : col.e) : lo + (col.e - c0),
                   it->second);
        cur = it->second.e;
        ++it;
    }
}

// Rectangle `q` of task `seq` into its plane.
void race_insert(RaceState& s, uint64_t seq, const RaceRect& q) {
    RacePlane& pl = s.planes[q.buffer];
    std::map<uint64_t, RaceCol>& m = pl.cols;
    race_split(m, q.c0);
    race_split(m, q.c1);
    auto it = m.lower_bound(q.c0);
    uint64_t cur = q.c0;
    while (cur < q.c1) {
        if (it == m.end() || it->first > cur) {
            const uint64_t e = it == m.end() ? q.c1 : std::min(q.c1, it->first);
            it = m.emplace_hint(it, cur, RaceCol{e, {}});
        }
        race_rows(s, q.buffer, pl.pitch, it->first, it->second, seq, q.kind, q.r0, q.r1);
        cur = it->second.e;
        ++it;
    }
}

// Forget task `seq`'s accesses.
void race_unindex(RaceState& s, uint64_t seq, const std::vector<RaceRect>& rects) {
    auto mine = [seq](const RaceEnt& e) { return e.seq == seq; };
    for (const RaceRect& q : rects) {
        auto pi = s.planes.find(q.buffer);
        if (pi == s.planes.end()) continue;
        std::map<uint64_t, RaceCol>& m = pi->second.cols;
        auto it = m.upper_bound(q.c0);
        if (it != m.begin()) --it;
        while (it != m.end() && it->first < q.c1) {
            std::map<uint64_t, RaceSeg>& rows = it->second.rows;
            if (it->second.e > q.c0) {
                auto r = rows.upper_bound(q.r0);
                if (r != rows.begin()) --r;
                while (r != rows.end() && r->first < q.r1) {
                    std::vector<RaceEnt>& v = r->second.ents;
                    if (r->second.e > q.r0) v.erase(std::remove_if(v.begin(), v.end(), mine), v.end());
                    r = v.empty() ? rows.erase(r) : std::next(r);
                }
            }
            it = rows.empty() ? m.erase(it) : std::next(it);
        }
    }
}

// The plane of argument g's buffer (made with g's row pitch when new).
RacePlane& race_plane(RaceState& s, const RaceDecl& g) {
    auto it = s.planes.find(g.buffer);
    if (it != s.planes.end()) return it->second;
    RacePlane& pl = s.planes[g.buffer];
    const uint64_t es = std::max<uint64_t>(get_element_size(g.dtype), 1);
    const TMEntry& r = g.reg;
    pl.pitch = r.ndims >= 2 && r.strides[r.ndims - 1] == 1 ? r.strides[r.ndims - 2] * es : 0;
    return pl;
}

// The bytes [x, y) of buffer `buf` (offsets) as at most three rectangles of its plane.
void race_span_rects(uint64_t buf, uint64_t pitch, uint64_t x, uint64_t y, uint8_t kind, std::vector<RaceRect>& out) {
    if (x >= y) return;
    if (!pitch) {
        out.push_back(RaceRect{buf, 0, 1, x, y, kind});
        return;
    }
    uint64_t r0 = x / pitch;
    const uint64_t c0 = x % pitch, r1 = y / pitch, c1 = y % pitch;
    if (r0 == r1) {
        out.push_back(RaceRect{buf, r0, r0 + 1, c0, c1, kind});
        return;
    }
    if (c0) out.push_back(RaceRect{buf, r0, r0 + 1, c0, pitch, kind}), ++r0;
    if (r1 > r0) out.push_back(RaceRect{buf, r0, r1, 0, pitch, kind});
    if (c1) out.push_back(RaceRect{buf, r1, r1 + 1, 0, c1, kind});
}

// A task's records as rectangles of the planes of its declared arguments' buffers.  Bytes outside
// every region it declared are left out: a race is reported inside the regions both tasks declared.
void race_rects(RaceState& s, RaceDetail& d) {
    RaceSpans sp;
    for (const RaceTouch& t : d.touch) {
        const uint8_t k = t.kind < 3 ? t.kind : 1;
        const uint64_t end = t.a + (uint64_t)(std::max<uint32_t>(t.rows, 1) - 1) * t.stride + t.len;
        bool done = false;
        for (const RaceDecl& g : d.args) {   // the usual case: a tile of one argument in rows of its pitch
            if (g.lo > t.a || end > g.hi) continue;
            const RacePlane& pl = race_plane(s, g);
            const uint64_t off = t.a - g.buffer, p = pl.pitch;
            if (t.rows > 1 && t.len < t.stride && p && t.stride == p && off % p + t.len <= p) {
                d.rects.push_back(RaceRect{g.buffer, off / p, off / p + t.rows, off % p, off % p + t.len, k});
                done = true;
                break;
            }
        }
        if (done) continue;
        sp.clear();
        race_expand(t, sp);
        for (auto& q : sp) {
            for (const RaceDecl& g : d.args) {
                const uint64_t x = std::max(q.first, g.lo), y = std::min(q.second, g.hi);
                if (x < y) race_span_rects(g.buffer, race_plane(s, g).pitch, x - g.buffer, y - g.buffer, k, d.rects);
            }
        }
    }
}

// Report the races of task `seq` found in s.hits: per other task, the first conflict inside the
// region both of a pair of declared arguments span (the later task's arguments first).
void race_report_hits(RaceState& s, uint64_t seq) {
    std::sort(s.hits.begin(), s.hits.end(), [](const RaceHit& x, const RaceHit& y) {
        return x.other != y.other ? x.other < y.other : x.lo < y.lo;
    });
    for (size_t i = 0; i < s.hits.size();) {
        size_t j = i;
        while (j < s.hits.size() && s.hits[j].other == s.hits[i].other) ++j;
        const uint64_t o = s.hits[i].other;
        const uint64_t a = std::min(o, seq), b = std::max(o, seq);
        RaceDetail* da = s.detail[a].get();
        RaceDetail* db = s.detail[b].get();
        if (da && db && !s.reported.count({a, b})) {
            bool found = false;
            for (uint32_t ib = 0; ib < db->args.size() && !found; ++ib) {
                const RaceDecl& gb = db->args[ib];
                for (uint32_t ia = 0; ia < da->args.size() && !found; ++ia) {
                    const RaceDecl& ga = da->args[ia];
                    if (!(ga.write || gb.write) || !race_overlaps(ga, gb)) continue;
                    const uint64_t clo = std::max(ga.lo, gb.lo), chi = std::min(ga.hi, gb.hi);
                    for (size_t h = i; h < j; ++h) {
                        const RaceHit& x = s.hits[h];
                        uint64_t xhi = x.hi;   // with the hits that continue it
                        for (size_t m = h + 1; m < j && s.hits[m].lo <= xhi; ++m) xhi = std::max(xhi, s.hits[m].hi);
                        const uint64_t lo = std::max(x.lo, clo), hi = std::min(xhi, chi);
                        if (lo >= hi) continue;
                        const uint8_t ka = o == a ? x.kind_other : x.kind_self;
                        const uint8_t kb = o == a ? x.kind_self : x.kind_other;
                        const uint64_t es = std::max<uint64_t>(get_element_size(gb.dtype), 1);
                        PtoSimRace r;
                        memset(&r, 0, sizeof r);
                        r.seq_a = a;
                        r.seq_b = b;
                        r.site_a = s.site[a];
                        r.site_b = s.site[b];
                        r.func_a = s.func[a];
                        r.func_b = s.func[b];
                        r.arg_a = ia;
                        r.arg_b = ib;
                        r.kind = race_kind(ka, kb);
                        const int nest = s.depth[a] < s.depth[b] ? 1 : s.depth[a] > s.depth[b] ? 2 : 0;
                        r.manual = (s.manual[b] ? 1 : 0) | nest << 1;
                        r.buffer = gb.buffer;
                        r.lo = (lo - gb.buffer) / es;
                        r.hi = (hi - gb.buffer + es - 1) / es;
                        r.dtype = (uint32_t)gb.dtype;
                        r.untracked = (ga.untracked || gb.untracked) ? 1 : 0;
                        r.block_a = r.block_b = -1;
                        race_once(s, a, b);
                        race_push(s, r);
                        found = true;
                        break;
                    }
                }
            }
        }
        i = j;
    }
    s.hits.clear();
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

// Forget every checked task done whose accesses no task can race with any more: every checked
// task submitted before it completed is done.
void race_sweep(RaceState& s) {
    while (s.low < s.site.size() && (!s.detail[s.low] || s.done[s.low])) ++s.low;
    while (!s.done_q.empty() && s.done_at[s.done_q.front()] <= s.low) {
        const uint64_t q = s.done_q.front();
        s.done_q.pop_front();
        if (RaceDetail* d = s.detail[q].get()) race_unindex(s, q, d->rects);
        s.detail[q].reset();
        std::vector<uint64_t>().swap(s.anc[q]);
    }
}

// Task `seq` completed (ran, or was skipped): `touch` is what its blocks touched (moved from the
// task).  Compares its blocks (SPMD), then its rows with the live accesses of other tasks.
void race_task_done(RaceState& s, uint64_t seq, std::vector<RaceTouch>& touch, int32_t block_num,
                    const std::vector<ChipTensor>& args, const uint8_t* kinds, bool manual) {
    if (!s.mode || seq >= s.done.size()) return;
    s.done[seq] = 1;
    s.done_at[seq] = s.site.size();
    RaceDetail* d = s.detail[seq].get();
    if (!d) {   // not checked: its ancestor set was only for its successors, submitted by now or done
        std::vector<uint64_t>().swap(s.anc[seq]);
        return;
    }
    d->touch.swap(touch);
    touch.clear();
    if (block_num > 1) race_check_blocks(s, seq, d->touch, args, kinds, manual);
    race_rects(s, *d);
    for (const RaceRect& q : d->rects) race_insert(s, seq, q);
    std::vector<RaceTouch>().swap(d->touch);
    if (!s.hits.empty()) race_report_hits(s, seq);
    s.done_q.push_back(seq);
    race_sweep(s);
}

// ---------------------------------------------------------------------------
// submissions
// ---------------------------------------------------------------------------

// Submission `seq` (site, kernel, its producers' submission numbers, its tensor args as
// committed: runtime-created outputs have their addresses).
void race_submit(RaceState& s, uint64_t seq, int32_t site, int32_t func, const std::vector<uint64_t>& prod_seqs,
                 const ChipTensor* tensors, const uint8_t* kinds, uint32_t nt, uint32_t nodep_read_only) {
    if (!s.mode) return;
    if (s.site.size() <= seq) {
        s.site.resize(seq + 1, -1);
        s.func.resize(seq + 1, -1);
        s.depth.resize(seq + 1, 0);
        s.manual.resize(seq + 1, 0);
        s.done.resize(seq + 1, 0);
        s.done_at.resize(seq + 1, UINT64_MAX);
        s.detail.resize(seq + 1);
        s.anc.resize(seq + 1);
        s.anc_base.resize(seq + 1, 0);
    }
    s.site[seq] = site;
    s.func[seq] = func;
    s.depth[seq] = (uint16_t)s.scopes.size();
    const RaceScope& sc = s.scopes.back();
    s.manual[seq] = sc.manual;
    if (sc.checked && s.first_checked == UINT64_MAX) s.first_checked = seq;
    if (s.first_checked != UINT64_MAX) {   // its running ancestors (nothing before the first checked task)
        while (s.low_all < seq && s.done[s.low_all]) ++s.low_all;
        const uint64_t base = std::max(s.low_all, s.first_checked) / 64;
        std::vector<uint64_t>& v = s.anc[seq];
        v.assign(seq / 64 + 1 - base, 0);
        s.anc_base[seq] = base;
        for (uint64_t p : prod_seqs) {
            if (p >= seq || s.done[p] || p / 64 < base) continue;
            v[p / 64 - base] |= 1ull << (p % 64);
            const std::vector<uint64_t>& pv = s.anc[p];
            const uint64_t pb = s.anc_base[p];
            for (uint64_t w = std::max(base, pb); w < pb + pv.size() && w < base + v.size(); ++w) v[w - base] |= pv[w - pb];
        }
    }
    if (!sc.checked) return;
    s.detail[seq].reset(new RaceDetail());
    RaceDetail& det = *s.detail[seq];
    nt = std::min<uint32_t>(nt, CORE_MAX_TENSOR_ARGS);
    for (uint32_t i = 0; i < nt; ++i) {
        const ChipTensor& t = tensors[i];
        PTO2ArgKind k = (PTO2ArgKind)kinds[i];
        RaceDecl a;
        a.read = k == PTO2ArgKind::INPUT || k == PTO2ArgKind::INOUT || k == PTO2ArgKind::NO_DEP;
        a.write = k == PTO2ArgKind::OUTPUT || k == PTO2ArgKind::OUTPUT_EXISTING || k == PTO2ArgKind::INOUT ||
                  (k == PTO2ArgKind::NO_DEP && !(i < 32 && (nodep_read_only >> i & 1)));
        a.untracked = k == PTO2ArgKind::NO_DEP || t.manual_dep;
        a.reg = region_of(t, seq);
        a.nested = coords_of(a.reg, a.coords);
        const uint64_t es = t.element_size();
        a.buffer = t.buffer.addr;
        a.lo = t.buffer.addr + a.reg.start * es;
        a.hi = t.buffer.addr + a.reg.end * es;
        a.dtype = t.dtype;
        det.args.push_back(a);
    }
}

// The run is over: the reports in submission order (they were found as tasks completed).  Once
// per run.
void race_end_run(RaceState& s) {
    if (s.ended) return;
    s.ended = true;
    std::sort(s.races.begin(), s.races.end(), [](const PtoSimRace& x, const PtoSimRace& y) {
        return x.seq_a != y.seq_a ? x.seq_a < y.seq_a : x.seq_b != y.seq_b ? x.seq_b < y.seq_b : x.block_a < y.block_a;
    });
}

}  // namespace
