"""pypto's ``pypto.runtime.device_runner`` at the same path in ptokit: run an artifact tree step by
step, as a test that edits a compiled tree before running it does.

* ``compile_and_assemble(work_dir, platform)`` -- build the tree's kernels and orchestration and
  pack them: ``(chip_callable, runtime_name, runtime_config)``; the callable is the prepared tree
  (``ptokit.runtime.launcher.PreparedTree``), ``runtime_config`` the tree's ``RUNTIME_CONFIG``;
* ``build_orch_args_from_inputs(named_values, output_names)`` -- ``(orch_args, all_tensors,
  inputs, outputs)`` from ``(name, value)`` pairs in the orchestration's order: tensors (numpy,
  torch) and ``ctypes`` scalars; a tensor is an output when it is named in ``output_names`` or its
  name starts with ``out`` (pypto's rule);
* ``execute_on_device(chip_callable, orch_args, platform, runtime_name, device_id, ...)`` -- one
  run on the simulator, outputs written into the arrays;
* ``validate_golden(outputs, golden, rtol, atol)`` -- an ``AssertionError`` naming each output
  that differs (a NaN in the golden marks an element that is not compared).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ..errors import UserError
from ..targets import platform_to_use, runtime_kind_to_name
from .arrays import is_array
from .config import RunConfig
from .dfx import DEPS_FILE, SWIMLANE_FILE, write_deps
from .golden import GoldenMismatch, difference
from .launcher import PreparedTree, prepare_tree, run_prepared


def compile_and_assemble(work_dir, platform: str) -> Tuple[PreparedTree, str, Dict[str, Any]]:
    """Build and pack the tree ``work_dir`` (``kernel_config.py`` at its top) for ``platform``."""
    work_dir = Path(work_dir)
    if not (work_dir / "kernel_config.py").is_file():
        raise FileNotFoundError(f"{work_dir / 'kernel_config.py'} does not exist: compile the program into "
                                f"{work_dir} first (compile_program / ptokit.compile(output_dir=...))")
    prepared = prepare_tree(work_dir, RunConfig(platform=platform_to_use(platform)))
    kc = prepared.config
    return prepared, runtime_kind_to_name(kc.runtime), kc.runtime_config()


def build_orch_args_from_inputs(inputs_result: Iterable[Tuple[str, Any]], output_names
                                ) -> Tuple[List[Any], Dict[str, Any], Dict[str, Any], Dict[str, Any]]:
    """Sort ``(name, value)`` pairs into the run's arguments and the named tensors."""
    output_names = set(output_names)
    orch_args: List[Any] = []
    all_tensors: Dict[str, Any] = {}
    inputs: Dict[str, Any] = {}
    outputs: Dict[str, Any] = {}
    for name, value in inputs_result:
        if is_array(value):
            orch_args.append(value)
            all_tensors[name] = value
            (outputs if name in output_names or name.startswith("out") else inputs)[name] = value
        elif isinstance(value, ctypes._SimpleCData):
            orch_args.append(value)
            all_tensors[name] = value.value
        else:
            raise TypeError(f"build_orch_args_from_inputs: {name!r} is a {type(value).__name__}; expected a tensor "
                            f"(numpy array or torch tensor) or a ctypes scalar")
    return orch_args, all_tensors, inputs, outputs


@contextlib.contextmanager
def _environment(updates: Optional[Mapping[str, str]]):
    saved = {k: os.environ.get(k) for k in (updates or {})}
    os.environ.update({k: str(v) for k, v in (updates or {}).items()})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def execute_on_device(chip_callable: PreparedTree, orch_args: List[Any], platform: str, runtime_name: str,
                      device_id: int, *, level: int = 2, aicpu_thread_num: Optional[int] = None,
                      enable_sdma: bool = False, output_prefix: Optional[str] = None,
                      enable_chip_swimlane=0, enable_dump_args: int = 0, enable_pmu: int = 0,
                      enable_dep_gen: bool = False, enable_scope_stats: bool = False,
                      runtime_env: Optional[Mapping[str, str]] = None) -> None:
    """Run ``chip_callable`` (``compile_and_assemble``'s) once on ``orch_args``.

    ``level`` must be 2 (one chip).  ``enable_sdma`` asks for the workspace the vendor's prefetch
    artifacts use; the simulator runs trees that need none, so there is nothing to provision either
    way.  The diagnostics switches are ``RunConfig``'s: the swimlane trace and the dependency graph
    go to ``output_prefix`` when given (``chip_swimlane.json``, ``deps.json``), else to the tree's
    ``dfx_outputs/``; the argument dump to the tree's ``dumps/``.  ``runtime_env`` is set in the
    environment for the run and restored after."""
    if level != 2:
        raise ValueError(f"execute_on_device(level={level!r}): only level 2 (one chip) is supported")
    if not isinstance(chip_callable, PreparedTree):
        raise TypeError(f"execute_on_device takes the chip_callable compile_and_assemble returned, got "
                        f"{type(chip_callable).__name__}")
    tree_runtime = runtime_kind_to_name(chip_callable.config.runtime)
    if runtime_name != tree_runtime:
        raise UserError(f"execute_on_device(runtime_name={runtime_name!r}): the tree was compiled for "
                        f"runtime {tree_runtime!r}")
    fields = dict(platform=platform_to_use(platform), device_id=device_id, aicpu_thread_num=aicpu_thread_num or 0,
                  enable_chip_swimlane=enable_chip_swimlane, enable_dump_args=enable_dump_args,
                  enable_pmu=enable_pmu, enable_dep_gen=enable_dep_gen, enable_scope_stats=enable_scope_stats)
    if output_prefix is not None:
        prefix = Path(output_prefix)
        prefix.mkdir(parents=True, exist_ok=True)
        fields["enable_dep_gen"] = False                  # written below, into the prefix
        if enable_chip_swimlane:
            fields["trace"] = str(prefix / SWIMLANE_FILE)
    args = [a.value if isinstance(a, ctypes._SimpleCData) else a for a in orch_args]
    with _environment(runtime_env):
        result = run_prepared(chip_callable, args, RunConfig(**fields))
    if output_prefix is not None and enable_dep_gen:
        write_deps(Path(output_prefix) / DEPS_FILE, result)


def validate_golden(outputs: Mapping[str, Any], golden: Mapping[str, Any], rtol: float = 1e-5,
                    atol: float = 1e-5) -> None:
    """Compare each output with its golden (``isclose`` with ``rtol`` / ``atol``)."""
    missing = sorted(set(outputs) - set(golden))
    if missing:
        raise KeyError(f"validate_golden: no golden for output{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(map(repr, missing))}")
    problems = [d for d in (difference(name, actual, golden[name], rtol, atol, nan_unchecked=True)
                            for name, actual in outputs.items()) if d]
    if problems:
        raise GoldenMismatch("outputs differ from the golden:\n  " + "\n  ".join(problems))


__all__ = ["compile_and_assemble", "build_orch_args_from_inputs", "execute_on_device", "validate_golden"]
