"""CompiledProgram: what ``ptokit.compile`` returns.

It names the artifact tree and runs it on the CPU simulator when called:
``compiled(*arrays, config=RunConfig(...))``.  Outputs are written in place
into the caller's arrays.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional

import numpy as np

from .artifacts.kernel_config import KernelConfig
from .ir.types import DType, dtype_from_numpy
from .runtime.config import RunConfig
from .targets import SIM_PLATFORMS, RuntimeKind


@dataclass
class CompiledProgram:
    output_dir: Path
    config: KernelConfig
    platform: str
    runtime: RuntimeKind
    times: object = None
    # recompile(platform=, dump_passes=, dump_ptoas_passes=, output_dir=) -> CompiledProgram; set by
    # ptokit.compile so a RunConfig asking for another platform or for dumps can be honoured
    recompile: Optional[Callable] = field(default=None, repr=False)
    _variants: Dict[tuple, "CompiledProgram"] = field(default_factory=dict, repr=False)

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
            config = RunConfig(platform=self.platform)
        target = self._for_config(config)
        target.check_args(args)
        # lazy: the simulator (ctypes driver, build cache; ~60 ms to load) is needed by a run, not
        # by compiling, and compile-only use (a hardware platform, `ptokit compile`) never runs
        from .runtime.launcher import run_tree
        return run_tree(target.output_dir, list(args), config)

    def _for_config(self, config) -> "CompiledProgram":
        """This tree, or a sibling compiled for the RunConfig's platform / with its dumps."""
        want_dumps = (config.dump_passes and not (self.output_dir / "passes_dump").is_dir()) or \
            (config.dump_ptoas_passes and not (self.output_dir / "ptoas_passes").is_dir())
        if config.platform == self.platform and not want_dumps:
            return self
        key = (config.platform, bool(config.dump_passes), bool(config.dump_ptoas_passes))
        if key not in self._variants:
            if self.recompile is None:
                raise ValueError(f"this program was compiled for {self.platform!r}; RunConfig(platform="
                                 f"{config.platform!r}, dump_passes={config.dump_passes}, dump_ptoas_passes="
                                 f"{config.dump_ptoas_passes}) needs it compiled again with those options")
            suffix = config.platform + ("_dumps" if want_dumps else "")
            self._variants[key] = self.recompile(platform=config.platform, dump_passes=config.dump_passes,
                                                 dump_ptoas_passes=config.dump_ptoas_passes,
                                                 output_dir=self.output_dir.with_name(f"{self.output_dir.name}_{suffix}"))
        return self._variants[key]

    def check_args(self, args) -> None:
        """Arguments against the orchestration's parameters: count, kinds, dtypes, shapes
        (dynamic dimensions must agree between the tensors that share them)."""
        params = self.config.orchestration.params
        if not params:
            return
        names = ", ".join(p["name"] for p in params)
        if len(args) != len(params):
            raise TypeError(f"{self.name} takes {len(params)} arguments ({names}), {len(args)} were given")
        dyn = {}
        for i, (a, p) in enumerate(zip(args, params)):
            shape = getattr(a, "shape", None)
            if p["kind"] == "scalar":
                if shape is not None and len(shape) > 0:
                    raise TypeError(f"argument {i} ({p['name']}) is a scalar of {p['dtype']}, got an array of shape {tuple(shape)}")
                continue
            if shape is None:
                raise TypeError(f"argument {i} ({p['name']}) must be an array of shape {p['shape']} {p['dtype']}, got {a!r}")
            want = DType[p["dtype"]]
            got_dt = str(getattr(a, "dtype", ""))
            try:
                ok = dtype_from_numpy(np.dtype(a.dtype)) is want
            except (TypeError, ValueError):
                ok = got_dt.replace("torch.", "") == want.numpy().name
            if not ok:
                raise TypeError(f"argument {i} ({p['name']}) must have dtype {want.name} ({want.numpy()}), got {got_dt}")
            if len(shape) != len(p["shape"]):
                raise TypeError(f"argument {i} ({p['name']}) must have shape {p['shape']}, got {tuple(shape)}")
            for d, (want_d, got_d) in enumerate(zip(p["shape"], shape)):
                if isinstance(want_d, int):
                    if want_d != got_d:
                        raise TypeError(f"argument {i} ({p['name']}) must have shape {p['shape']}, got {tuple(shape)}")
                elif want_d.isidentifier():
                    if dyn.setdefault(want_d, got_d) != got_d:
                        raise TypeError(f"dynamic dimension {want_d} is {dyn[want_d]} in one argument and {got_d} "
                                        f"in {p['name']}")

    def __repr__(self) -> str:
        return f"<CompiledProgram {self.output_dir} platform={self.platform} runtime={self.runtime.value}>"
