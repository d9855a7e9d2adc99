#!/usr/bin/env python3
"""ptokit's estimated kernel cycles next to the vendor perf-sim's, on the same kernel C++.

    python bench/vendor_perfsim.py --pto-isa <pto-isa checkout> [--cxx clang++-19] [--per-instruction]

For four DSL kernels (a row softmax on the vector core, a 128x128x128 fp16 matmul on the cube, an
element-wise chain, and examples/flash_attention.py's mixed cube/vector kernel), ptokit compiles the program, runs it once with ``RunConfig(estimate=True)`` and
takes each kernel's estimated cycles; then it builds the kernel's assembler output (``ptoas/<k>.cpp``
of the artifact tree) against pto-isa's headers with the vendor's cost-model switch (``__COSTMODEL``,
a2a3: ``__NPU_ARCH__=2201``), launches it once through pto-isa's perf-sim launcher and reads the
"Total cycles" of its report.  Nothing of pto-isa is copied or built beyond that one kernel object;
the driver is written here.  The vendor's generated parameter header
(``include/pto/costmodel/a2a3/formula_costmodel/formula_params_generated.hpp``) must exist in the
checkout (pto-isa's own build makes it).  A pto-isa whose perf-sim headers do not compile is reported
as such.  docs/estimate.md ("Against the vendor perf-sim") quotes a run and discusses the gaps.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import ptokit  # noqa: E402
import ptokit.language as pl  # noqa: E402

R, C = 64, 128
M = K = N = 128


@pl.program
class Softmax:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[R, C], pl.FP32],
                out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        tmp = pl.create_tile([R, C], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        e = pl.exp(pl.row_expand_sub(t, pl.row_max(t, tmp)))
        out = pl.store(pl.row_expand_div(e, pl.row_sum(e, tmp)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        y = self.softmax(x, y)
        return y


@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
               c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        la = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rb = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        c = pl.store(pl.matmul(la, rb), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
             c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        c = self.matmul(a, b, c)
        return c


@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def chain(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
              out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tb = pl.load(b, [0, 0], [R, C])
        out = pl.store(pl.exp(pl.mul(pl.add(ta, tb), ta)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        y = self.chain(a, b, y)
        return y


def _cases():
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    f16 = lambda *s: rng.standard_normal(s).astype(np.float16)  # noqa: E731
    yield "softmax", Softmax, [f32(R, C), np.zeros((R, C), np.float32)]
    yield "matmul", Matmul, [f16(M, K), f16(K, N), np.zeros((M, N), np.float32)]
    yield "chain", Chain, [f32(R, C), f32(R, C), np.zeros((R, C), np.float32)]
    sys.path.insert(0, str(ROOT / "examples"))
    from flash_attention import make_flash        # q 32x128 over 512 keys in blocks of 64: one mixed kernel
    yield "attn", make_flash(32, 512, 128, 64), [f16(32, 128), f16(512, 128), f16(512, 128),
                                                 np.zeros((32, 128), np.float32)]


_SIG = re.compile(r"__global__ AICORE void (\w+)\(([^)]*)\)")
_ARG = re.compile(r"__gm__ (\w+)\* (\w+)")


def _driver(kernel_cpp: Path) -> tuple[str, list]:
    """A main() that launches the kernel once under pto-isa's perf-sim; (driver text, core macros).

    A mixed kernel's two halves (``<k>_aic``, ``<k>_aiv`` taking its lane last) run as the device runs
    them: the cube half on lane 0's turn, the vector half on each lane, one launch.
    """
    text = kernel_cpp.read_text()
    kernels = _SIG.findall(text)
    if not kernels:
        raise SystemExit(f"{kernel_cpp}: no __global__ kernel signature")
    calls, bufs = [], {}
    for name, params in kernels:
        params = [p.strip() for p in params.split(",") if p.strip()]
        args = []
        for i, p in enumerate(params):
            m = _ARG.fullmatch(p)
            if m:
                bufs.setdefault(i, m.group(1))
                args.append(f"buf{i}")
            elif i == len(params) - 1 and p.startswith("int32_t"):
                args.append("(int32_t)::pto::perf_sim::current_subblock_id")
            else:
                raise SystemExit(f"{kernel_cpp}: {name}: only GM pointers and a trailing lane are driven")
        call = f"{name}({', '.join(args)});"
        calls.append(f"if (::pto::perf_sim::current_subblock_id == 0) {call}" if name.endswith("_aic")
                     and len(kernels) > 1 else call)
    decl = "\n".join(f"alignas(64) static {t} buf{i}[1 << 20];" for i, t in sorted(bufs.items()))
    cores = [c for c in ("__DAV_CUBE__", "__DAV_VEC__") if f"defined({c})" in text]
    # pto-isa's CPU stubs name four event ids; the a2a3 pipes have eight
    events = "#ifndef EVENT_ID4\n" + "".join(f"#define EVENT_ID{i} {i}\n" for i in range(4, 8)) + "#endif\n"
    return (f"#include <pto/pto-inst.hpp>\n#include <pto/costmodel/perf_sim/launch.hpp>\n{events}"
            f'#include "{kernel_cpp}"\n{decl}\nvoid run_{kernel_cpp.stem}() {{ {" ".join(calls)} }}\n'
            f"int main() {{ LAUNCH_KERNEL(run_{kernel_cpp.stem}, , (1, nullptr, nullptr)); return 0; }}\n", cores)


def perfsim_cycles(kernel_cpp: Path, isa: Path, cxx: str, work: Path, per_instruction: bool):
    src, cores = _driver(kernel_cpp)
    drv = work / f"{kernel_cpp.stem}_drv.cpp"
    drv.write_text(src)
    exe = work / f"{kernel_cpp.stem}.perfsim"
    inc = isa / "include"
    cmd = [cxx, "-std=c++23", "-O1", "-w", "-D__COSTMODEL", "-D__NPU_ARCH__=2201", "-DPTO_COMM_NOT_SUPPORTED"] + [
           f"-D{c}" for c in cores] + (["-D__DAV_C220_CUBE__"] if "__DAV_CUBE__" in cores else []) + [
           f"-I{inc / 'pto/costmodel/stubs'}", f"-I{inc}", f"-I{inc / 'common'}", "-include", "stdint.h",
           "-include", "stddef.h", str(drv), "-o", str(exe), "-lpthread"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        first = next((ln for ln in p.stderr.splitlines() if "error:" in ln), p.stderr[-300:])
        return None, f"perf-sim headers do not build: {first.strip()}"
    r = subprocess.run([str(exe)], capture_output=True, text=True, cwd=work, timeout=300)
    m = re.search(r"Total cycles\s*:\s*(\d+)", r.stdout)
    if not m:
        return None, "no 'Total cycles' in the perf-sim report"
    detail = ""
    if per_instruction:
        trace = json.loads((work / "perf_sim_output" / f"run_{kernel_cpp.stem}.json").read_text())
        events = trace["traceEvents"] if isinstance(trace, dict) else trace
        detail = "; ".join(f"{e['name'].split(':')[0]} {e['dur']}" for e in events
                           if e.get("ph") == "X" and "Scalar" not in e.get("name", "")
                           and "AIV-1" not in e.get("tid", "") and "TASSIGN" not in e.get("name", ""))
    return int(m.group(1)), detail


def compare(isa: Path, cxx: str, work: Path, per_instruction: bool = False):
    """(kernel, ptokit's estimated cycles, perf-sim's total cycles or None, note) per case."""
    os.environ.pop("PTO_ISA_ROOT", None)     # ptokit's own run uses its own tile library
    for name, prog, arrays in _cases():
        compiled = ptokit.compile(prog, output_dir=str(work / name))
        run = compiled(*arrays, config=ptokit.runtime.RunConfig(estimate=True))
        theirs, note = perfsim_cycles(work / name / "ptoas" / f"{name}.cpp", isa, cxx, work, per_instruction)
        yield name, run.estimate.cycles, theirs, note


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", default=os.environ.get("CXX", "clang++-19"))
    ap.add_argument("--pto-isa", required=True, help="a pto-isa checkout (its include/ is used)")
    ap.add_argument("--per-instruction", action="store_true", help="list perf-sim's cycles per instruction")
    args = ap.parse_args(argv)
    isa = Path(args.pto_isa)
    print(f"{'kernel':<10}{'ptokit':>10}{'perf-sim':>10}{'ratio':>8}  note")
    with tempfile.TemporaryDirectory(prefix="ptokit-perfsim-") as tmp:
        for name, ours, theirs, note in compare(isa, args.cxx, Path(tmp), args.per_instruction):
            ratio = f"{ours / theirs:.2f}" if theirs else "-"
            print(f"{name:<10}{ours:>10}{theirs if theirs else '-':>10}{ratio:>8}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
