"""The IR of a host function (level H) of a distributed program: what language/host.py reads and
codegen/host_orch.py prints as ``host_orch.py``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple


@dataclass
class HostProgram:
    name: str
    params: List[dict]                   # the host parameters (DISTRIBUTED["params"])
    slots: List[Tuple[str, int]]         # window slots (name, bytes) of the function's one domain
    lines: List[str]                     # the statements of entry(rt, tensors, world_size), indented
    chips: List[str] = field(default_factory=list)       # chip functions dispatched, in first-call order
    collectives: List[Tuple[str, str, dict]] = field(default_factory=list)   # (op, builtin chip, spec)
    world_size_name: Optional[str] = None                # "NR" when dim 0 of the host tensors is dynamic
    subs: List[str] = field(default_factory=list)        # SubWorkers called (rt.sub), in first-call order
