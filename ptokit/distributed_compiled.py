"""DistributedCompiledProgram: a compiled distributed program (an artifact tree with
``distributed_config.py``), callable like ``CompiledProgram``.

``compiled(*args, config=None)`` runs the host function on ``len(device_ids)`` simulated chips
(``ptokit.distributed.launcher.run_distributed``), writes OUT/INOUT host arrays back in place and
keeps the run's ``DistributedRunResult`` in ``compiled.last_result``; called without its ``pl.Out``
tensors (pypto's return style) it allocates and returns them.  A ``RunConfig`` without
``distributed_config`` keeps the compiled one.  ``DistributedCompiledProgram.from_dir(dir)``
reloads a tree written before.

SubWorkers (``level=pl.Level.HOST, role=pl.Role.SubWorker``) run in the calling process: a body
declared in the program runs as the compile bound it; an abstract one (``...``) needs
``prepare(callbacks={name: fn})`` (docs/distributed.md).

``DistributedWorker([prog_a, prog_b])`` (pypto's ``pypto.runtime.DistributedWorker``; also
``prog_a.prepare(extra_compiled=[prog_b])``) runs several distributed programs on one worker
with resident tensors: ``rt.alloc_tensor(shape, dtype)`` is a ``DeviceTensor`` that keeps its
contents across runs of any of them, ``rt.run(prog, *args)`` runs one (``rt(*args)`` when there
is only one), ``rt.close()`` frees every tensor.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from typing import Callable, Dict, List, Optional

from .artifacts.distributed_config import read_distributed_config
from .errors import api_boundary
from .runtime.config import RunConfig
from .runtime.worker import Worker
from .targets import SIM_PLATFORMS, DistributedConfig, platform_to_use


class DistributedCompiledProgram:
    __test__ = False

    def __init__(self, output_dir, *, distributed_config: Optional[DistributedConfig] = None,
                 platform: Optional[str] = None, times=None, recompile: Optional[Callable] = None,
                 sub_workers: Optional[Dict[str, Callable]] = None):
        # lazy: the launcher pulls in the simulator driver and the build cache, which compiling alone
        # (a hardware platform, `ptokit compile`) never needs
        from .distributed.launcher import compiled_distributed_config
        self.output_dir = Path(output_dir).resolve()
        self.manifest = read_distributed_config(self.output_dir)
        if distributed_config is not None and not isinstance(distributed_config, DistributedConfig):
            raise TypeError(f"distributed_config must be a ptokit.DistributedConfig, got {distributed_config!r}")
        self.distributed_config = distributed_config or compiled_distributed_config(self.manifest)
        self.platform = platform or self.manifest.platform
        self.times = times
        self.recompile = recompile
        self.sub_workers = dict(sub_workers or {})   # SubWorker name -> its Python body (this process)
        self.last_result = None

    @property
    def sub_worker_names(self) -> List[str]:
        return [s.name for s in self.manifest.sub_workers]

    @property
    def required_callbacks(self) -> List[str]:
        """The abstract SubWorkers (``...`` body): each needs ``prepare(callbacks={name: fn})``."""
        return [s.name for s in self.manifest.sub_workers if s.runtime_bound]

    @classmethod
    def from_dir(cls, output_dir, *, distributed_config: Optional[DistributedConfig] = None,
                 platform: Optional[str] = None) -> "DistributedCompiledProgram":
        """Reload a distributed tree (``distributed_config.py`` at its top)."""
        return cls(output_dir, distributed_config=distributed_config, platform=platform)

    @property
    def world_size(self) -> int:
        return self.distributed_config.world_size

    @property
    def device_ids(self) -> list:
        return list(self.distributed_config.device_ids)

    @property
    def name(self) -> str:
        return self.output_dir.name

    @api_boundary
    def __call__(self, *args, config: Optional[RunConfig] = None, callbacks: Optional[Dict[str, Callable]] = None):
        from .distributed.launcher import run_distributed   # lazy: as in __init__
        from .distributed.sub_workers import bind
        if config is None:
            if self.platform not in SIM_PLATFORMS:
                raise ValueError(f"this program was compiled for the {self.platform!r} hardware platform: the "
                                 f"artifact tree is in {self.output_dir}, but running it needs the vendor toolchain "
                                 f"and devices; compile with platform='{self.platform}sim' to run it on the CPU "
                                 f"simulator")
            config = RunConfig(platform=self.platform, distributed_config=self.distributed_config)
        elif config.distributed_config is None:
            config = config.replace(distributed_config=self.distributed_config)
        full, outs = self._with_outputs(list(args), config.distributed_config.world_size)
        self.last_result = run_distributed(self.output_dir, full, config,
                                           sub_workers=bind(self.sub_workers, callbacks))
        if outs is None:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _with_outputs(self, args: list, world_size: int):
        """pypto's return style: called without its ``pl.Out`` tensors, the program gets them
        allocated (zero-filled, the declared shape and dtype; torch tensors when the inputs are)
        and returns them.  ``(all arguments, the outputs or None)``."""
        from .distributed.host import _dtype   # lazy: as in __init__
        from .runtime.arrays import as_torch   # lazy: as in __init__
        params = self.manifest.params or []
        out_idx = [i for i, p in enumerate(params) if p.get("kind") == "tensor" and p.get("direction") == "OUT"]
        if not out_idx or len(args) != len(params) - len(out_idx):
            return args, None
        torch_in = any(type(a).__module__.startswith("torch") for a in args)
        given, full, outs = iter(args), [], []
        for i, p in enumerate(params):
            if i not in out_idx:
                full.append(next(given))
                continue
            shape = []
            for d in p.get("shape", []):
                if isinstance(d, int):
                    shape.append(d)
                elif d == self.manifest.world_size_name:
                    shape.append(world_size)
                else:
                    raise ValueError(f"cannot allocate output {p['name']!r}: its dimension {d!r} is not known "
                                     f"before the run; pass the output tensor")
            arr = np.zeros(shape, dtype=_dtype(p["dtype"]))
            full.append(arr)
            outs.append(as_torch(arr) if torch_in else arr)
        return full, outs

    def prepare(self, config: Optional[RunConfig] = None, *, extra_compiled=(),
                callbacks: Optional[Dict[str, Callable]] = None,
                sub_worker_overrides: Optional[Dict[str, Callable]] = None) -> "DistributedWorker":
        """pypto's ``compiled.prepare(...)``: a ``DistributedWorker`` for this program (and
        ``extra_compiled``).  ``callbacks`` bind Python functions to SubWorkers by name (each
        called ``fn(args)``, ``args`` the list of its tensors); every abstract SubWorker must be
        bound (ValueError here, not at dispatch).  ``sub_worker_overrides`` is pypto's older name
        for ``callbacks``."""
        if sub_worker_overrides is not None:
            if callbacks is not None:
                raise ValueError("prepare() takes callbacks= or its older name sub_worker_overrides=, not both")
            callbacks = sub_worker_overrides
        return DistributedWorker([self, *extra_compiled], config=config, callbacks=callbacks)

    def __fspath__(self) -> str:
        return os.fspath(self.output_dir)

    def __repr__(self) -> str:
        return (f"<DistributedCompiledProgram {self.output_dir} platform={self.platform} "
                f"ranks={self.world_size} devices={self.device_ids}>")



class DistributedWorker:
    """One worker for several ``DistributedCompiledProgram`` s and the tensors they share.

    Each ``run`` starts the program's ranks (as a call of the program does) with the worker's
    ``DeviceTensor`` s resolved to their memory, which outlives every run: what one program
    writes there, the next one reads.  ``config`` (default: the first program's platform and
    distributed configuration) applies to every run.  A context manager; ``close()`` frees the
    tensors, after which the worker refuses work."""

    __test__ = False

    def __init__(self, programs, config: Optional[RunConfig] = None, *,
                 callbacks: Optional[Dict[str, Callable]] = None):
        # lazy: ChipWorker's buffers (numpy) load with the worker, not with this module
        from .runtime.device import ChipWorker
        programs = list(programs) if isinstance(programs, (list, tuple)) else [programs]
        if not programs or not all(isinstance(p, DistributedCompiledProgram) for p in programs):
            raise TypeError("DistributedWorker takes a list of DistributedCompiledProgram (from ptokit.compile of a "
                            "program with a host function, or a @pl.jit.host function's compile)")
        platforms = {p.platform for p in programs}
        if len(platforms) > 1:
            raise ValueError(f"the programs were compiled for different platforms ({', '.join(sorted(platforms))}); "
                             f"one worker runs one platform")
        self.programs = programs
        self.callbacks = _check_callbacks(programs, callbacks)
        self.config = config.checked() if config is not None else None
        platform = self.config.platform if self.config is not None else programs[0].platform
        self._memory = ChipWorker(config=RunConfig(platform=platform))
        self.closed = False

    def __enter__(self) -> "DistributedWorker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._memory.close()
        self.closed = True

    def _open(self, op: str) -> None:
        if self.closed:
            raise RuntimeError(f"DistributedWorker.{op}(): the worker was closed")

    def alloc_tensor(self, shape, dtype, *, init=None):
        """A ``DeviceTensor`` resident in this worker (zero-filled, or a copy of ``init``)."""
        self._open("alloc_tensor")
        return self._memory.alloc_tensor(shape, dtype, init=init)

    def free_tensor(self, tensor) -> None:
        self._memory.free_tensor(tensor)

    def run(self, program: "DistributedCompiledProgram", *args):
        """Run one of the worker's programs on ``args`` (DeviceTensors of this worker included)."""
        from .runtime.device import DeviceTensor, resolve_device_tensor   # lazy: as in __init__
        self._open("run")
        if not any(program is p for p in self.programs):
            raise ValueError(f"{program!r} is not one of this worker's programs; list it in DistributedWorker([...]) "
                             f"or prepare(extra_compiled=[...])")
        resolved = [resolve_device_tensor(a, self._memory) if isinstance(a, DeviceTensor) else a for a in args]
        return program(*resolved, config=self.config, callbacks=self.callbacks)

    def __call__(self, *args):
        if len(self.programs) != 1:
            raise TypeError(f"this worker holds {len(self.programs)} programs: say which one runs with "
                            f"rt.run(program, *args)")
        return self.run(self.programs[0], *args)


Worker.register(DistributedWorker)   # pypto's abstract runtime handle (ptokit.runtime.Worker)


def execute_distributed_compiled(output_dir, args, config: Optional[RunConfig] = None, *,
                                 platform: Optional[str] = None,
                                 distributed_config: Optional[DistributedConfig] = None) -> None:
    """pypto's ``runtime.execute_distributed_compiled``: run a distributed tree compiled before
    (``DistributedCompiledProgram.from_dir``) once on ``args``; OUT/INOUT arrays are written in
    place.  Returns None (the outputs are the arrays)."""
    program = DistributedCompiledProgram.from_dir(output_dir, distributed_config=distributed_config,
                                                  platform=platform_to_use(platform))
    program(*args, config=config)


def _check_callbacks(programs, callbacks) -> Dict[str, Callable]:
    """pypto's rule: a callback names a SubWorker one of the programs declares, and every abstract
    SubWorker of every program is bound."""
    callbacks = dict(callbacks or {})
    known = {n for p in programs for n in p.sub_worker_names}
    unknown = sorted(set(callbacks) - known)
    if unknown:
        raise ValueError(f"prepare(callbacks=...): names that are not sub-workers of "
                         f"{'this program' if len(programs) == 1 else 'these programs'}: "
                         f"{', '.join(map(repr, unknown))} (its SubWorkers: {', '.join(sorted(known)) or 'none'})")
    for name, fn in callbacks.items():
        if not callable(fn):
            raise TypeError(f"prepare(callbacks=...): the callback for {name!r} is not callable: {fn!r}")
    missing = sorted({n for p in programs for n in p.required_callbacks} - set(callbacks))
    if missing:
        raise ValueError(f"SubWorker{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                         f"{'are' if len(missing) > 1 else 'is a'} runtime-bound callback"
                         f"{'s' if len(missing) > 1 else ''} (declared with a `...` body): bind "
                         f"{'them' if len(missing) > 1 else 'it'} with prepare(callbacks="
                         f"{{{', '.join(f'{n!r}: fn' for n in missing)}}})")
    return callbacks


__all__ = ["DistributedCompiledProgram", "DistributedWorker", "execute_distributed_compiled"]
