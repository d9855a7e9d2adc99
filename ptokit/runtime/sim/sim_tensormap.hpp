// sim_tensormap.hpp -- dependency discovery (part of the single translation unit
// ptosim.cpp; not a public header).
//
// Owns: the TensorMap, i.e. for every GM buffer the regions last written by tasks that
// have not retired yet, and the region geometry (element windows with nested strides)
// that decides whether a read overlaps a write and whether a new write fully covers an
// older one.  It knows nothing about rings: whether a writer is still live is asked
// through the `live` predicate (sim_run.hpp binds it to the task rings).
#pragma once

#include "sim_common.hpp"

namespace {

struct TMEntry {
    uint64_t writer;
    uint64_t start, end;  // element range [start, end) relative to the buffer
    uint32_t ndims;
    uint32_t shapes[CHIP_TENSOR_MAX_DIMS];
    uint32_t strides[CHIP_TENSOR_MAX_DIMS];
    bool contiguous;
};

// buffer address -> write regions of writers that may still be live
using TensorMap = std::unordered_map<uint64_t, std::vector<TMEntry>>;

TMEntry region_of(const ChipTensor& t, uint64_t writer) {
    TMEntry e;
    e.writer = writer;
    e.ndims = std::min<uint32_t>(t.ndims, CHIP_TENSOR_MAX_DIMS);
    for (uint32_t i = 0; i < (uint32_t)CHIP_TENSOR_MAX_DIMS; ++i) {
        e.shapes[i] = i < e.ndims ? t.shapes[i] : 1;
        e.strides[i] = i < e.ndims ? t.strides[i] : 0;
    }
    e.start = t.start_offset;
    uint64_t ext = t.extent_elems();
    e.end = e.start + ext;
    e.contiguous = ext == t.numel();
    return e;
}

// Per-dimension coordinates of a window's origin under nested strides; false if not nested.
bool coords_of(const TMEntry& e, uint64_t* c) {
    uint64_t rem = e.start;
    for (uint32_t i = 0; i < e.ndims; ++i) {
        if (e.strides[i] == 0) return false;
        if (i > 0 && (e.strides[i - 1] % e.strides[i] != 0)) return false;
        c[i] = rem / e.strides[i];
        rem -= c[i] * e.strides[i];
        if (i > 0 && c[i] + e.shapes[i] > e.strides[i - 1] / e.strides[i]) return false;
    }
    return rem == 0;
}

bool same_strides(const TMEntry& a, const TMEntry& b) {
    if (a.ndims != b.ndims) return false;
    for (uint32_t i = 0; i < a.ndims; ++i)
        if (a.strides[i] != b.strides[i]) return false;
    return true;
}

bool overlaps(const TMEntry& a, const TMEntry& b) {
    if (a.end <= b.start || b.end <= a.start) return false;
    if (a.start == a.end || b.start == b.end) return false;
    if (same_strides(a, b)) {
        uint64_t ca[CHIP_TENSOR_MAX_DIMS], cb[CHIP_TENSOR_MAX_DIMS];
        if (coords_of(a, ca) && coords_of(b, cb)) {
            for (uint32_t i = 0; i < a.ndims; ++i)
                if (ca[i] + a.shapes[i] <= cb[i] || cb[i] + b.shapes[i] <= ca[i]) return false;
            return true;
        }
    }
    return true;
}

// Does the new write region `w` fully cover entry `e`?
bool covers(const TMEntry& w, const TMEntry& e) {
    if (w.contiguous) return w.start <= e.start && e.end <= w.end;
    if (same_strides(w, e)) {
        uint64_t cw[CHIP_TENSOR_MAX_DIMS], ce[CHIP_TENSOR_MAX_DIMS];
        if (coords_of(w, cw) && coords_of(e, ce)) {
            for (uint32_t i = 0; i < w.ndims; ++i)
                if (ce[i] < cw[i] || ce[i] + e.shapes[i] > cw[i] + w.shapes[i]) return false;
            return true;
        }
    }
    return false;
}

// Writers of regions overlapping `t` that are still live (`live(writer)`); prunes the
// entries of writers that are not.
// `use(writer)`: whether a live overlapping writer becomes a producer (MANUAL scopes).
template <typename Live, typename Use>
void tensormap_lookup(TensorMap& tm, const ChipTensor& t, Live live, std::vector<uint64_t>& out, Use use) {
    auto it = tm.find(t.buffer.addr);
    if (it == tm.end()) return;
    TMEntry q = region_of(t, 0);
    auto& v = it->second;
    size_t w = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        if (!live(v[i].writer)) continue;  // retired writer: its entry is stale, drop it
        if (overlaps(q, v[i]) && use(v[i].writer)) add_unique(out, v[i].writer);
        v[w++] = v[i];
    }
    v.resize(w);
    if (v.empty()) tm.erase(it);
}

// Record `writer` as the last writer of `t`'s region; drops entries it fully covers.
void tensormap_register(TensorMap& tm, const ChipTensor& t, uint64_t writer) {
    auto& v = tm[t.buffer.addr];
    TMEntry e = region_of(t, writer);
    size_t w = 0;
    for (size_t i = 0; i < v.size(); ++i)
        if (!covers(e, v[i])) v[w++] = v[i];
    v.resize(w);
    v.push_back(e);
}

}  // namespace
