"""Run an artifact tree: build (cache) + pack (callable image) + simulate."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from ..artifacts.kernel_config import KernelConfig, param_dtype, read_kernel_config
from ..errors import UserError
from ..targets import SIM_PLATFORMS
from . import dfx, golden
from .abi import scalar_value
from .build import build_tree
from .compilers import fifo_rule_for
from .callable import pack_tree
from .config import RunConfig, valid_aicpu_thread_nums
from .progress import BuildProgress
from .sim import run_image
from .sim.races import load_sites


def check_platform(kernel_config, config: Optional[RunConfig]) -> Optional[RunConfig]:
    """A tree compiled for hardware is not run; a simulator tree runs on its own platform."""
    tree_platform = getattr(kernel_config, "platform", None)
    where = Path(kernel_config.root) / "kernel_config.py"
    if tree_platform is None:
        return config
    if tree_platform not in SIM_PLATFORMS:
        raise ValueError(f"{where} was compiled for the {tree_platform!r} hardware platform; running it needs "
                         f"the vendor toolchain and device. Compile with --platform {tree_platform}sim to run it "
                         f"on the CPU simulator")
    if config is None:
        return RunConfig(platform=tree_platform)
    if config.platform != tree_platform:
        raise ValueError(f"{where} was compiled for {tree_platform}, but the run asks for {config.platform}; "
                         f"compile it for {config.platform} (buffer capacities and kernels differ)")
    return config


def resolve_config(kernel_config, config: Optional[RunConfig]) -> RunConfig:
    """``config`` with the tree's runtime kind / aicpu_thread_num filled in where unset."""
    config = check_platform(kernel_config, config) or RunConfig()
    changes = {}
    if config.runtime is None:
        changes["runtime"] = kernel_config.runtime
    if config.aicpu_thread_num == 0 and kernel_config.aicpu_thread_num:
        n = int(kernel_config.aicpu_thread_num)
        valid = valid_aicpu_thread_nums(config.platform)
        if n not in valid:
            raise ValueError(f"{Path(kernel_config.root) / 'kernel_config.py'}: aicpu_thread_num={n} is not valid "
                             f"on {config.platform}; valid values are {', '.join(map(str, valid))}")
        changes["aicpu_thread_num"] = n
    return dataclasses.replace(config, **changes) if changes else config


def scalar_dtypes_of(kernel_config) -> Optional[list]:
    """Per orchestration argument: the IR dtype of scalars (None for tensors), from ``params``."""
    params = kernel_config.orchestration.params
    if not params:
        return None
    return [param_dtype(p) for p in params]


def check_args(kernel_config, args: Sequence) -> None:
    """Argument count against ``params``, and every scalar through ``abi.scalar_value`` (a
    TypeError naming the parameter when it does not convert exactly to its dtype)."""
    params = kernel_config.orchestration.params
    if params is not None and len(params) != len(args):
        names = ", ".join(str(p.get("name")) for p in params)
        raise ValueError(f"the program takes {len(params)} arguments ({names}), {len(args)} were given")
    for i, (p, a) in enumerate(zip(params or (), args)):
        if p.get("kind") == "scalar":
            scalar_value(a, p.get("dtype"), f"argument {i} ({p.get('name')})")


@dataclass
class PreparedTree:
    """A built and packed tree: what a run needs besides its arguments (``ChipWorker`` keeps
    these across calls so a registered program is not looked up and packed again)."""

    root: Path
    config: KernelConfig
    image: bytes
    kernel_names: dict = field(default_factory=dict)
    kernel_core_types: dict = field(default_factory=dict)


def prepare_tree(tree_dir, config: Optional[RunConfig] = None, *, jobs: Optional[int] = None,
                 quiet: bool = False) -> PreparedTree:
    """Build ``tree_dir`` (any tool's artifact tree; objects come from the build cache) and pack
    its callable image.  A long build shows progress on stderr when it is a terminal."""
    kc = read_kernel_config(tree_dir)
    config = check_platform(kc, config)      # before spending time on a build
    # the FIFO rule of the assembler release the tree was written for (RunConfig.ptoas_compat for a
    # tree that does not record it, e.g. one the vendor toolchain wrote)
    compat = (config.ptoas_compat if config is not None else None) or kc.ptoas_compat
    rule = fifo_rule_for(compat, (config.platform if config is not None else None) or kc.platform)
    with BuildProgress(label=f"building {Path(tree_dir).name}", quiet=bool(quiet)) as progress:
        built = build_tree(tree_dir, jobs=jobs, progress=progress, fifo_rule=rule)
    kc = built.config
    return PreparedTree(Path(tree_dir), kc, pack_tree(built), {k.func_id: k.name for k in kc.kernels},
                        {k.func_id: k.core_type for k in kc.kernels})


def output_params(kernel_config, args: Sequence) -> dict:
    """``{name: array}`` of the OUT / INOUT tensor arguments, by the ORCHESTRATION params."""
    params = kernel_config.orchestration.params or []
    return {p["name"]: a for p, a in zip(params, args)
            if p.get("kind") == "tensor" and p.get("direction") in ("OUT", "INOUT")}


def _sites(prepared: PreparedTree):
    """The DSL call site of each submission (the race checker's reports), if the tree has them."""
    src = getattr(prepared.config.orchestration, "source", None)
    if src is not None and not Path(src).is_absolute():
        src = prepared.root / src
    return load_sites(src)


def run_prepared(prepared: PreparedTree, args: list, config: Optional[RunConfig] = None):
    """Run a prepared tree; outputs are written back into the caller's arrays.  The run
    diagnostics the config asks for are written (``runtime.dfx``), and with ``golden_data_dir``
    the outputs are compared with their goldens (``runtime.golden``)."""
    kc = prepared.config
    config = resolve_config(kc, config)
    check_args(kc, args)
    config = dfx.before_run(prepared.root, config)
    result = run_image(prepared.image, list(args), config, kernel_names=prepared.kernel_names,
                       scalar_dtypes=scalar_dtypes_of(kc), kernel_core_types=prepared.kernel_core_types,
                       dump_dir=prepared.root / "dumps", sites=_sites(prepared))
    result.device_id = config.device_id
    dfx.after_run(prepared.root, config, result)
    if config.golden_data_dir:
        outputs = output_params(kc, args)
        if not outputs:
            raise UserError(f"golden_data_dir is set, but {prepared.root / 'kernel_config.py'} names no output "
                            f"parameters (ORCHESTRATION params) to compare")
        golden.check_outputs(outputs, config.golden_data_dir, config.rtol, config.atol)
    return result


def run_tree(tree_dir, args: list, config: Optional[RunConfig] = None, *, jobs: Optional[int] = None,
             quiet: bool = False):
    """Build ``tree_dir`` (any tool's artifact tree), pack it and run it on the simulator.

    A long build shows progress on stderr when it is a terminal (``quiet=True`` or
    ``PTOKIT_PROGRESS=0`` turns it off); ``config.trace`` writes a run trace.

    Output and inout tensors are written back into the caller's arrays; returns a RunResult.
    """
    return run_prepared(prepare_tree(tree_dir, config, jobs=jobs, quiet=quiet), args, config)
