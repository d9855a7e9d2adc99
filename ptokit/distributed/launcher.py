"""Run a distributed artifact tree (docs/distributed.md): build and pack every chip tree once,
start the ranks, run the host function, clean up.

* ``open_session(tree, config)`` -> a started ``Session`` (ranks kept until ``close``; every
  ``call`` is one host call with fresh windows and arena);
* ``run_distributed(tree, args, config)`` -> ``DistributedRunResult``: one call, ranks started
  and stopped around it;
* ``run_chip_tree(tree, args, config)``: a single chip tree of a distributed program on one
  rank with a private window (``ptokit run`` on a ``next_levels/<fn>/`` folder).

``config`` is a ``RunConfig``; its ``distributed_config`` (else the compiled one) gives the
devices, runtime kind, AICPU threads and transport; ``RunConfig.runtime`` and a non-zero
``aicpu_thread_num`` win over it.
"""
from __future__ import annotations

import dataclasses
from math import prod
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence

from ..artifacts.distributed_config import DistributedManifest, read_distributed_config
from ..artifacts.host_orch import load_script_function
from ..artifacts.kernel_config import read_kernel_config
from ..runtime.build import build_tree
from ..runtime.callable import pack_tree
from ..runtime.config import RunConfig, valid_aicpu_thread_nums
from ..runtime.progress import BuildProgress
from ..runtime.trace import write_trace_ranks
from ..targets import SIM_PLATFORMS, DistributedConfig
from .host import _dtype
from .messages import ChipImage
from .result import DistributedRunResult
from .session import Session
from .transport import make_transport


def compiled_distributed_config(m: DistributedManifest) -> DistributedConfig:
    return DistributedConfig(device_ids=m.device_ids, num_sub_workers=m.num_sub_workers, runtime=m.runtime,
                             aicpu_thread_num=m.aicpu_thread_num, transport=m.transport)


def resolve(platform: str, where: str, config: Optional[RunConfig], dconfig: DistributedConfig):
    """(RunConfig of every rank, DistributedConfig) for a tree compiled for ``platform``."""
    if platform not in SIM_PLATFORMS:
        raise ValueError(f"{where} was compiled for the {platform!r} hardware platform; running it needs the "
                         f"vendor toolchain and devices. Compile with platform='{platform}sim' to run it on the "
                         f"CPU simulator")
    config = config.checked() if config is not None else RunConfig(platform=platform)
    if config.platform != platform:
        raise ValueError(f"{where} was compiled for {platform}, but the run asks for {config.platform}; compile it "
                         f"for {config.platform}")
    if config.distributed_config is not None and not isinstance(config.distributed_config, DistributedConfig):
        raise TypeError(f"RunConfig(distributed_config={config.distributed_config!r}): expected a "
                        f"ptokit.DistributedConfig")
    dconfig = config.distributed_config or dconfig
    threads = config.aicpu_thread_num or dconfig.aicpu_thread_num
    if threads not in valid_aicpu_thread_nums(platform):
        raise ValueError(f"aicpu_thread_num={threads} is not valid on {platform}; valid values are "
                         f"{', '.join(map(str, valid_aicpu_thread_nums(platform)))}")
    rank_config = dataclasses.replace(config, runtime=config.runtime or dconfig.runtime, aicpu_thread_num=threads,
                                      trace=None, distributed_config=None)
    return rank_config, dconfig


def chip_images(chips: Dict[str, Path], world_size: int, platform: str, *, jobs: Optional[int] = None,
                quiet: bool = False) -> Dict[str, ChipImage]:
    """Build and pack every chip tree (build cache); check each fits ``world_size`` ranks."""
    images = {}
    for name, path in chips.items():
        kc = read_kernel_config(path)
        where = Path(kc.root) / "kernel_config.py"
        if kc.orchestration.params is None:
            raise ValueError(f"{where}: a chip tree of a distributed program lists its ORCHESTRATION params (which "
                             f"are windows and which the hidden CommContext scalars)")
        ws = (kc.distributed or {}).get("world_size")
        if isinstance(ws, int) and ws != world_size:
            raise ValueError(f"{where} was compiled for {ws} ranks, the run has {world_size}")
        if kc.platform is not None and kc.platform != platform:
            raise ValueError(f"{where} was compiled for {kc.platform}, the program runs on {platform}")
        with BuildProgress(label=f"building {name}", quiet=bool(quiet)) as progress:
            built = build_tree(path, jobs=jobs, progress=progress)
        images[name] = ChipImage(name, pack_tree(built), [dict(p) for p in kc.orchestration.params],
                                 {k.func_id: k.name for k in kc.kernels},
                                 {k.func_id: k.core_type for k in kc.kernels})
    return images


def open_session(tree, config: Optional[RunConfig] = None, *, jobs: Optional[int] = None,
                 quiet: bool = False, sub_workers: Optional[Dict[str, Callable]] = None) -> Session:
    """``sub_workers``: Python functions that run SubWorkers in place of the tree's scripts
    (``bind_sub_workers``).  SubWorkers run one at a time in the calling process, whatever
    ``num_sub_workers`` says (the pool's concurrency is not simulated; the results are the same)."""
    m = read_distributed_config(tree)
    rank_config, dconfig = resolve(m.platform, str(Path(m.root) / "distributed_config.py"), config,
                                   compiled_distributed_config(m))
    if m.world_size_name is None and dconfig.world_size != m.world_size:
        raise ValueError(f"{Path(m.root) / 'distributed_config.py'} was compiled for {m.world_size} ranks; "
                         f"DistributedConfig(device_ids={dconfig.device_ids}) asks for {dconfig.world_size}")
    entry = load_script_function(m.entry.source, m.entry.sha256, m.entry.function_name)
    images = chip_images({c.name: c.path for c in m.chips}, dconfig.world_size, m.platform, jobs=jobs, quiet=quiet)
    subs = {s.name: (lambda s=s: load_script_function(s.source, s.sha256, s.function_name, params=None))
            for s in m.sub_workers}
    subs.update({name: (lambda fn=fn: fn) for name, fn in (sub_workers or {}).items()})
    session = Session(device_ids=dconfig.device_ids, config=rank_config, chips=images, entry=entry,
                      transport=make_transport(dconfig.transport), host_params=m.params,
                      world_size_name=m.world_size_name, domains=m.domains, collectives=m.collectives,
                      sub_workers=subs)
    return session.start()


def _write_trace(config: Optional[RunConfig], result: DistributedRunResult) -> None:
    if config is not None and config.trace:
        write_trace_ranks(config.trace, [(f"rank {r} (device {d})", res)
                                         for r, (d, res) in enumerate(zip(result.device_ids, result.ranks))])


def run_distributed(tree, args: Sequence, config: Optional[RunConfig] = None, *, jobs: Optional[int] = None,
                    quiet: bool = False, sub_workers: Optional[Dict[str, Callable]] = None) -> DistributedRunResult:
    """Run a distributed tree once; OUT/INOUT host arrays are written back into ``args``."""
    session = open_session(tree, config, jobs=jobs, quiet=quiet, sub_workers=sub_workers)
    try:
        result = session.call(list(args))
    finally:
        session.close()
    _write_trace(config, result)
    return result


def _private_window_entry(chip: str, params):
    windows = [p for p in params if p["kind"] == "window"]
    for p in windows:
        shape = p.get("shape", [])
        if not all(isinstance(d, int) for d in shape):
            raise ValueError(f"window param '{p['name']}' has a dynamic shape {shape}; a private window needs a "
                             f"static one")

    def entry(rt, tensors, world_size):
        slots = rt.alloc_domain([(p["name"], max(prod(p["shape"]) * _dtype(p.get("dtype", "FP32")).itemsize, 1))
                                 for p in windows]) if windows else []
        wins = {p["name"]: rt.window(s, p["shape"], p.get("dtype", "FP32")) for p, s in zip(windows, slots)}
        given = iter(tensors)
        targs, sargs = [], []
        for p in params:
            if p["kind"] == "window":
                targs.append(wins[p["name"]])
            elif p["kind"] == "tensor":
                targs.append(next(given))
            elif p["kind"] == "scalar":
                sargs.append(next(given))
        rt.dispatch(0, chip, targs, sargs)

    return entry


def run_chip_tree(tree, args: Sequence, config: Optional[RunConfig] = None, *, jobs: Optional[int] = None,
                  quiet: bool = False) -> DistributedRunResult:
    """One rank (device 0) runs a chip tree of a distributed program, each window param a private,
    zero-filled window; ``args``: its tensor and scalar params in order (windows and CommContext
    scalars are supplied)."""
    kc = read_kernel_config(tree)
    platform = kc.platform or (config.platform if config else "a2a3sim")
    rank_config, dconfig = resolve(platform, str(Path(kc.root) / "kernel_config.py"), config,
                                   DistributedConfig(device_ids=[0], runtime=kc.runtime,
                                                     aicpu_thread_num=kc.aicpu_thread_num))
    ws = (kc.distributed or {}).get("world_size")
    if isinstance(ws, int) and ws != 1:
        raise ValueError(f"{Path(kc.root) / 'kernel_config.py'} was compiled for {ws} ranks; on its own a chip tree "
                         f"runs on one rank (run the distributed tree above it instead)")
    name = Path(kc.root).name
    images = chip_images({name: Path(kc.root)}, 1, platform, jobs=jobs, quiet=quiet)
    params = images[name].params
    session = Session(device_ids=[0], config=rank_config, chips=images, entry=_private_window_entry(name, params),
                      transport=make_transport("shm"),
                      host_params=[p for p in params if p["kind"] in ("tensor", "scalar")])
    try:
        result = session.call(list(args))
    finally:
        session.close()
    _write_trace(config, result)
    return result


__all__ = ["open_session", "run_distributed", "run_chip_tree", "chip_images", "resolve",
           "compiled_distributed_config"]
