"""Hand-written distributed artifact trees for tests/distributed and bench/: chip trees whose kernel
is one of cases/comm_kernels.cpp and whose orchestration is cases/generic_orch.cpp, and a host
program (host_orch.py text) written through ptokit's own writer."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict, List, Sequence

from ptokit.artifacts.distributed_config import ChipEntry, DistributedManifest, ScriptEntry, write_distributed_config
from ptokit.artifacts.host_orch import write_script
from ptokit.artifacts.kernel_config import KernelConfig, KernelEntry, OrchestrationEntry, write_kernel_config
from ptokit.distributed.segments import list_segments
from ptokit.distributed.session import Session
from ptokit.distributed.transport.shm import ShmTransport
from ptokit.runtime.config import RunConfig
from ptokit.targets import RuntimeKind

CASES = Path(__file__).resolve().parent / "cases"


def tensor(name, dtype, shape, direction="IN"):
    return {"name": name, "kind": "tensor", "dtype": dtype, "shape": list(shape), "direction": direction}


def window(name, dtype, shape):
    return {"name": name, "kind": "window", "dtype": dtype, "shape": list(shape)}


def scalar(name, dtype="INT64"):
    return {"name": name, "kind": "scalar", "dtype": dtype}


def ctx(of):
    return {"name": f"{of}_ctx", "kind": "comm_ctx", "for": of}


def _with_ctx(params):
    return params + [ctx(p["name"]) for p in params if p["kind"] == "window"]


# chip name -> (kernel define, one letter per tensor param: I/O/W, params without the comm_ctx ones)
CHIPS: Dict[str, tuple] = {
    "put": ("K_PUT", "IOWWW", [tensor("x", "FP32", [1, 64]), tensor("y", "FP32", [1, 64], "OUT"),
                              window("src", "FP32", [1, 64]), window("dst", "FP32", [1, 64]),
                              window("sig", "INT32", [8]), scalar("atomic")]),
    "get": ("K_GET", "IOWW", [tensor("x", "FP32", [1, 64]), tensor("y", "FP32", [1, 64], "OUT"),
                             window("src", "FP32", [1, 64]), window("sig", "INT32", [8])]),
    "notify": ("K_NOTIFY", "OW", [tensor("y", "INT32", [1, 8], "OUT"), window("sig", "INT32", [8]), scalar("mode")]),
    "wait": ("K_WAIT", "OW", [tensor("y", "INT32", [1, 8], "OUT"), window("sig", "INT32", [8]), scalar("stuck")]),
    "barrier": ("K_BARRIER", "IOOWW", [tensor("x", "FP32", [1, 64]), tensor("y", "FP32", [1, 64], "OUT"),
                                      tensor("z", "INT32", [1, 8], "OUT"), window("data", "FP32", [1, 64]),
                                      window("sig", "INT32", [8])]),
    "allreduce": ("K_ALLREDUCE", "IOWW", [tensor("x", "FP32", [1, 256]), tensor("y", "FP32", [1, 256], "OUT"),
                                         window("data", "FP32", [1, 256]), window("sig", "INT32", [8])]),
    "offsets": ("K_OFFSETS", "OWW", [tensor("y", "INT64", [1, 8], "OUT"), window("a", "FP32", [1, 64]),
                                    window("b", "INT32", [8])]),
    "crash": ("K_CRASH", "OW", [tensor("y", "INT32", [1, 8], "OUT"), window("w", "INT32", [8])]),
    "to_window": ("K_TO_WINDOW", "IW", [tensor("x", "FP32", [1, 256]), window("w", "FP32", [1, 256])]),
    "from_window": ("K_FROM_WINDOW", "WO", [window("w", "FP32", [1, 256]), tensor("y", "FP32", [1, 256], "OUT")]),
    "wallreduce": ("K_WALLREDUCE", "WWW", [window("data", "FP32", [1, 256]), window("res", "FP32", [1, 256]),
                                          window("sig", "INT32", [8])]),
    "putbw": ("K_PUTBW", "OWW", [tensor("y", "INT64", [1, 8], "OUT"), window("src", "FP32", ["N"]),
                                window("dst", "FP32", ["N"]), scalar("n"), scalar("reps"), scalar("get")]),
    "barriers": ("K_BARRIERS", "OW", [tensor("y", "INT64", [1, 8], "OUT"), window("sig", "INT32", [8]),
                                     scalar("reps")]),
    "allreduce_big": ("K_ALLREDUCE_BIG", "IOWW", [tensor("x", "FP32", ["N"]), tensor("y", "FP32", ["N"], "OUT"),
                                                 window("data", "FP32", ["N"]), window("sig", "INT32", [8]),
                                                 scalar("n")]),
}


def write_chip(root: Path, name: str, world_size="NR", runtime=RuntimeKind.TENSORMAP_AND_RINGBUFFER,
               platform="a2a3sim") -> Path:
    define, kinds, params = CHIPS[name]
    root = Path(root)
    (root / "kernels" / "aiv").mkdir(parents=True, exist_ok=True)
    (root / "orchestration").mkdir(parents=True, exist_ok=True)
    (root / "kernels" / "aiv" / f"{name}.cpp").write_text(f'#define {define} 1\n#include "{CASES / "comm_kernels.cpp"}"\n')
    (root / "orchestration" / f"{name}_orch.cpp").write_text(
        f'#define ARG_KINDS "{kinds}"\n#include "{CASES / "generic_orch.cpp"}"\n')
    cfg = KernelConfig(
        runtime=runtime, aicpu_thread_num=0,
        orchestration=OrchestrationEntry(root / "orchestration" / f"{name}_orch.cpp", "aicpu_orchestration_entry",
                                         [], _with_ctx(params)),
        kernels=[KernelEntry(0, name, root / "kernels" / "aiv" / f"{name}.cpp", "aiv",
                             ["INOUT" if k == "W" else ("OUT" if k == "O" else "IN") for k in kinds])],
        root=root, platform=platform, distributed={"world_size": world_size, "comm_abi": 1})
    write_kernel_config(root / "kernel_config.py", cfg)
    return root


def write_tree(root: Path, host: str, chips: Sequence[str], params: List[dict], device_ids=(0, 1),
               runtime=RuntimeKind.TENSORMAP_AND_RINGBUFFER, world_size_name="NR", platform="a2a3sim",
               domains=(), collectives=(), sub_workers: Dict[str, str] = None) -> Path:
    """A distributed tree at ``root``: ``host`` is the text of host_orch.py."""
    root = Path(root)
    sha = write_script(root / "orchestration" / "host_orch.py", host)
    subs = []
    for name, text in (sub_workers or {}).items():
        s = write_script(root / "sub_workers" / f"{name}.py", text, function_name=name, params=None)
        subs.append(ScriptEntry(root / "sub_workers" / f"{name}.py", name, s, name))
    entries = [ChipEntry(c, write_chip(root / "next_levels" / c, c, platform=platform)) for c in chips]
    m = DistributedManifest(world_size=len(device_ids), device_ids=list(device_ids), platform=platform,
                            runtime=runtime, entry=ScriptEntry(root / "orchestration" / "host_orch.py", "entry", sha),
                            chips=entries, root=root, world_size_name=world_size_name, params=params,
                            domains=list(domains), collectives=list(collectives), sub_workers=subs)
    write_distributed_config(root, m)
    return root


def my_segments() -> List[str]:
    """This process's segments in /dev/shm."""
    return list_segments(os.getpid())


def rank_processes(parent_pid: int) -> List[int]:
    """Pids of live rank processes of ``parent_pid`` (from their command lines)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ptokit.distributed.worker" in cmd and str(parent_pid).encode() in cmd:
            try:
                state = (d / "stat").read_text().split()[2]
            except OSError:
                continue
            if state != "Z":
                out.append(int(d.name))
    return out


__all__ = ["write_chip", "write_tree", "tensor", "window", "scalar", "ctx", "CHIPS", "CASES", "my_segments",
           "rank_processes", "subprocess", "make_session"]


def make_session(images, world_size, **config) -> Session:
    """A started shared-memory session of ``world_size`` ranks over the chip ``images`` (a helper
    module, not the conftest: a test module importing ``conftest`` by name gets whichever
    directory's conftest Python loaded first when several test folders run in one session)."""
    config.setdefault("clusters", 2)
    config.setdefault("timeout", 20.0)
    return Session(device_ids=list(range(world_size)), config=RunConfig(**config), chips=images, entry=None,
                   transport=ShmTransport()).start()
