"""pypto's compile-and-run entry points (``pypto.runtime.run`` / ``compile_program``), re-exported
by ``ptokit.runtime``.  They sit above the compiler and the runtime, as a test harness does.

``run`` has pypto's two forms:

* ``run(program, *args, config=None)`` compiles ``program`` (a ``@pl.program`` class or an
  ``ir.Program``), runs it with ``args`` unless there are none or ``config.codegen_only``, and
  returns the ``CompiledProgram``;
* ``run(program, tensor_specs, golden=None, config=None, scalar_specs=None)`` builds the
  arguments from ``TensorSpec`` / ``ScalarSpec`` (matched to the parameters by name), computes the
  expected outputs with ``golden(tensors)`` (or ``golden(tensors, params)``), runs and compares
  every ``is_output`` tensor within ``config.rtol`` / ``config.atol``; it returns a ``RunResult``
  whose ``passed`` / ``error`` say how that went (it does not raise).

With ``golden_data_dir`` the golden form reuses ``<dir>/in/*.npy`` and ``<dir>/out/*.npy`` when
all are there, and writes them there otherwise.  The artifact tree goes to
``save_kernels_dir``, else (``save_kernels=True``) ``build_output/<name>_<time>``, else a
temporary folder removed after the run.
"""
from __future__ import annotations

import inspect
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from .errors import UserError, api_boundary
from .ir import nodes as N
from .language.decorators import ProgramSpec
from .runtime import golden as G
from .runtime.arrays import is_torch_tensor
from .runtime.config import RunConfig
from .runtime.records import RunResult
from .runtime.specs import ScalarSpec, TensorSpec
from .targets import (MemoryPlanner, OptimizationStrategy, backend_type_of, coerce_backend_type, coerce_named)
from .toolchain import compile_program as _compile, default_output_dir


def _program_name(program) -> str:
    if isinstance(program, (ProgramSpec, N.Program)):
        return program.name
    raise TypeError(f"expected a @pl.program class or an ir.Program, got {program!r}")


def compile_program(program, work_dir, *, strategy=OptimizationStrategy.Default, backend_type=None,
                    dump_passes: bool = False, diagnostic_phase=None, disabled_diagnostics=None,
                    profiling: bool = False, analyze_auto_scopes_for_deps: bool = False, memory_planner=None,
                    enable_pypto_l0c_double_buffer: Optional[bool] = None, platform: Optional[str] = None,
                    runtime=None, dump_ptoas_passes: bool = False):
    """Compile ``program`` into ``work_dir`` (pypto's ``runtime.compile_program``); returns the
    ``CompiledProgram``.  ``backend_type`` picks the chip (its simulator unless ``platform`` says
    otherwise).  ``memory_planner`` is the compile's (docs/simulator.md); ``strategy`` /
    ``diagnostic_*`` / ``analyze_auto_scopes_for_deps`` / ``enable_pypto_l0c_double_buffer`` are
    checked and have nothing to change in ptokit's compile (docs/simulator.md, "RunConfig fields")."""
    _program_name(program)
    coerce_named(OptimizationStrategy, strategy, "strategy")
    memory_planner = coerce_named(MemoryPlanner, memory_planner, "memory_planner")
    for name, value in (("analyze_auto_scopes_for_deps", analyze_auto_scopes_for_deps),
                        ("enable_pypto_l0c_double_buffer", enable_pypto_l0c_double_buffer)):
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"{name}={value!r}: must be True or False")
    if backend_type is not None:
        bt = coerce_backend_type(backend_type)
        if platform is not None and backend_type_of(platform) is not bt:
            raise ValueError(f"backend_type={bt!r} and platform={platform!r} are different chips")
        platform = platform or bt.sim_platform()
    return _compile(program, output_dir=work_dir, platform=platform or "a2a3sim", runtime=runtime,
                    dump_passes=dump_passes, dump_ptoas_passes=dump_ptoas_passes, profiling=profiling,
                    **({"memory_planner": memory_planner} if memory_planner is not None else {}))


def _compile_with(program, config: RunConfig, output_dir):
    kw = config.compile_kwargs()
    kw["output_dir"] = output_dir
    return _compile(program, **kw)


@api_boundary
def run(program, *args, config: Optional[RunConfig] = None, golden: Optional[Callable] = None,
        scalar_specs: Optional[Sequence[ScalarSpec]] = None, tensor_specs: Optional[Sequence[TensorSpec]] = None,
        golden_fn: Optional[Callable] = None):
    """Compile ``program`` and run it; see the module docstring for the two forms."""
    if config is not None and not isinstance(config, RunConfig):
        raise TypeError(f"config must be a ptokit.runtime.RunConfig, got {type(config).__name__}")
    config = config.checked() if config is not None else RunConfig()
    name = _program_name(program)
    specs_form = tensor_specs is not None or (args and isinstance(args[0], (list, tuple)) and args[0]
                                              and all(isinstance(s, TensorSpec) for s in args[0]))
    if not specs_form:
        if golden is not None or golden_fn is not None or scalar_specs is not None:
            raise TypeError("golden= / scalar_specs= belong to the form run(program, tensor_specs, golden, config); "
                            "pass the TensorSpec list as the second argument")
        compiled = _compile_with(program, config, config.save_kernels_dir)
        if args and not config.codegen_only:
            compiled(*args, config=config)
        return compiled
    rest = list(args)
    if tensor_specs is None:
        tensor_specs = rest.pop(0)
    for slot in ("golden", "config", "scalar_specs"):    # pypto's positional order
        if not rest:
            break
        value = rest.pop(0)
        if slot == "golden":
            golden = value
        elif slot == "config":
            config = value
        else:
            scalar_specs = value
    if rest:
        raise TypeError(f"run(program, tensor_specs, golden, config, scalar_specs) takes at most 5 positional "
                        f"arguments; {len(args) + 1} were given")
    if golden is not None and golden_fn is not None:
        raise TypeError("give golden= or golden_fn=, not both")
    return _run_specs(program, name, list(tensor_specs), golden or golden_fn, config, list(scalar_specs or ()))


def _call_golden(fn: Callable, tensors: dict) -> None:
    try:
        n = len([p for p in inspect.signature(fn).parameters.values()
                 if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    except (TypeError, ValueError):
        n = 1
    if n >= 2:
        fn(tensors, {"name": "Default"})     # pypto's golden(tensors, params)
    else:
        fn(tensors)


def _arguments(compiled, specs: List[TensorSpec], scalars: List[ScalarSpec], values: dict) -> list:
    params = compiled.params
    if params is None:
        raise UserError(f"{compiled.output_dir / 'kernel_config.py'} lists no ORCHESTRATION params to match the "
                        f"specs to")
    by_name = {s.name: s for s in scalars}
    known = {s.name for s in specs} | set(by_name)
    wanted = {p.name for p in params}
    extra, missing = sorted(known - wanted), [p.name for p in params if p.name not in known]
    if extra or missing:
        raise UserError(f"the specs do not match the parameters of {compiled.name} "
                        f"({', '.join(p.name for p in params)}): " +
                        "; ".join(([f"no parameter named {', '.join(extra)}"] if extra else []) +
                                  ([f"no spec for {', '.join(missing)}"] if missing else [])))
    out = []
    for p in params:
        if p.kind == "scalar":
            s = by_name.get(p.name)
            if s is None:
                raise UserError(f"parameter {p.name!r} is a scalar of {p.dtype.name}: give it a ScalarSpec")
            if p.dtype is not None and not s.suits(p.dtype):
                raise UserError(f"ScalarSpec {p.name!r} has ctype {s.ctype!r}, but the parameter is {p.dtype.name}")
            out.append(s.value)
        else:
            if p.name in by_name:
                raise UserError(f"parameter {p.name!r} is a tensor; give it a TensorSpec, not a ScalarSpec")
            out.append(values[p.name])
    return out


def _run_specs(program, name: str, specs: List[TensorSpec], golden: Optional[Callable], config: RunConfig,
               scalars: List[ScalarSpec]) -> RunResult:
    start = time.perf_counter()
    temp = None
    if config.save_kernels_dir:
        out_dir = Path(config.save_kernels_dir)
    elif config.save_kernels:
        out_dir = default_output_dir(name)
    else:
        out_dir = temp = Path(tempfile.mkdtemp(prefix=f"ptokit-run-{name}-"))
    profile = None
    try:
        compiled = _compile_with(program, config, out_dir)
        if config.compile_profiling and compiled.times is not None:
            profile = {k: float(v) for k, v in vars(compiled.times).items()}
        if config.codegen_only:
            return RunResult(passed=True, execution_time=time.perf_counter() - start, profile=profile,
                             platform=config.platform, device_id=config.device_id)
        outputs = [s.name for s in specs if s.is_output]
        inputs = [s.name for s in specs if not s.is_output]
        data = config.golden_data_dir
        given = G.load_arrays(data, G.INPUTS, inputs) if data else None
        expected = G.load_arrays(data, G.OUTPUTS, outputs) if data and given is not None else None
        values = {s.name: s.create_tensor() for s in specs}
        if given is not None:
            for s in specs:
                if s.name in given:
                    G.as_numpy(values[s.name])[...] = given[s.name]
        args = _arguments(compiled, specs, scalars, values)
        if expected is None and golden is not None:
            # copies of the values, of their kind: a torch-typed spec's golden computes on torch tensors
            tensors = {k: v.detach().clone() if is_torch_tensor(v) else G.as_numpy(v).copy() for k, v in values.items()}
            _call_golden(golden, tensors)
            expected = {n: tensors[n] for n in outputs}
            if data:
                G.save_arrays(data, G.INPUTS, {n: values[n] for n in inputs})
                G.save_arrays(data, G.OUTPUTS, expected)
        result = compiled(*args, config=config.replace(golden_data_dir=None))
        problems = [] if expected is None else [
            p for p in (G.difference(n, values[n], expected[n], config.rtol, config.atol) for n in outputs) if p]
        result.passed = not problems
        result.error = ("outputs differ from the golden:\n  " + "\n  ".join(problems)) if problems else None
        result.execution_time = time.perf_counter() - start
        result.profile = profile
        return result
    except Exception as exc:  # noqa: BLE001 - pypto's run reports every failure in its RunResult
        return RunResult(passed=False, error=f"{type(exc).__name__}: {exc}", execution_time=time.perf_counter() - start,
                         profile=profile, platform=config.platform, device_id=config.device_id)
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
