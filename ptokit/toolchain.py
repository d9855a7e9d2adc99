"""The compile pipeline: DSL program -> IR -> passes -> artifact tree -> ``CompiledProgram``.

This is the one place that drives the stages in order; it sits above them all, so no stage
has to reach forward to the next one:

* ``compile_program(program, ...)`` is ``ptokit.compile``: parse a ``@pl.program`` class, run
  the passes and write the tree (``backend.generate.generate_tree``);
* ``lower_to_tree(ir, out_dir, ctx, ...)`` is the part after the front end, shared with
  ``@pl.jit`` (whose front end is ``jit.frontend.build_program``; ``StageTimes`` is re-exported
  for it);
* ``resolve_context(platform, runtime)`` merges the arguments with an active ``PassContext``;
* ``load_program("file.py:Name")`` imports a user file and returns its ``@pl.program``.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Optional

from .artifacts import PROFILE_DIR, default_output_dir  # noqa: F401 (re-exported)
from .backend.generate import StageTimes, generate_tree
from .compiled import CompiledProgram
from .errors import ArgumentError, PtokitError, UserError, source_loc_from_file
from .ir import nodes as N
from .language.decorators import ProgramSpec
from .language.parser import parse_program
from .passes.context import PassContext, resolve_context  # noqa: F401 (re-exported)
from .passes.manager import run_passes
from .targets import coerce_runtime_kind, platform_to_use, validate_platform


def lower_to_tree(ir: N.Program, out: Path, ctx: PassContext, *, dump_passes: bool = False,
                  dump_ptoas_passes: bool = False, with_loc: bool = True,
                  times: Optional[StageTimes] = None, profiling: bool = False) -> CompiledProgram:
    """Run the passes on a parsed program (unless it is ``lowered`` already) and write its
    artifact tree into ``out``; ``profiling`` writes ``report/pipeline_profile.{txt,json}``."""
    times = times or StageTimes()
    out = Path(out)
    t0 = time.perf_counter()
    if ir.lowered:
        lowered = N.copy_program(ir)
    else:
        lowered = run_passes(ir, ctx, out / "passes_dump" if dump_passes else None)
        lowered.lowered = True
    times.passes += time.perf_counter() - t0
    cfg = generate_tree(lowered, out, ctx, dump_ptoas_passes=dump_ptoas_passes, with_loc=with_loc, times=times)
    if profiling:
        write_profile(out, times)
    return CompiledProgram(out.resolve(), cfg, ctx.platform, ctx.runtime_kind, times)


def write_profile(out: Path, times: StageTimes) -> Path:
    """pypto's compile profile: seconds per stage, as ``report/pipeline_profile.json`` and ``.txt``."""
    stages = {k: round(v, 6) for k, v in vars(times).items()}
    report = Path(out) / PROFILE_DIR
    report.mkdir(parents=True, exist_ok=True)
    (report / "pipeline_profile.json").write_text(json.dumps({"stages": stages, "total": round(times.total(), 6)},
                                                             indent=1) + "\n")
    lines = [f"{k:<14}{v * 1e3:10.2f} ms" for k, v in stages.items()] + [f"{'total':<14}{times.total() * 1e3:10.2f} ms"]
    (report / "pipeline_profile.txt").write_text("\n".join(lines) + "\n")
    return report


def compile_program(program, output_dir=None, platform="a2a3sim", runtime=None, dump_passes=False,
                    dump_ptoas_passes=False, with_loc=True, times: Optional[StageTimes] = None,
                    profiling: bool = False, distributed_config=None,
                    ptoas_compat: Optional[str] = None, memory_planner=None) -> CompiledProgram:
    """``ptokit.compile``: parse (a ``@pl.program`` class; an ``ir.Program`` is used as given),
    run the passes (skipped for a program that is ``lowered`` already, e.g. ``jit_fn.lower(...)``),
    write the artifact tree."""
    if isinstance(program, ProgramSpec):
        name = program.name
    elif isinstance(program, N.Program):
        name = program.name
    else:
        raise ArgumentError(f"ptokit.compile expects a @pl.program class or an ir.Program, got {program!r}")
    if distributed_config is not None:
        raise UserError("distributed_config= compiles a distributed program, which needs a host function "
                        "(@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)) and ptokit.compile; "
                        "compile without it for one chip")
    platform = platform_to_use(platform)     # a hardware platform is simulated under `ptokit pypto`
    ctx = resolve_context(platform, runtime, ptoas_compat, memory_planner)
    times = times or StageTimes()
    t0 = time.perf_counter()
    ir = parse_program(program) if isinstance(program, ProgramSpec) else program
    times.parse += time.perf_counter() - t0
    out = (Path(output_dir) if output_dir is not None else default_output_dir(name)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    compiled = lower_to_tree(ir, out, ctx, dump_passes=dump_passes, dump_ptoas_passes=dump_ptoas_passes,
                             with_loc=with_loc, times=times, profiling=profiling)
    compiled._program = (lambda: program.ir) if isinstance(program, ProgramSpec) else program

    def recompile(**kw):
        kw.setdefault("ptoas_compat", ctx.ptoas_compat)
        kw.setdefault("memory_planner", ctx.memory_planner)
        return compile_program(program, runtime=ctx.runtime_kind, with_loc=with_loc, **kw)
    compiled.recompile = recompile
    return compiled


def load_program(spec: str) -> ProgramSpec:
    """Import ``path/to/file.py`` and return the ``@pl.program`` that ``spec`` names after the colon:

    * ``file.py:Name`` -- the program ``Name``; when ``Name`` is a function (a factory that builds
      a program), it is called with no arguments;
    * ``file.py:make_x(128, pl.FP16, n=4)`` -- a factory called with literal arguments (numbers,
      strings, booleans, None, tuples and lists of them) and ``pl.*`` names (dtypes, enums)."""
    if ":" not in spec:
        raise UserError(f"expected FILE.py:ProgramName, got {spec!r}")
    path, _, expr = spec.partition(".py:")
    if not _:
        path, expr = spec.rsplit(":", 1)
    else:
        path += ".py"
    file = Path(path)
    if not file.is_file():
        raise UserError(f"no such file: {file}")
    call = _parse_program_expr(expr, spec)
    mod_name = f"_ptokit_user_{file.stem}"
    mspec = importlib.util.spec_from_file_location(mod_name, file)
    if mspec is None:
        raise UserError(f"{file}: not a Python source file (expected FILE.py:ProgramName)")
    module = importlib.util.module_from_spec(mspec)
    sys.modules[mod_name] = module
    sys.path.insert(0, str(file.parent.resolve()))
    try:
        mspec.loader.exec_module(module)
    except UserError as exc:          # ptokit's own error about the user's code
        sys.modules.pop(mod_name, None)
        if exc.loc is not None:       # located: already clear
            raise
        raise UserError(_import_failure(file, exc)) from exc
    except PtokitError:
        sys.modules.pop(mod_name, None)
        raise
    except SyntaxError as exc:
        sys.modules.pop(mod_name, None)
        loc = source_loc_from_file(exc.filename or str(file), exc.lineno or 1, exc.offset or 1)
        raise UserError(f"{exc.msg} (while importing {file})", loc) from None
    except SystemExit as exc:         # a program file is imported, not run: exiting is a mistake
        sys.modules.pop(mod_name, None)
        raise UserError(f"importing {file} called sys.exit({exc.code!r}); a program file must define the "
                        f"@pl.program class without exiting") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed: say where, as Python would
        sys.modules.pop(mod_name, None)
        raise UserError(_import_failure(file, exc)) from exc
    finally:
        sys.path.pop(0)
    return _program_from(module, file, call)


def _parse_program_expr(expr: str, spec: str):
    """``Name`` or ``name(args)`` after the colon -> (name, args, kwargs, called?)."""
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Name):
        return node.id, [], {}, False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        try:
            args = [_literal_arg(a) for a in node.args]
            kwargs = {k.arg: _literal_arg(k.value) for k in node.keywords if k.arg is not None}
        except ValueError as exc:
            raise UserError(f"{spec!r}: {exc}") from None
        if len(kwargs) != len(node.keywords):
            raise UserError(f"{spec!r}: **arguments are not accepted after the colon")
        return node.func.id, args, kwargs, True
    raise UserError(f"{spec!r}: after the colon give a program's name (Name) or a factory call "
                    f"(make_x(128, pl.FP16))")


def _literal_arg(node):
    """A factory argument: a Python literal or a ``pl.NAME`` attribute (dtypes, enums)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "pl":
        from . import language as pl   # lazy: the DSL names a factory may take (pl.FP16, ...), when one does
        if not hasattr(pl, node.attr):
            raise ValueError(f"pl.{node.attr} is not a ptokit.language name")
        return getattr(pl, node.attr)
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"argument {ast.unparse(node)!r} is neither a literal nor a pl.NAME") from None


def _program_from(module, file: Path, call) -> ProgramSpec:
    name, args, kwargs, called = call
    obj = getattr(module, name, None)
    if obj is None:
        raise UserError(f"{file} has no @pl.program or factory named {name!r}")
    if isinstance(obj, ProgramSpec) and not called:
        return obj
    if isinstance(obj, ProgramSpec) or not callable(obj) or isinstance(obj, type):
        raise UserError(f"{file}: {name} is {'a @pl.program, not a factory' if called else 'not a @pl.program'}"
                        f" (give FILE.py:Program, or FILE.py:factory(args) for a function that returns one)")
    try:
        obj = obj(*args, **kwargs)
    except PtokitError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's factory failed: say where, as Python would
        raise UserError(_import_failure(file, exc).replace(f"importing {file}", f"calling {name}", 1)) from exc
    if not isinstance(obj, ProgramSpec):
        raise UserError(f"{file}: {name}({', '.join(map(repr, args))}) returned {type(obj).__name__}, "
                        f"not a @pl.program")
    return obj


def _import_failure(file: Path, exc: BaseException) -> str:
    """``importing F raised E: msg`` plus where, innermost frame first that is not ptokit's own."""
    frames = traceback.extract_tb(exc.__traceback__)
    pkg = str(Path(__file__).resolve().parent)
    user = [f for f in frames if not str(Path(f.filename).resolve()).startswith(pkg)
            and "importlib" not in f.filename and not f.filename.startswith("<frozen")]
    text = f"importing {file} raised {type(exc).__name__}: {exc}"
    if user:
        f = user[-1]
        text += f"\n    at {f.filename}:{f.lineno}" + (f": {f.line}" if f.line else "")
    return text
