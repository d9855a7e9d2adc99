"""Compiling a distributed program: a host function (H) and the chip functions (D) it calls,
with their kernels, into the artifact tree of docs/distributed.md.

* each chip function called from H goes through today's single-chip pipeline into
  ``next_levels/<fn>/`` (``toolchain.lower_to_tree``): nothing is compiled per rank;
* H becomes ``orchestration/host_orch.py`` (``language/host.py`` reads it, ``codegen/host_orch.py``
  prints it, ``artifacts.host_orch.write_script`` writes it);
* ``distributed_config.py`` records the world size, device ids, the host params, the domain of
  window slots and the chips.

Sits above the stages like ``toolchain`` (which it uses).
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .artifacts.distributed_config import ChipEntry, DistributedManifest, ScriptEntry, write_distributed_config
from .artifacts.host_orch import write_script
from .codegen.host_orch import host_orch_text, sub_worker_stub_text
from .distributed_compiled import DistributedCompiledProgram
from .errors import CompileError, UserError
from .ir import nodes as N
from .ir.host import HostProgram
from .language.host import ChipCall, HostReader
from .language.host_collectives import builtin_program, collective_call, collective_entries
from .language.parser import FunctionParser
from .language.sub_workers import SubWorker, is_sub_worker_unit, read_sub_worker
from .language.units import parse_program as parse_units
from .language.types import Level, Role
from .targets import DistributedConfig
from .language.decorators import ProgramSpec
from .language.units import _class_units as class_units
from .toolchain import compile_program, default_output_dir, lower_to_tree, resolve_context


def compile_entry(program, output_dir=None, platform="a2a3sim", runtime=None, distributed_config=None,
                  with_loc=True, **options):
    """``ptokit.compile``: a program with a host function is compiled here, any other by the toolchain."""
    if isinstance(program, ProgramSpec):
        units = class_units(program)
        if any(is_host_unit(u) for u in units):
            if options.get("dump_passes") or options.get("dump_ptoas_passes") or options.get("profiling"):
                raise UserError("dump_passes / dump_ptoas_passes / profiling are options of one-chip compiles; "
                                "a distributed program does not take them yet")
            return compile_class(program, units, distributed_config, output_dir, platform, runtime, with_loc,
                                 memory_planner=options.get("memory_planner"))
    return compile_program(program, output_dir=output_dir, platform=platform, runtime=runtime,
                           distributed_config=distributed_config, with_loc=with_loc, **options)


def is_host_unit(u) -> bool:
    return getattr(u.decl, "level", None) == Level.HOST


def reachable(prog: N.Program, root: str) -> Dict[str, N.Function]:
    """``root`` and every function it calls, directly or not."""
    out: Dict[str, N.Function] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        if name in out or name not in prog.functions:
            continue
        fn = prog.functions[name]
        out[name] = fn
        todo += [e.callee for _, e in N.iter_exprs(fn.body) if isinstance(e, N.FuncCall)]
    return out


def check_config(dconfig) -> DistributedConfig:
    """The distributed configuration of a compile: as in pypto, a program with a host function
    compiled without one runs on one device (``DistributedConfig()``: device_ids=[0])."""
    if dconfig is None:
        return DistributedConfig()
    if not isinstance(dconfig, DistributedConfig):
        raise TypeError(f"distributed_config must be a ptokit.DistributedConfig, got {dconfig!r}")
    return dconfig


def build_tree(name: str, host: HostProgram, chips: Dict[str, N.Program], dconfig: DistributedConfig,
               out: Path, platform: str, runtime, source_file: str = "", with_loc: bool = True,
               subs: Sequence[SubWorker] = (), memory_planner=None) -> Path:
    """Write the distributed tree: one chip tree per chip program, host_orch.py, a stub per
    SubWorker, the manifest."""
    ctx = resolve_context(platform, runtime or dconfig.runtime, memory_planner=memory_planner)
    out = Path(out)
    entries: List[ChipEntry] = []
    for chip, prog in chips.items():
        sub = out / "next_levels" / chip
        sub.mkdir(parents=True, exist_ok=True)
        lower_to_tree(N.copy_program(prog), sub, ctx, with_loc=with_loc)
        entries.append(ChipEntry(chip, sub))
    script = out / "orchestration" / "host_orch.py"
    sha = write_script(script, host_orch_text(host, Path(source_file).name if source_file else ""))
    sub_entries = []
    for sw in subs:
        path = out / "sub_workers" / f"{sw.name}.py"
        text = sub_worker_stub_text(sw.name, sw.abstract, Path(source_file).name if source_file else "")
        sub_entries.append(ScriptEntry(path, sw.name, write_script(path, text, function_name=sw.name, params=None),
                                       sw.name, sw.abstract))
    domains = [{"name": host.name, "slots": [{"name": n, "nbytes": b} for n, b in host.slots]}] if host.slots else []
    m = DistributedManifest(world_size=dconfig.world_size, device_ids=list(dconfig.device_ids), platform=platform,
                            runtime=ctx.runtime_kind, entry=ScriptEntry(script, "entry", sha), chips=entries,
                            root=out, aicpu_thread_num=dconfig.aicpu_thread_num,
                            num_sub_workers=dconfig.num_sub_workers, transport=dconfig.transport,
                            world_size_name=host.world_size_name, params=host.params, domains=domains,
                            collectives=collective_entries(host.collectives), sub_workers=sub_entries)
    write_distributed_config(out, m)
    return out


def compile_class(spec, units, dconfig, output_dir=None, platform="a2a3sim", runtime=None,
                  with_loc=True, memory_planner=None) -> DistributedCompiledProgram:
    """``ptokit.compile(Program, distributed_config=...)`` of a ``@pl.program`` with a host function."""
    dconfig = check_config(dconfig)
    subs = {u.name: read_sub_worker(u, spec.cls.__dict__.get(u.item.name)) for u in units if is_sub_worker_unit(u)}
    hosts = [u for u in units if is_host_unit(u) and u.name not in subs]
    if len(hosts) != 1:
        raise CompileError(f"a distributed program has one host function (level=pl.Level.HOST), found "
                           f"{len(hosts)}", hosts[1].src.loc(hosts[1].item) if hosts else None)
    h = hosts[0]
    _check_host_decl(h)
    others = [u for u in units if u is not h and u.name not in subs]
    if not others:
        raise CompileError(f"{h.name}: a host function calls chip functions, and the program has none",
                           h.src.loc(h.item))
    ir = parse_units(spec, FunctionParser, units=others, name=spec.cls.__name__)

    def resolve(func, call=None) -> Optional[ChipCall]:
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            if func.attr in subs:
                return ChipCall(func.attr, subs[func.attr].header, sub=True)
            fn = ir.functions.get(func.attr)
            if fn is None:
                raise CompileError(f"program has no function {func.attr!r}", h.src.loc(func))
            return ChipCall(func.attr, fn)
        return None

    reader = HostReader(h.item, h.src, h.g, True, resolve, collective_call,
                        world_size=dconfig.world_size, annotations=h.annotations)
    host = reader.read()
    chips = {c: N.Program(c, reachable(ir, c), ir.source_file, ir.dyn_vars) for c in host.chips}
    chips.update(builtin_chips(host, platform))
    out = (Path(output_dir) if output_dir is not None else default_output_dir(spec.cls.__name__)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    build_tree(spec.cls.__name__, host, chips, dconfig, out, platform, runtime, ir.source_file, with_loc,
               subs=list(subs.values()), memory_planner=memory_planner)
    return DistributedCompiledProgram(out, distributed_config=dconfig, platform=platform,
                                      sub_workers={n: sw.fn for n, sw in subs.items() if not sw.abstract})


def builtin_chips(host: HostProgram, platform: str) -> Dict[str, N.Program]:
    """The builtin chip programs of the host collectives the host function calls."""
    return {chip: builtin_program(op, spec) for op, chip, spec in host.collectives}


def _check_host_decl(u) -> None:
    role = getattr(u.decl, "role", None)
    if role is None or role == Role.Orchestrator:
        return
    raise CompileError(f"{u.name}: role={role!r} is not a host role (pl.Role.Orchestrator, pl.Role.SubWorker)",
                       u.src.loc(u.item))


__all__ = ["compile_entry", "compile_class", "build_tree", "is_host_unit", "reachable", "check_config"]
