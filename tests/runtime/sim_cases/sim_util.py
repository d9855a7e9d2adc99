"""Build helpers for the simulator tests: hand-written C++ in tests/runtime/sim_cases/."""
from __future__ import annotations

from pathlib import Path

from ptokit.runtime.build import INCLUDE_DIR, BuildJob, build_many
from ptokit.runtime.config import RunConfig
from ptokit.runtime.sim import KernelBinary, run_binaries

CASES = Path(__file__).resolve().parent

# func_id order fixed by sim_cases/orchestrations.cpp
KERNELS = [("SCALE", "aiv"), ("ADD", "aiv"), ("INC", "aiv"), ("SLOW_PLUS1", "aiv"), ("SLEEP", "aiv"),
           ("BLOCKID", "aiv"), ("LANE_AIC", "aic"), ("LANE_AIV", "aiv"), ("SEGV", "aiv"), ("FATAL", "aiv"),
           ("NOOP", "aiv"), ("ABORT", "aiv")]
ORCHS = ["CHAIN", "DIAMOND", "INOUT_CHAIN", "ORDER", "EXPLICIT_DEP", "SPMD", "MIXED", "VIEWS", "SCALAR_FIRST",
         "TOO_MANY_TENSORS", "ONE", "FATAL", "FAN", "NCHAIN", "THREAD"]
FLAGS = ["-Werror"]


class SimCases:
    def __init__(self):
        core = {"aiv": "__DAV_VEC__", "aic": "__DAV_CUBE__"}
        jobs = [BuildJob(CASES / "kernels.cpp", ("__CPU_SIM", core[ct], f"K_{name}"), [INCLUDE_DIR], FLAGS,
                         name_hint=f"simtest:{name}") for name, ct in KERNELS]
        jobs += [BuildJob(CASES / "orchestrations.cpp", ("__CPU_SIM", f"O_{name}"), [INCLUDE_DIR], FLAGS,
                          name_hint=f"simtest:orch_{name}") for name in ORCHS]
        paths = build_many(jobs)
        self.kernels = [KernelBinary(i, str(p), name.lower(), ct)
                        for i, ((name, ct), p) in enumerate(zip(KERNELS, paths))]
        self.orch = {name: str(p) for name, p in zip(ORCHS, paths[len(KERNELS):])}

    def run(self, orch: str, args, runtime="tensormap_and_ringbuffer", signature=None, **cfg):
        config = RunConfig(runtime=runtime, **cfg)
        return run_binaries(self.orch[orch], self.kernels, args, config, signature=signature)


RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
