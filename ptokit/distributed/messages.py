"""The messages between the parent and its ranks (pickled over each rank's duplex pipe, or
over the MPI communicator).  The contract is in docs/distributed.md ("Messages").

Parent -> rank, in the order the rank handles them (one at a time, FIFO):

* ``Init``      once: identity, run configuration, every chip image, the status board;
* ``Domain``    a window domain of the call: the segment of each rank's window (shm), its size;
* ``Dispatch``  run one chip program: tensor refs (arena views, window views), scalars;
* ``EndCall``   the host call ended: drop its windows and arena mappings;
* ``Shutdown``  exit (at once, even while a dispatch runs).

Rank -> parent: ``Ready`` (after Init), ``Started`` (a dispatch began: the status message),
``Result`` (a dispatch ended, with its RunResult or its failure), ``Bye`` (before exiting).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple, Union


@dataclass
class ChipImage:
    """A chip program, packed once by the parent: the callable image and what run_image needs."""
    name: str
    image: bytes
    params: List[dict]                       # the chip's ORCHESTRATION params (kinds tensor/window/scalar/comm_ctx)
    kernel_names: Dict[int, str] = field(default_factory=dict)
    kernel_core_types: Dict[int, str] = field(default_factory=dict)


@dataclass
class Init:
    rank: int
    world_size: int
    device_id: int
    config: Any                              # ptokit.runtime.RunConfig of every dispatch
    chips: Dict[str, ChipImage]
    board: str                               # status-board segment name
    parent_pid: int
    transport: str = "shm"


@dataclass
class Domain:
    domain: int
    size: int                                # bytes of each rank's window
    segments: List[str] = field(default_factory=list)   # shm: the window segment of rank k


@dataclass
class ArenaRef:
    """A host tensor: a row-major view ``offset`` bytes into an arena segment."""
    segment: str
    offset: int
    shape: Tuple[int, ...]
    dtype: int                               # ChipTensor DataType code


@dataclass
class WindowRef:
    """A DistributedTensor: a view ``offset`` bytes into this rank's window of ``domain``."""
    domain: int
    offset: int
    shape: Tuple[int, ...]
    dtype: int


@dataclass
class Dispatch:
    seq: int                                 # per-call number of the dispatch (all ranks)
    chip: str
    tensors: List[Union[ArenaRef, WindowRef]]   # tensor-slot params in order
    scalars: List[Any]                       # user scalars in order (the comm_ctx ones are added by the rank)


@dataclass
class EndCall:
    pass


@dataclass
class Shutdown:
    pass


@dataclass
class Ready:
    rank: int
    pid: int


@dataclass
class Started:
    rank: int
    seq: int


@dataclass
class Result:
    rank: int
    seq: int
    ok: bool
    result: Any = None                       # RunResult when ok
    code: int = 0                            # RuntimeFailure code when not
    message: str = ""
    start_ns: int = 0                        # monotonic ns of the dispatch start (merging timelines)


@dataclass
class Bye:
    rank: int


__all__ = ["ChipImage", "Init", "Domain", "ArenaRef", "WindowRef", "Dispatch", "EndCall", "Shutdown", "Ready",
           "Started", "Result", "Bye"]
