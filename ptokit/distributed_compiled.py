"""DistributedCompiledProgram: a compiled distributed program (an artifact tree with
``distributed_config.py``), callable like ``CompiledProgram``.

``compiled(*args, config=None)`` runs the host function on ``len(device_ids)`` simulated chips
(``ptokit.distributed.launcher.run_distributed``), writes OUT/INOUT host arrays back in place and
keeps the run's ``DistributedRunResult`` in ``compiled.last_result``.  A ``RunConfig`` without
``distributed_config`` keeps the compiled one.  ``DistributedCompiledProgram.from_dir(dir)``
reloads a tree written before.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

from .artifacts.distributed_config import read_distributed_config
from .errors import api_boundary
from .runtime.config import RunConfig
from .targets import SIM_PLATFORMS, DistributedConfig


class DistributedCompiledProgram:
    __test__ = False

    def __init__(self, output_dir, *, distributed_config: Optional[DistributedConfig] = None,
                 platform: Optional[str] = None, times=None, recompile: Optional[Callable] = None):
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
        self.last_result = None

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
    def __call__(self, *args, config: Optional[RunConfig] = None):
        from .distributed.launcher import run_distributed   # lazy: as in __init__
        if config is None:
            if self.platform not in SIM_PLATFORMS:
                raise ValueError(f"this program was compiled for the {self.platform!r} hardware platform: the "
                                 f"artifact tree is in {self.output_dir}, but running it needs the vendor toolchain "
                                 f"and devices; compile with platform='{self.platform}sim' to run it on the CPU "
                                 f"simulator")
            config = RunConfig(platform=self.platform, distributed_config=self.distributed_config)
        elif config.distributed_config is None:
            config = config.replace(distributed_config=self.distributed_config)
        self.last_result = run_distributed(self.output_dir, list(args), config)
        return None

    def __fspath__(self) -> str:
        return os.fspath(self.output_dir)

    def __repr__(self) -> str:
        return (f"<DistributedCompiledProgram {self.output_dir} platform={self.platform} "
                f"ranks={self.world_size} devices={self.device_ids}>")


__all__ = ["DistributedCompiledProgram"]
