"""Run an artifact tree: build (cache) + pack (callable image) + simulate."""
from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from ..artifacts.kernel_config import KernelConfig, param_dtype, read_kernel_config
from ..errors import UserError
from ..targets import SIM_PLATFORMS
from . import dfx, golden
from .abi import scalar_value
from . import statcache
from .build import INCLUDE_DIR, build_tree, tree_flags
from .compilers import fifo_rule_for
from .callable import pack_tree
from .config import DEFAULT_CLUSTERS, HARDWARE_CLUSTERS, RunConfig, valid_aicpu_thread_nums
from .progress import BuildProgress
from .sim.driver import load_image, run_binaries, start_library_build
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
    """``config`` with the tree's runtime kind / aicpu_thread_num / clusters filled in where unset."""
    if config is not None:
        config.checked()
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
    if config.clusters is None:
        # what a sync-start task of the tree needs to start all its blocks together, else the default
        hw = HARDWARE_CLUSTERS.get(config.platform, DEFAULT_CLUSTERS)
        changes["clusters"] = min(hw, max(DEFAULT_CLUSTERS, int(getattr(kernel_config, "sync_start_clusters", 0))))
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
    loaded: object = None    # the image's binaries as the simulator loads them (sim.load_image), once
    resolved: tuple = (None, None, None)   # (the RunConfig of the last run, resolve_config of it, its version)


# Trees prepared in this process: (tree, build inputs) -> (stat key, PreparedTree, paths). A call
# whose tree, sources, bundled headers and built objects are unchanged since it was prepared (the
# same name, size, mtime, ctime and inode of each: statcache.stat_key) reuses the packed image
# instead of re-hashing the sources and objects; any change rebuilds (the build cache's checks).
_prepared: dict = {}
_prepared_lock = threading.Lock()
_PREPARED_MAX = 64
_SOURCE_SUFFIXES = (".py", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inc")


def _prepared_key(tree_dir, config: Optional[RunConfig]) -> Optional[tuple]:
    if os.environ.get("PTO_ISA_ROOT"):     # headers outside the tree: always the full check
        return None
    cfg = (config.platform, config.ptoas_compat) if config is not None else None
    env = tuple(os.environ.get(v) for v in ("PTOKIT_CXX", "CXX", "PTOKIT_CACHE_DIR"))
    return (os.path.realpath(tree_dir), cfg, tree_flags(), env)


def _source_paths(root: Path) -> list:
    """The tree's sources and folders and the bundled headers: what a build of the tree reads."""
    files = statcache.tree_files(root, _SOURCE_SUFFIXES) + statcache.tree_files(INCLUDE_DIR)
    folders = sorted({os.path.dirname(f) for f in files} - {str(root)})  # an added file changes its folder's mtime
    return [str(root)] + folders + files


def prepare_tree(tree_dir, config: Optional[RunConfig] = None, *, jobs: Optional[int] = None,
                 quiet: bool = False) -> PreparedTree:
    """Build ``tree_dir`` (any tool's artifact tree; objects come from the build cache) and pack
    its callable image.  A long build shows progress on stderr when it is a terminal.  A tree
    prepared before in this process whose files are unchanged (a stat of each) is not looked up
    again (``_prepared``)."""
    key = _prepared_key(tree_dir, config) if statcache.enabled() else None
    if key is not None:
        with _prepared_lock:
            hit = _prepared.get(key)
        if hit is not None and statcache.stat_key(hit[2]) == hit[0]:
            return hit[1]
        sources = _source_paths(Path(key[0]))
        before = statcache.stat_key(sources)      # taken before the build: an edit during it is seen
    prepared, objects = _prepare_tree(tree_dir, config, jobs=jobs, quiet=quiet)
    if key is not None and statcache.stat_key(sources) == before:
        paths = sources + [str(f) for o in objects for f in (o, Path(o).with_suffix(".json"))]
        with _prepared_lock:
            _prepared.pop(key, None)
            while len(_prepared) >= _PREPARED_MAX:     # the oldest tree first
                _prepared.pop(next(iter(_prepared)))
            _prepared[key] = (statcache.stat_key(paths), prepared, paths)
    return prepared


def _prepare_tree(tree_dir, config: Optional[RunConfig], *, jobs: Optional[int], quiet: bool):
    kc = read_kernel_config(tree_dir)
    config = check_platform(kc, config)      # before spending time on a build
    # the FIFO rule of the assembler release the tree was written for (RunConfig.ptoas_compat for a
    # tree that does not record it, e.g. one the vendor toolchain wrote)
    compat = (config.ptoas_compat if config is not None else None) or kc.ptoas_compat
    rule = fifo_rule_for(compat, (config.platform if config is not None else None) or kc.platform)
    library = start_library_build()         # the simulator's own library, beside the tree's objects
    with BuildProgress(label=f"building {Path(tree_dir).name}", quiet=bool(quiet)) as progress:
        built = build_tree(tree_dir, jobs=jobs, progress=progress, fifo_rule=rule)
    if library is not None:
        library.join()
    kc = built.config
    prepared = PreparedTree(Path(tree_dir), kc, pack_tree(built), {k.func_id: k.name for k in kc.kernels},
                            {k.func_id: k.core_type for k in kc.kernels})
    return prepared, [built.orchestration_so] + list(built.kernel_sos.values())


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
    if config is not None:
        config.checked()             # fields assigned since construction are validated on use
    version = config.version if config is not None else None
    if prepared.resolved[0] is not config or prepared.resolved[1] is None or prepared.resolved[2] != version:
        prepared.resolved = (config, resolve_config(kc, config), version)
    config = prepared.resolved[1]
    check_args(kc, args)
    config = dfx.before_run(prepared.root, config)
    if prepared.loaded is None or not prepared.loaded[0].sealed:   # once per tree: sealed files, site table
        prepared.loaded = (load_image(prepared.image, prepared.kernel_names, prepared.kernel_core_types),
                           _sites(prepared), scalar_dtypes_of(kc))
    image, sites, scalar_dtypes = prepared.loaded
    result = run_binaries(image.orchestration, image.kernels, list(args), config, func_name=image.func_name,
                          signature=image.signature, scalar_dtypes=scalar_dtypes,
                          dump_dir=prepared.root / "dumps", sites=sites,
                          arg_names=[p.get("name") for p in kc.orchestration.params or ()])
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
