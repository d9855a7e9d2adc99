"""The artifact tree: codegen -> assembler -> wrapper -> orchestration -> config.

``generate_tree`` writes, for a program that has been through the passes::

    ptoas/<kernel>.pto, ptoas/<kernel>.cpp, kernels/aiv|aic/<kernel>.cpp,
    orchestration/<orch>.cpp, kernel_config.py  (+ passes_dump/, ptoas_passes/)

Assembly runs per kernel in a thread pool; a failing unit does not stop the
others, and every failure (unit, stage, message) is reported at the end.
"""
from __future__ import annotations

import dataclasses
import datetime
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..codegen.orchestration import emit_orchestration
from ..codegen.pto import emit_pto
from ..errors import CompileError, PtokitError, UserError
from ..ir import nodes as N
from ..ir.types import ScalarType, TensorType
from ..passes.context import PassContext
from ..targets import coerce_runtime_kind, validate_platform
from ..passes.manager import run_passes
from ..artifacts.kernel_config import KernelConfig, KernelEntry, OrchestrationEntry, write_kernel_config
from .ptoas import assemble, find_ptoas
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


def _orch_params(fn: N.Function) -> List[dict]:
    out = []
    for p in fn.params:
        if isinstance(p.type, TensorType):
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
    for sub in ("ptoas", "kernels/aiv", "kernels/aic", "orchestration"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    # a unit is one .pto module: a single kernel, or a mixed group's AIC + AIV functions
    units: List[Tuple[str, List[N.Function], List[object]]] = []
    seen_groups = set()
    anchor = ctx.platform == "a5"      # a5 hardware build: AIV entries carry the SIMT anchor
    for name in sorted(kernel_ids, key=kernel_ids.get):
        fn = prog.functions[name]
        fifo = fn.attrs.get("fifo")
        if fifo:
            if fifo["group"] in seen_groups:
                continue
            seen_groups.add(fifo["group"])
            unit, fns = fifo["group"], [prog.functions[fifo["aic"]], prog.functions[fifo["aiv"]]]
        else:
            unit, fns = name, [fn]
        text, abis = emit_pto(fns, arch, with_loc=with_loc)
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
            assemble(pto_path, cpp_path, arch, dump_dir=dump)
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
        (out_dir / "orchestration" / f"{orch.name}.cpp").write_text(emit_orchestration(prog, orch))
    except PtokitError as exc:
        failures.append(TreeFailure(orch.name, "orchestration", str(exc)))
    times.orchestration += time.perf_counter() - t0
    if failures:
        raise TreeError(failures, out_dir)

    if anchor:
        from ..launch.simt_anchor import write_anchor_header
        write_anchor_header(out_dir)

    t0 = time.perf_counter()
    kernels = []
    for _, fns, abis in units:
        for fn, abi in zip(fns, abis):
            kernels.append(KernelEntry(func_id=kernel_ids[fn.name], name=fn.name,
                                       source=out_dir / "kernels" / abi.core_type / f"{fn.name}.cpp",
                                       core_type=abi.core_type,
                                       signature=[t.direction for t in abi.tensors]))
    kernels.sort(key=lambda k: k.func_id)
    sig = [p.direction.value for p in orch.params if isinstance(p.type, TensorType)]
    cfg = KernelConfig(runtime=ctx.runtime_kind, aicpu_thread_num=0,
                       orchestration=OrchestrationEntry(source=out_dir / "orchestration" / f"{orch.name}.cpp",
                                                        function_name="aicpu_orchestration_entry",
                                                        signature=sig, params=_orch_params(orch)),
                       kernels=kernels, root=out_dir, platform=ctx.platform)
    write_kernel_config(out_dir / "kernel_config.py", cfg)
    times.config += time.perf_counter() - t0
    return cfg


def _resolve_context(platform: str, runtime) -> PassContext:
    validate_platform(platform)
    active = PassContext.current()
    kind = coerce_runtime_kind(runtime)
    if active is not None and active.runtime is not None and kind is not None:
        raise ValueError("runtime= was given to compile() inside a PassContext that also sets the runtime "
                         "kind; give it in one place only")
    if kind is None and active is not None:
        kind = active.runtime
    verify = active.verify if active is not None else True
    return PassContext(platform=platform, runtime=kind, verify=verify)


def default_output_dir(name: str) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S_%f")
    return Path("build_output") / f"{name}_{stamp}"


def compile_program(program, output_dir=None, platform="a2a3sim", runtime=None, dump_passes=False,
                    dump_ptoas_passes=False, with_loc=True, times: Optional[StageTimes] = None):
    """``ptokit.compile``: parse, run the passes, write the artifact tree."""
    from ..language.decorators import ProgramSpec
    from ..language.parser import parse_program
    from .compiled import CompiledProgram

    if not isinstance(program, ProgramSpec):
        raise TypeError(f"ptokit.compile expects a @pl.program class, got {program!r}")
    ctx = _resolve_context(platform, runtime)
    times = times or StageTimes()
    t0 = time.perf_counter()
    ir = parse_program(program)
    times.parse += time.perf_counter() - t0
    out = (Path(output_dir) if output_dir is not None else default_output_dir(program.name)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    lowered = run_passes(ir, ctx, out / "passes_dump" if dump_passes else None)
    times.passes += time.perf_counter() - t0
    cfg = generate_tree(lowered, out, ctx, dump_ptoas_passes=dump_ptoas_passes, with_loc=with_loc, times=times)
    def recompile(**kw):
        return compile_program(program, runtime=ctx.runtime_kind, with_loc=with_loc, **kw)
    return CompiledProgram(out.resolve(), cfg, platform, ctx.runtime_kind, times, recompile=recompile)
