"""Kernel wrapper: assembler output + a ``kernel_entry(args)`` that unpacks the device ABI.

The layout of the generated file is fixed by artifacts.md ("Kernel wrapper"):
a fixed header, ``// --- ptoas-generated code ---`` with the preprocessed
assembler output, then ``// --- Kernel entry point ---`` and ``kernel_entry``.
"""
from __future__ import annotations

import ast
import re
from typing import List

from ..codegen.abi import DTYPES, DynDim, KernelABI
from ..pto.cxx_names import cxx_ident as _ident
from ..errors import CompileError
from ..artifacts.kernel_prelude import PRELUDE

__all__ = ["wrap_kernel", "preprocess_asm", "invert_dim_expr", "select_function", "generated_region",
           "EXTERNAL_IGNORED_WARNINGS"]

_INCLUDE_DUP = re.compile(r'^\s*#\s*include\s*[<"](?:pto/pto-inst\.hpp|cstdint|stdint\.h)[>"]\s*$')
_USING_PTO = re.compile(r"^\s*using\s+namespace\s+pto\s*;\s*$")
_GLOBAL_FN = re.compile(r'(?:extern\s+"C"\s+)?__global__\s+AICORE\s+void\b')
# a kernel function of a mixed module as the vendor assembler writes it: `AICORE void f_aic(...)`
# at the start of a line, without __global__ (a `static AICORE inline` helper does not match)
_PLAIN_FN = re.compile(r'^(\s*)AICORE\s+void\b')
# where a function of the assembler output starts (either form), and its name
_FN_START = re.compile(r'\s*(?:extern\s+"C"\s+)?(?:__global__\s+)?AICORE\s+void\s+(\w+)\s*\(')

# Warnings of external assembler output that are the tool's, not ptokit's: its unused locals (also
# those it assigns but never reads) and `using T` typedefs, and unparenthesised && / || in its loop
# bounds. Ignored only around that output (wrap_kernel(..., external=True)); ptokit's own code stays
# -Wall -Werror clean.
EXTERNAL_IGNORED_WARNINGS = ("-Wunused-variable", "-Wunused-but-set-variable", "-Wunused-local-typedefs",
                             "-Wparentheses")


SDMA_WORKSPACE = "__pypto_sdma_workspace"


def preprocess_asm(asm_cpp: str) -> str:
    """Drop duplicate includes and ``using namespace pto;``, rename ``Tensor`` to
    ``ChipTensor``, make the assembled function ``static __aicore__``."""
    lines = []
    for line in asm_cpp.splitlines():
        if _INCLUDE_DUP.match(line) or _USING_PTO.match(line):
            continue
        line = re.sub(r"\bTensor\b", "ChipTensor", line)
        line = _GLOBAL_FN.sub("static __aicore__ void", line)
        line = _PLAIN_FN.sub(r"\1static __aicore__ void", line)
        line = re.sub(r"\bAICORE\b", "__aicore__", line)
        lines.append(line)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def select_function(asm_cpp: str, name: str) -> str:
    """Keep only function ``name`` of a multi-function assembler output (a mixed group's module holds
    the AIC and the AIV function; each wrapped kernel keeps its own, so no unused static function is
    left behind for ``-Wall -Werror``).  Functions start at a ``__global__ AICORE void f(`` line, or
    ``AICORE void f(`` (the vendor assembler's mixed modules), and end at the next ``}`` in column 0."""
    lines = asm_cpp.splitlines()
    out: List[str] = []
    skipping = False
    for line in lines:
        m = _FN_START.match(line)
        if m and m.group(1) != _ident(name):
            skipping = True
            continue
        if skipping:
            if line.rstrip() == "}":
                skipping = False
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def _int_const(node) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    raise ValueError


def invert_dim_expr(dd: DynDim, shape_expr: str) -> str:
    """C++ expression recovering ``dd.name`` from ``shape_expr`` (the descriptor's shape).

    Accepted forms: v, v+c, v-c, c+v, c-v, v*c, c*v, v//c (c an integer constant).
    """
    bad = CompileError(f"cannot recover dynamic dimension '{dd.name}' from the tensor shape expression "
                       f"'{dd.expr}': only v, v+c, v-c, c+v, c-v, v*c, c*v and v//c (c an integer) are invertible")
    try:
        node = ast.parse(dd.expr.strip(), mode="eval").body
    except SyntaxError:
        raise bad from None

    def is_var(n) -> bool:
        return isinstance(n, ast.Name) and n.id == dd.name

    x = shape_expr
    try:
        if is_var(node):
            return x
        if isinstance(node, ast.BinOp):
            l, r, o = node.left, node.right, node.op
            if is_var(l):
                c = _int_const(r)
                if isinstance(o, ast.Add):
                    return f"{x} - {c}"
                if isinstance(o, ast.Sub):
                    return f"{x} + {c}"
                if isinstance(o, ast.Mult) and c != 0:
                    return f"{x} / {c}"
                if isinstance(o, ast.FloorDiv) and c > 0:
                    return f"{x} * {c}"
            elif is_var(r):
                c = _int_const(l)
                if isinstance(o, ast.Add):
                    return f"{x} - {c}"
                if isinstance(o, ast.Sub):
                    return f"{c} - {x}"
                if isinstance(o, ast.Mult) and c != 0:
                    return f"{x} / {c}"
    except ValueError:
        pass
    raise bad


def _diagnostics(action: str) -> List[str]:
    lines = ["#if defined(__GNUC__)"]
    if action == "push":
        lines += ["// external assembler output: its own unused locals/typedefs and loop-bound parentheses",
                  "#pragma GCC diagnostic push"]
        lines += [f'#pragma GCC diagnostic ignored "{w}"' for w in EXTERNAL_IGNORED_WARNINGS]
    else:
        lines.append("#pragma GCC diagnostic pop")
    return lines + ["#endif"]


def generated_region(asm_cpp: str, *, external: bool = False) -> str:
    """What a kernel file holds between ``// --- ptoas-generated code ---`` and ``// --- Kernel entry
    point ---``: the preprocessed assembler output, inside the diagnostic push/pop when ``external``."""
    body = preprocess_asm(asm_cpp)
    if external:
        body = "\n".join(_diagnostics("push") + [body] + _diagnostics("pop"))
    return body


def wrap_kernel(asm_cpp: str, abi: KernelABI, *, external: bool = False) -> str:
    """The final kernel file for one InCore function (deterministic).

    ``external``: the code comes from the vendor assembler; the warnings of
    ``EXTERNAL_IGNORED_WARNINGS`` are ignored around it (and only there)."""
    if not re.search(r"\bvoid\s+" + re.escape(_ident(abi.name)) + r"\s*\(", asm_cpp):
        raise CompileError(f"assembler output has no function '{abi.name}'")
    pass_block = abi.uses_block
    pass_sub = abi.uses_subblock or abi.split_lane
    need_block_locals = abi.uses_block or abi.declares_block or any(t.pipe_shard for t in abi.tensors)
    need_intrinsic = need_block_locals or pass_sub or abi.uses_sdma

    out: List[str] = [
        "// Kernel " + abi.name + f" ({abi.core_type}): generated by ptokit, do not edit.",
        *PRELUDE,    # the build gives kernels that start so a precompiled header (runtime/pch.py)
    ]
    if need_intrinsic:
        out.append('#include "intrinsic.h"')
    if abi.simt_anchor:
        out.append('#include "ptokit_simt_anchor.h"')
    out += ["", "using namespace pto;", "", "// --- ptoas-generated code ---",
            generated_region(asm_cpp, external=external), "",
            "// --- Kernel entry point ---",
            "#if defined(__CPU_SIM) && defined(__GNUC__)",
            "// always_inline on an exported entry cannot be honoured by g++ (-Wattributes); harmless on the CPU",
            '#pragma GCC diagnostic ignored "-Wattributes"',
            "#endif",
            'extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t* args)',
            "{",
            "#if !defined(__CPU_SIM) && !defined(__COSTMODEL)",
            "    set_atomic_none();",
            "#endif"]
    if abi.simt_anchor:
        out.append("    PTOKIT_SIMT_ANCHOR(args);   // keeps the entry classified SIMD_SIMT_MIX_VF (docs/launch-gate.md)")
    if need_block_locals:
        out.append("    int32_t __pypto_spmd_block_idx = get_block_idx(args);")
        out.append("    int32_t __pypto_spmd_block_num = get_block_num(args);")
        if not pass_block:
            out.append("    (void)__pypto_spmd_block_idx;")
            out.append("    (void)__pypto_spmd_block_num;")
    if pass_sub:
        out.append("    int32_t __pypto_spmd_subblock_idx = get_sub_block_id(args);")
    call: List[str] = []
    tensor_vars: List[str] = []
    for i, t in enumerate(abi.tensors):
        if t.dtype not in DTYPES:
            raise CompileError(f"tensor '{t.name}' of kernel '{abi.name}' has unknown dtype {t.dtype}")
        cty = DTYPES[t.dtype][1]
        v = _ident(t.name)
        tensor_vars.append(v)
        out.append(f"    // Unpack tensor: {t.name}")
        out.append(f"    __gm__ ChipTensor* {v}_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[{i}]);")
        out.append(f"    __gm__ {cty}* {v} = reinterpret_cast<__gm__ {cty}*>({v}_tensor->buffer.addr)"
                   f" + {v}_tensor->start_offset;")
        if t.pipe_shard:
            # the GM pipe buffer of a mixed group: this SPMD block's shard (artifacts.md)
            out.append(f"    {v} += static_cast<int64_t>({v}_tensor->shapes[0]) / __pypto_spmd_block_num"
                       f" * __pypto_spmd_block_idx;")
        call.append(v)
    nt = len(abi.tensors)
    for j, s in enumerate(abi.scalars):
        if s.dtype not in DTYPES:
            raise CompileError(f"scalar '{s.name}' of kernel '{abi.name}' has unknown dtype {s.dtype}")
        cty = DTYPES[s.dtype][1]
        v = _ident(s.name)
        out.append(f"    // Unpack scalar: {s.name}")
        if s.pointer:       # an address passed as a scalar (a window's CommContext)
            out.append(f"    __gm__ {cty}* {v} = reinterpret_cast<__gm__ {cty}*>(args[{nt + j}]);")
            call.append(v)
            continue
        out.append(f"    union {{ uint64_t u64; {cty} val; }} {v}_conv;")
        out.append(f"    {v}_conv.u64 = args[{nt + j}];")
        out.append(f"    {cty} {v} = {v}_conv.val;")
        call.append(v)
    for dd in abi.dyn_dims:
        if not 0 <= dd.tensor_index < nt:
            raise CompileError(f"dynamic dimension '{dd.name}' refers to tensor #{dd.tensor_index}, but kernel "
                               f"'{abi.name}' has {nt} tensor(s)")
        tv = tensor_vars[dd.tensor_index]
        shape = f"static_cast<int64_t>({tv}_tensor->shapes[{dd.dim}])"
        expr = invert_dim_expr(dd, shape)
        v = _ident(dd.name)
        out.append(f"    // Dynamic dim: {dd.name} ({abi.tensors[dd.tensor_index].name}.shape[{dd.dim}] = {dd.expr})")
        out.append(f"    int64_t {v} = {expr};")
        call.append(v)
    if abi.uses_sdma:
        # pl.prefetch: the runtime-owned SDMA workspace, no argument of the task (docs/decisions.md)
        out.append(f"    __gm__ int8_t* {SDMA_WORKSPACE} = reinterpret_cast<__gm__ int8_t*>("
                   f"get_dma_workspace(args, DMA_WORKSPACE_SDMA));")
        call.append(SDMA_WORKSPACE)
    if pass_block:
        call += ["__pypto_spmd_block_idx", "__pypto_spmd_block_num"]
    if pass_sub:
        call.append("__pypto_spmd_subblock_idx")
    out.append(f"    {_ident(abi.name)}({', '.join(call)});")
    out.append("}")
    return "\n".join(out) + "\n"
