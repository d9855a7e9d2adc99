"""CompiledProgram: what ``ptokit.compile`` returns.

It names the artifact tree and runs it on the CPU simulator when called:
``compiled(*arrays, config=RunConfig(...))``.  Outputs are written in place
into the caller's arrays.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..passes.context import SIM_PLATFORMS, RuntimeKind
from .kernel_config import KernelConfig


@dataclass
class CompiledProgram:
    output_dir: Path
    config: KernelConfig
    platform: str
    runtime: RuntimeKind
    times: object = None

    @property
    def name(self) -> str:
        return self.output_dir.name

    def __call__(self, *args, config=None):
        if config is None:
            if self.platform not in SIM_PLATFORMS:
                raise ValueError(f"this program was compiled for the {self.platform!r} hardware platform: the "
                                 f"artifact tree is in {self.output_dir}, but running it needs the vendor "
                                 f"toolchain and device; compile with platform='{self.platform}sim' to run "
                                 f"on the CPU simulator")
            from ..runtime.config import RunConfig
            config = RunConfig(platform=self.platform)
        from ..runtime.launcher import run_tree
        return run_tree(self.output_dir, list(args), config)

    def __repr__(self) -> str:
        return f"<CompiledProgram {self.output_dir} platform={self.platform} runtime={self.runtime.value}>"
