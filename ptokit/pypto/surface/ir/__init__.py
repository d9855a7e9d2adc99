"""``pypto.ir`` under ``ptokit pypto``: ``compile`` with pypto's signature, the type classes
(``TensorType``, ``TileType``) and the configuration enums; any other name is ``ptokit.ir``'s
(``Function``, ``Program``, ``serialize`` / ``deserialize``, ``python_print``, the
compiled-program classes and their modules).  pypto's IR builder, visitors, mutators and pass
objects are not provided."""
from __future__ import annotations

import datetime
import os
from pathlib import Path

from ....ir.kinds import FunctionType  # noqa: F401
from ....targets import (BackendType, DistributedConfig, OptimizationStrategy, coerce_backend_type,  # noqa: F401
                         notice_once, platform_to_use)
from .... import compile as _ptokit_compile
from ....errors import UserError
from .._names import surface_getattr
from . import pass_manager  # noqa: F401
from .pass_manager import PassDumpLevel  # noqa: F401
from ....pypto_core.passes import (DiagnosticCheck, DiagnosticCheckSet, DiagnosticPhase,  # noqa: F401
                                   VerificationLevel, VerificationMode)


def compile(program, output_dir=None, strategy=OptimizationStrategy.Default, dump_passes=True,  # noqa: A001
            backend_type=None, skip_ptoas=False, verification_level=None, diagnostic_phase=None,
            disabled_diagnostics=None, memory_planner=None, enable_pypto_l0c_double_buffer=None, profiling=False,
            platform=None, distributed_config=None, analyze_auto_scopes_for_deps=False, emit_source_loc=None,
            dump_ptoas_passes=False, runtime=None):
    """pypto's ``ir.compile``: a ``CompiledProgram`` (a ``DistributedCompiledProgram`` for a
    program with a host-level function; ``distributed_config`` defaults to one device).

    ``backend_type`` (default: Ascend910B) alone picks its chip's simulator; a hardware ``platform`` runs on its
    simulator under ``ptokit pypto``.  ``memory_planner`` is ptokit.compile's (docs/simulator.md).
    The verification, diagnostic, L0C double-buffer and dependency-analysis options are accepted
    and change nothing here (ptokit verifies always, emits no diagnostics); ``skip_ptoas=True`` is
    not provided (ptokit always assembles)."""
    if skip_ptoas:
        raise UserError("pypto.ir.compile(skip_ptoas=True) is not provided by ptokit (its assembler always runs; "
                        "the .pto files are in the tree's ptoas/ folder either way)")
    if OptimizationStrategy(getattr(strategy, "value", strategy)) is not OptimizationStrategy.Default:
        raise UserError(f"strategy={strategy!r}: ptokit has OptimizationStrategy.Default only")
    level = PassDumpLevel.coerce(dump_passes)
    if platform is None:
        if backend_type is None:          # pypto's default backend: Ascend910B (a2a3)
            platform = "a2a3sim"
        else:
            bt = coerce_backend_type(backend_type)
            platform = bt.sim_platform()
            notice_once(f"backend:{bt.name}", f"backend_type={bt!r} is the {bt.arch} chip: running it on the "
                        f"{platform} simulator")
    platform = platform_to_use(platform)
    if output_dir is None and os.environ.get("PYPTO_PROG_BUILD_DIR"):
        stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S_%f")
        output_dir = Path(os.environ["PYPTO_PROG_BUILD_DIR"]) / f"{getattr(program, 'name', 'program')}_{stamp}"
    dump = level is not PassDumpLevel.NONE
    if dump and _has_host_function(program):
        # pypto's default (True) asks for the IR dumps of every compile; ptokit writes them for
        # one-chip compiles only
        notice_once("dump_passes:distributed", "dump_passes: the per-pass IR dumps are written for one-chip "
                    "programs; this distributed program is compiled without them")
        dump = False
    kw = {}
    if distributed_config is not None:
        kw["distributed_config"] = distributed_config
    if emit_source_loc is not None:
        kw["with_loc"] = bool(emit_source_loc)
    if profiling:
        kw["profiling"] = True
    if memory_planner is not None:
        kw["memory_planner"] = memory_planner
    return _ptokit_compile(program, output_dir=output_dir, platform=platform, runtime=runtime,
                           dump_passes=dump, dump_ptoas_passes=bool(dump_ptoas_passes),
                           **kw)


def _has_host_function(program) -> bool:
    # lazy: the front end loads with the compile
    from ....distributed_build import class_units, is_host_unit
    from ....language.decorators import ProgramSpec
    return isinstance(program, ProgramSpec) and any(is_host_unit(u) for u in class_units(program))


__getattr__ = surface_getattr("pypto.ir", "ptokit.ir", lazy={
    "TensorType": "ptokit.ir.types:TensorType", "TileType": "ptokit.ir.types:TileType"})
