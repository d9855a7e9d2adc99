#!/usr/bin/env python3
"""ptokit's estimated kernel cycles next to the vendor perf-sim's, on the same kernel C++.

    python bench/vendor_perfsim.py --pto-isa <pto-isa checkout> [--cxx clang++-19] [--per-instruction]
                                   [--costs ptokit|perfsim] [--attribute]

For five DSL kernels (a row softmax on the vector core, a 128x128x128 fp16 matmul on the cube, an
element-wise chain, a matmul whose result the vector lanes exponentiate (one FIFO, one direction), and
examples/flash_attention.py's mixed cube/vector kernel), ptokit compiles the program, runs it once with ``RunConfig(estimate=True)`` and
takes each kernel's estimated cycles; then it builds the kernel's assembler output (``ptoas/<k>.cpp``
of the artifact tree) against pto-isa's headers with the vendor's cost-model switch (``__COSTMODEL``,
a2a3: ``__NPU_ARCH__=2201``), launches it once through pto-isa's perf-sim launcher and reads the
"Total cycles" of its report.  Nothing of pto-isa is copied or built beyond that one kernel object;
the driver is written here.  The vendor's generated parameter header
(``include/pto/costmodel/a2a3/formula_costmodel/formula_params_generated.hpp``) must exist in the
checkout (pto-isa's own build makes it).  A pto-isa whose perf-sim headers do not compile is reported
as such.  ``--costs perfsim`` runs ptokit's pipe model on the perf-sim's own per-instruction cycles
(read from the Chrome trace it writes), so that only the two pipe models differ; ``--attribute`` takes
each kernel's gap apart per instruction class, exactly, by substituting one class at a time.
docs/estimate.md ("Against the vendor perf-sim") quotes a run and discusses the gaps.
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


@pl.program
class MatmulExp:
    @pl.function(type=pl.FunctionType.InCore)
    def mmexp(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
              y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)      # cube -> vector through the FIFO
        y = pl.store(pl.exp(v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        y = self.mmexp(a, b, y)
        return y


def _cases():
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    f16 = lambda *s: rng.standard_normal(s).astype(np.float16)  # noqa: E731
    yield "softmax", Softmax, [f32(R, C), np.zeros((R, C), np.float32)]
    yield "matmul", Matmul, [f16(M, K), f16(K, N), np.zeros((M, N), np.float32)]
    yield "chain", Chain, [f32(R, C), f32(R, C), np.zeros((R, C), np.float32)]
    yield "mmexp", MatmulExp, [f16(64, 64) * 0.1, f16(64, 64) * 0.1, np.zeros((64, 64), np.float32)]
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


_EVENT = re.compile(r"(\w+)\((-?\d+x-?\d+),(\w+)\):(\d+)$")
_DTYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "i8": "int8", "i16": "int16", "i32": "int32",
           "ui8": "uint8", "ui16": "uint16", "ui32": "uint32"}
_NOT_TIMED = ("TASSIGN", "TRESHAPE", "TFREE")   # bookkeeping the perf-sim lists at 1 cycle; ptokit: none


def perfsim_run(kernel_cpp: Path, isa: Path, cxx: str, work: Path):
    """(total cycles, [(opcode, "RxC,dtype", cycles, core, pipe)] in program order) of one perf-sim launch,
    or (None, why)."""
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
    trace = json.loads((work / "perf_sim_output" / f"run_{kernel_cpp.stem}.json").read_text())
    events = []
    for e in trace["traceEvents"] if isinstance(trace, dict) else trace:
        got = _EVENT.match(e.get("name", "")) if e.get("ph") == "X" else None
        if got and got.group(1) not in _NOT_TIMED:
            core, _, pipe = str(e.get("tid", "")).strip("[").partition("] ")
            events.append((int(got.group(4)), got.group(1), f"{got.group(2)},{got.group(3)}", int(e["dur"]),
                           core.split("/")[-1], pipe))
    return int(m.group(1)), [ev[1:] for ev in sorted(events)]


def instruction_key(op: str, ins, outs) -> tuple:
    """(C++ instruction, "RxC,dtype" of its first tile argument): how the perf-sim names an instruction."""
    from ptokit.pto import dialect
    from ptokit.pto.types import TileBufType
    spec = dialect.PTO_OPS.get(op)
    name = {"pto.tpush": "TPUSH", "pto.tpop": "TPOP"}.get(op) or (spec.cxx if spec and spec.cxx else op[4:].upper())
    tile = next((t for t in list(outs) + list(ins) if isinstance(t, TileBufType)), None)
    if tile is None:
        return name, ""
    vr = tile.rows if tile.v_row is None else tile.v_row
    vc = tile.cols if tile.v_col is None else tile.v_col
    return name, f"{vr}x{vc},{_DTYPES.get(tile.dtype, tile.dtype)}"


def perfsim_costs(events) -> dict:
    """(instruction, shape) -> the perf-sim's cycles of its executions in program order (the cube and
    vector lane 0; lane 1 repeats lane 0)."""
    seen: dict = {}
    for op, label, cyc, core, _ in events:
        if core != "AIV-1":
            seen.setdefault((op, label), []).append(cyc)
    return seen


class Costs:
    """ptokit's instruction cycles, optionally replaced by the perf-sim's (``table``, of the classes in
    ``only``): an instruction site gets the cycles of the execution it is, when the kernel runs each
    site of its (instruction, shape) once (straight-line code), else the median of the executions (the
    perf-sim's vector unit pays an instruction's start-up only at the head of a stream of vector work)."""

    def __init__(self, table=None, only=None, sites=None):
        self.table, self.only, self.sites = table, only, sites or {}
        self.own: dict = {}       # (instruction, shape) -> ptokit's cycles of each site in assembly order

    def __call__(self, op, ins, outs, cycles):
        key = instruction_key(op, ins, outs)
        seen = self.own.setdefault(key, [])
        seen.append(cycles)
        runs = (self.table or {}).get(key)
        if runs is None or (self.only is not None and key[0] not in self.only):
            return cycles
        if self.sites.get(key) == len(runs):
            return runs[len(seen) - 1]
        return sorted(runs)[len(runs) // 2]

    def ptokit_cycles(self, key, i: int, n: int) -> int:
        """ptokit's cycles of execution ``i`` of ``n`` of an instruction and shape."""
        mine = self.own[key]
        return mine[i] if len(mine) == n else max(mine)


def _sites(record: "Costs") -> dict:
    return {k: len(v) for k, v in record.own.items()}


def ptokit_run(name, prog, arrays, work: Path, table=None, only=None, sites=None):
    """(ptokit's estimated cycles, the Costs record, artifact dir) of one kernel; with ``table`` the
    cycles of each instruction it names (of a class in ``only``, when given) are the perf-sim's."""
    from ptokit.pto import costs
    record = Costs(table, only, sites)
    out = work / (name if table is None else f"{name}_{len(only) if only is not None else 'all'}")
    with costs.substituted(record):
        compiled = ptokit.compile(prog, output_dir=str(out))
    run = compiled(*arrays, config=ptokit.runtime.RunConfig(estimate=True))
    return run.estimate.cycles, record, out


def compare(isa: Path, cxx: str, work: Path, per_instruction: bool = False, costs: str = "ptokit"):
    """(kernel, ptokit's estimated cycles, perf-sim's total cycles or None, note) per case; with
    ``costs="perfsim"`` ptokit's pipe model runs on the perf-sim's own per-instruction cycles."""
    os.environ.pop("PTO_ISA_ROOT", None)     # ptokit's own run uses its own tile library
    for name, prog, arrays in _cases():
        ours, own, out = ptokit_run(name, prog, arrays, work)
        theirs, events = perfsim_run(out / "ptoas" / f"{name}.cpp", isa, cxx, work)
        if theirs is None:
            yield name, ours, None, events
            continue
        if costs == "perfsim":
            ours, _, _ = ptokit_run(name, prog, arrays, work, perfsim_costs(events), sites=_sites(own))
        note = "; ".join(f"{op}({label}) {cyc}" for op, label, cyc, core, _ in events
                         if core != "AIV-1") if per_instruction else ""
        yield name, ours, theirs, note


def attribute(isa: Path, cxx: str, work: Path):
    """Per kernel: its figures and the gap taken apart (docs/estimate.md, "Against the vendor perf-sim").

    * per instruction class, the cycles each model gives its executions (the perf-sim's per-instruction
      report; ptokit's cost of the same instruction and shape times the executions);
    * exactly, by substitution: ptokit's pipe model is run with the perf-sim's cycles for one more class
      at a time (largest gap first), each step's change of the total is that class's part of the gap,
      and what is left once every class runs on the perf-sim's cycles is the pipe models' difference."""
    os.environ.pop("PTO_ISA_ROOT", None)
    for name, prog, arrays in _cases():
        ours, own, out = ptokit_run(name, prog, arrays, work)
        theirs, events = perfsim_run(out / "ptoas" / f"{name}.cpp", isa, cxx, work)
        if theirs is None:
            yield name, {"error": events}
            continue
        table = perfsim_costs(events)
        classes: dict = {}
        done_of: dict = {}
        for op, label, cyc, core, pipe in events:
            c = classes.setdefault(op, {"n": 0, "ptokit": 0, "perfsim": 0, "pipe": pipe, "unmatched": 0})
            c["n"] += 1
            c["perfsim"] += cyc
            key = (op, label)
            if key not in own.own:
                c["unmatched"] += 1
                continue
            i = done_of.get((key, core), 0)
            done_of[(key, core)] = i + 1
            c["ptokit"] += own.ptokit_cycles(key, i, len(table[key]))
        order = sorted(classes, key=lambda k: -abs(classes[k]["ptokit"] - classes[k]["perfsim"]))
        steps, prev, done = [], ours, set()
        for cls in order:
            done.add(cls)
            total, _, _ = ptokit_run(name, prog, arrays, work, table, only=set(done), sites=_sites(own))
            steps.append((cls, total - prev))
            prev = total
        yield name, {"ptokit": ours, "perfsim": theirs, "classes": classes, "steps": steps, "replayed": prev}


def _print_attribution(isa: Path, cxx: str, work: Path) -> None:
    for name, r in attribute(isa, cxx, work):
        if "error" in r:
            print(f"{name}: {r['error']}")
            continue
        print(f"\n{name}: ptokit {r['ptokit']}, perf-sim {r['perfsim']}, ptokit's pipe model on the perf-sim's "
              f"instruction cycles {r['replayed']} ({r['replayed'] / r['perfsim']:.2f} of the perf-sim)")
        print(f"  {'class':<16}{'pipe':<6}{'n':>5}{'ptokit':>9}{'perf-sim':>10}{'part of the gap':>17}")
        part = dict(r["steps"])
        for cls, c in sorted(r["classes"].items(), key=lambda kv: -abs(part.get(kv[0], 0))):
            miss = f"  ({c['unmatched']} without a ptokit figure)" if c["unmatched"] else ""
            print(f"  {cls:<16}{c['pipe']:<6}{c['n']:>5}{c['ptokit']:>9}{c['perfsim']:>10}{-part[cls]:>17}{miss}")
        print(f"  {'pipe model':<16}{'':<6}{'':>5}{'':>9}{'':>10}{r['replayed'] - r['perfsim']:>17}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", default=os.environ.get("CXX", "clang++-19"))
    ap.add_argument("--pto-isa", required=True, help="a pto-isa checkout (its include/ is used)")
    ap.add_argument("--per-instruction", action="store_true", help="list perf-sim's cycles per instruction")
    ap.add_argument("--costs", choices=("ptokit", "perfsim"), default="ptokit",
                    help="instruction cycles ptokit's pipe model runs on: its own (default) or the perf-sim's "
                         "per-instruction figures for the same instruction and shape (a comparison of the pipe "
                         "models alone)")
    ap.add_argument("--attribute", action="store_true",
                    help="take each kernel's gap apart per instruction class and pipe model")
    args = ap.parse_args(argv)
    isa = Path(args.pto_isa)
    if args.attribute:
        with tempfile.TemporaryDirectory(prefix="ptokit-perfsim-") as tmp:
            _print_attribution(isa, args.cxx, Path(tmp))
        return 0
    print(f"{'kernel':<10}{'ptokit':>10}{'perf-sim':>10}{'ratio':>8}  note   (ptokit on {args.costs} costs)")
    with tempfile.TemporaryDirectory(prefix="ptokit-perfsim-") as tmp:
        for name, ours, theirs, note in compare(isa, args.cxx, Path(tmp), args.per_instruction, args.costs):
            ratio = f"{ours / theirs:.2f}" if theirs else "-"
            print(f"{name:<10}{ours:>10}{theirs if theirs else '-':>10}{ratio:>8}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
