"""The SIMT anchor header written into ``platform="a5"`` compile-only artifact trees.

The a5 legacy launch path classifies the AIV dispatcher entry from the
``.ascend.meta`` records the device compiler emits, and the compiler only emits
``SIMD_SIMT_MIX_VF`` when it sees *both* kinds of vector-function use in the
entry itself.  The anchor puts them there without ever executing them:

* ``ptokit_simt_anchor`` is ``always_inline`` so its body lands in the entry
  (a call to an out-of-line helper would not be seen by the classifier);
* it holds one SIMT launch of a ``static`` vector function (internal linkage:
  no GLOBAL ``*_simt_entry`` symbol that would register as a second kernel) and
  one SIMD vector op (so the entry is MIX, not SIMT_VF_ONLY);
* both sit under ``if (*force_simt_anchor != 0)``, a value loaded from global
  memory that the host always leaves 0: the compiler cannot fold the branch
  away, and at run time it is never taken.

Under ``__CPU_SIM`` / ``__COSTMODEL`` the anchor compiles to nothing, so the same
kernel file still builds with g++.  The tree generator calls
:func:`write_anchor_header`; the AIV wrapper includes the header and calls
``PTOKIT_SIMT_ANCHOR(args)`` at the top of ``kernel_entry``.  Details and the
reasons behind each property: docs/launch-gate.md.
"""
from __future__ import annotations

import os
from pathlib import Path

ANCHOR_HEADER_NAME = "ptokit_simt_anchor.h"
# args[] slot carrying force_simt_anchor: the first slot after LocalContext (48) and
# GlobalContext (49); the host leaves it 0.
FORCE_SIMT_ANCHOR_SLOT = 50

ANCHOR_HEADER = f"""\
// ptokit SIMT anchor for the a5 AIV dispatcher entry (generated; see ptokit docs/launch-gate.md).
//
// Makes the device compiler classify the AIV entry as SIMD_SIMT_MIX_VF (AIV_TYPE_FLAG 4)
// by itself: one static SIMT launch + one SIMD vector op, always inlined into the entry,
// under a branch on force_simt_anchor, which is loaded from global memory and is always 0.
#pragma once
#include <cstdint>

#ifndef __gm__
#define __gm__
#endif

// Slot of the kernel args array that holds force_simt_anchor (the host leaves it 0).
#define PTOKIT_FORCE_SIMT_ANCHOR_SLOT {FORCE_SIMT_ANCHOR_SLOT}

#if defined(__CPU_SIM) || defined(__COSTMODEL)

// No vector functions on the CPU: the anchor is empty.
static inline __attribute__((always_inline)) void ptokit_simt_anchor(const __gm__ int64_t* force_simt_anchor)
{{
    (void)force_simt_anchor;
}}

#else  // device build (a5)

// SIMT side: internal linkage, so no GLOBAL *_simt_entry symbol is exported.
static __simt_vf__ __launch_bounds__(32) inline void ptokit_simt_anchor_vf(__gm__ int32_t* sink)
{{
    sink[threadIdx.x] = 0;
}}

// SIMD side: one vector load/store, so the entry is MIX rather than SIMT-only.
static __simd_vf__ inline void ptokit_simd_anchor_vf(__ubuf__ float* ub)
{{
    vector_float reg;
    uint32_t count = 64;
    vector_bool mask = asc_update_mask_b32(count);
    asc_loadalign(reg, ub);
    asc_storealign(ub, reg, mask);
}}

static inline __attribute__((always_inline)) void ptokit_simt_anchor(const __gm__ int64_t* force_simt_anchor)
{{
    // A load from global memory: unknown at compile time, so the branch survives;
    // the host always leaves it 0, so it never runs.
    if (*force_simt_anchor != 0) {{
        asc_vf_call<ptokit_simt_anchor_vf>(dim3(32), (__gm__ int32_t*)force_simt_anchor);
        asc_vf_call<ptokit_simd_anchor_vf>((__ubuf__ float*)0);
    }}
}}

#endif

// Call at the top of the AIV kernel_entry: PTOKIT_SIMT_ANCHOR(args);
#define PTOKIT_SIMT_ANCHOR(args) ptokit_simt_anchor((const __gm__ int64_t*)(args) + PTOKIT_FORCE_SIMT_ANCHOR_SLOT)
"""


def anchor_header_text() -> str:
    return ANCHOR_HEADER


def write_anchor_header(out_dir) -> Path:
    """Write ``<out_dir>/kernels/aiv/ptokit_simt_anchor.h`` (atomically); returns its path."""
    path = Path(out_dir) / "kernels" / "aiv" / ANCHOR_HEADER_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{ANCHOR_HEADER_NAME}.{os.getpid()}.tmp")
    tmp.write_text(ANCHOR_HEADER, encoding="utf-8")
    os.replace(tmp, path)
    return path


__all__ = ["write_anchor_header", "anchor_header_text", "ANCHOR_HEADER_NAME", "FORCE_SIMT_ANCHOR_SLOT"]
