"""The artifact tree: codegen -> assembler -> wrapper -> orchestration -> config.

``generate_tree`` writes, for a program that has been through the passes (the pipeline that
gets it there is ``ptokit.toolchain``)::

    ptoas/<kernel>.pto, ptoas/<kernel>.cpp, kernels/aiv|aic/<kernel>.cpp,
    orchestration/<orch>.cpp, kernel_config.py  (+ passes_dump/, ptoas_passes/)

Assembly runs per kernel in a thread pool; a failing unit does not stop the
others, and every failure (unit, stage, message) is reported at the end.
"""
from __future__ import annotations

import dataclasses
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..codegen.orchestration import emit_orchestration_sites
from ..codegen.pto import emit_pto
from ..errors import CompileError, PtokitError, UserError
from ..ir import nodes as N
from ..ir.comm import CTX_SUFFIX, is_ctx_param
from ..ir.types import ScalarType, TensorType
from ..passes.context import PassContext
from ..artifacts.kernel_config import KernelConfig, KernelEntry, OrchestrationEntry, write_kernel_config
from ..launch.simt_anchor import write_anchor_header
from .ptoas import assemble, check_dump_options, find_ptoas
from .wrapper import select_function, wrap_kernel


@dataclass
class StageTimes:
    """Wall-clock seconds per stage of the last compile (for bench/ and --verbose)."""
    parse: float = 0.0
    passes: float = 0.0
    pto: float = 0.0
    assemble: float = 0.0
    orchestration: float = 0.0
    config: float = 0.0

    def total(self) -> float:
        return sum(self.__dict__.values())


@dataclass
class TreeFailure:
    unit: str
    stage: str
    message: str


class TreeError(UserError):
    """One or more units of the artifact tree failed; each failure is listed."""

    def __init__(self, failures: List[TreeFailure], out_dir: Path):
        self.failures = failures
        lines = [f"{len(failures)} unit(s) of {out_dir} failed:"]
        for f in failures:
            lines.append(f"  [{f.unit}] {f.stage}: {f.message}")
        super().__init__("\n".join(lines))


def sync_start_clusters(prog: N.Program, orch: N.Function, platform_clusters: int) -> int:
    """The clusters the sync-start tasks of ``orch`` need to start all their blocks together: a
    block of an AIV kernel takes one of a cluster's two vector cores, one of an AIC or a mixed kernel
    a whole cluster; a block count known only at run time needs the platform's count.  0: none."""
    need = 0
    for s in N.walk_stmts(orch.body):
        if not (isinstance(s, N.Scope) and s.kind == "spmd" and s.attrs.get("sync_start")):
            continue
        n = s.attrs.get("block_num")
        n = n.value if isinstance(n, N.Const) else n
        if not isinstance(n, int):
            return platform_clusters
        kinds = {prog.functions[e.callee].kind for st in N.walk_stmts(s.body) for x in N.stmt_exprs(st)
                 for e in N.walk_expr(x) if isinstance(e, N.FuncCall) and e.callee in prog.functions}
        aiv_only = bool(kinds) and kinds <= {N.FunctionType.AIV}
        need = max(need, -(-n // 2) if aiv_only else n)
    return min(need, platform_clusters)


def _orch_params(fn: N.Function) -> List[dict]:
    out = []
    for p in fn.params:
        if isinstance(p.type, TensorType) and p.type.window:
            out.append({"name": p.name, "kind": "window", "dtype": p.type.dtype.name, "shape": list(p.type.shape)})
        elif is_ctx_param(p):
            out.append({"name": p.name, "kind": "comm_ctx", "for": p.name[:-len(CTX_SUFFIX)]})
        elif isinstance(p.type, TensorType):
            out.append({"name": p.name, "kind": "tensor", "dtype": p.type.dtype.name,
                        "shape": list(p.type.shape), "direction": p.direction.value})
        elif isinstance(p.type, ScalarType):
            out.append({"name": p.name, "kind": "scalar", "dtype": p.type.dtype.name})
    return out


def generate_tree(prog: N.Program, out_dir: Path, ctx: PassContext, *, dump_ptoas_passes: bool = False,
                  with_loc: bool = True, times: Optional[StageTimes] = None, jobs: Optional[int] = None
                  ) -> KernelConfig:
    out_dir = Path(out_dir)
    times = times or StageTimes()
    orchs = prog.of_kind(N.FunctionType.Orchestration)
    if len(orchs) != 1:
        raise CompileError(f"program {prog.name} needs exactly one Orchestration function, found {len(orchs)}")
    orch = orchs[0]
    kernel_ids: Dict[str, int] = orch.attrs["kernel_ids"]
    arch = ctx.arch
    if dump_ptoas_passes:
        check_dump_options()
    for sub in ("ptoas", "kernels/aiv", "kernels/aic", "orchestration"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    # a unit is one .pto module: a single kernel, or a mixed group's AIC + AIV functions
    units: List[Tuple[str, List[N.Function], List[object]]] = []
    seen_groups = set()
    anchor = ctx.target.simt_anchor    # a5 hardware build: AIV entries carry the SIMT anchor
    externals: List[N.Function] = []    # kernels whose body is the user's C++ file (external_source=)
    for name in sorted(kernel_ids, key=kernel_ids.get):
        fn = prog.functions[name]
        if fn.attrs.get("external_source"):
            externals.append(fn)
            continue
        fifo = fn.attrs.get("fifo")
        if fifo:
            if fifo["group"] in seen_groups:
                continue
            seen_groups.add(fifo["group"])
            unit, fns = fifo["group"], [prog.functions[fifo["aic"]], prog.functions[fifo["aiv"]]]
        else:
            unit, fns = name, [fn]
        text, abis = emit_pto(fns, arch, with_loc=with_loc, compat=ctx.ptoas_compat)
        (out_dir / "ptoas" / f"{unit}.pto").write_text(text)
        abis = [dataclasses.replace(a, simt_anchor=True) if anchor and a.core_type == "aiv" else a for a in abis]
        units.append((unit, fns, abis))
    times.pto += time.perf_counter() - t0

    failures: List[TreeFailure] = []
    external = find_ptoas() is not None    # the vendor assembler writes the C++ (wrap_kernel external=)

    def build_unit(u):
        unit, fns, abis = u
        pto_path = out_dir / "ptoas" / f"{unit}.pto"
        cpp_path = out_dir / "ptoas" / f"{unit}.cpp"
        dump = out_dir / "ptoas_passes" / unit if dump_ptoas_passes else None
        try:
            assemble(pto_path, cpp_path, arch, dump_dir=dump, compat=ctx.ptoas_compat)
        except PtokitError as exc:
            return TreeFailure(unit, "assemble", str(exc))
        asm = cpp_path.read_text()
        for fn, abi in zip(fns, abis):
            try:
                wrapped = wrap_kernel(select_function(asm, fn.name) if len(fns) > 1 else asm, abi,
                                      external=external)
            except PtokitError as exc:
                return TreeFailure(fn.name, "wrap", str(exc))
            (out_dir / "kernels" / abi.core_type / f"{fn.name}.cpp").write_text(wrapped)
        return None

    t0 = time.perf_counter()
    if len(units) > 1:
        with ThreadPoolExecutor(max_workers=jobs or min(8, len(units))) as pool:
            results = list(pool.map(build_unit, units))
    else:
        results = [build_unit(u) for u in units]
    failures += [r for r in results if r is not None]
    times.assemble += time.perf_counter() - t0

    t0 = time.perf_counter()
    try:
        cpp, sites = emit_orchestration_sites(prog, orch)
        (out_dir / "orchestration" / f"{orch.name}.cpp").write_text(cpp)
        # the DSL call site of each submission, for the race checker's reports (runtime/sim/races.py)
        (out_dir / "orchestration" / f"{orch.name}.sites.json").write_text(json.dumps(sites, indent=1) + "\n")
    except PtokitError as exc:
        if isinstance(exc, CompileError) and not failures:
            raise                 # a located error in the user's orchestration code, as the front end gives it
        failures.append(TreeFailure(orch.name, "orchestration", str(exc)))
    times.orchestration += time.perf_counter() - t0
    if failures:
        raise TreeError(failures, out_dir)

    if anchor:
        write_anchor_header(out_dir)

    t0 = time.perf_counter()
    kernels = []
    for _, fns, abis in units:
        for fn, abi in zip(fns, abis):
            kernels.append(KernelEntry(func_id=kernel_ids[fn.name], name=fn.name,
                                       source=out_dir / "kernels" / abi.core_type / f"{fn.name}.cpp",
                                       core_type=abi.core_type,
                                       signature=[t.direction for t in abi.tensors]))
    for fn in externals:
        # built where it lies (its relative includes resolve there), against the runtime's headers
        # (tensor.h, intrinsic.h, pto/pto-inst.hpp) as a kernel the wrapper made is
        kernels.append(KernelEntry(func_id=kernel_ids[fn.name], name=fn.name, source=Path(fn.attrs["external_source"]),
                                   core_type="aic" if fn.kind is N.FunctionType.AIC else "aiv",
                                   signature=[p.direction.value for p in fn.params if isinstance(p.type, TensorType)]))
    kernels.sort(key=lambda k: k.func_id)
    sig = [p.direction.value for p in orch.params if isinstance(p.type, TensorType)]
    cfg = KernelConfig(runtime=ctx.runtime_kind, aicpu_thread_num=0,
                       orchestration=OrchestrationEntry(source=out_dir / "orchestration" / f"{orch.name}.cpp",
                                                        function_name="aicpu_orchestration_entry",
                                                        signature=sig, params=_orch_params(orch)),
                       kernels=kernels, root=out_dir, platform=ctx.platform,
                       ptoas_compat=ctx.ptoas_compat,
                       sync_start_clusters=sync_start_clusters(prog, orch, ctx.target.sim_clusters),
                       distributed=({"world_size": "NR", "comm_abi": 1}
                                    if any(isinstance(p.type, TensorType) and p.type.window for p in orch.params)
                                    else None))
    write_kernel_config(out_dir / "kernel_config.py", cfg)
    times.config += time.perf_counter() - t0
    return cfg
