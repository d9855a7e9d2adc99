"""The ``Transport`` interface (parent side) and what it is told about the world."""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from ..messages import ChipImage
from ..segments import Segment


@dataclass
class World:
    """Everything the ranks are started with."""
    world_size: int
    device_ids: List[int]
    config: Any                      # RunConfig of every dispatch
    call_seq: int = 0                # segment names: ptokit_<pid>_<call_seq>_<k>
    startup_timeout: float = 120.0   # spawning, importing and loading the simulator


@dataclass
class Event:
    """What ``recv`` returns: a message from a rank, or a rank that exited."""
    kind: str                        # "message" | "exit"
    rank: int
    message: Any = None
    returncode: Optional[int] = None


class Transport(abc.ABC):
    """Parent side of the ranks.  A transport owns every segment it creates and unlinks them in
    ``close`` (and the segments of a call in ``end_call``), whatever happened before."""

    name = "?"
    board: Optional[Segment] = None   # the status board (shared memory on every transport today)

    @abc.abstractmethod
    def start(self, world: World, images: Dict[str, ChipImage]) -> None:
        """Start one rank per device, send each the images (Init), wait until all are Ready."""

    @abc.abstractmethod
    def create_windows(self, sizes: Sequence[int]) -> int:
        """A new window domain: one zero-filled window per rank (``sizes[r]`` bytes, all equal, so
        offsets are equal on every rank); tells every rank (Domain); returns the domain id."""

    @abc.abstractmethod
    def create_segment(self, size: int) -> Segment:
        """A zero-filled host segment of the current call (the host-tensor arena)."""

    @abc.abstractmethod
    def send(self, rank: int, msg) -> None:
        """Send one message to ``rank`` (handled after everything sent to it before)."""

    @abc.abstractmethod
    def recv(self, timeout: float) -> Optional[Event]:
        """The next event from any rank, or None after ``timeout`` seconds."""

    @abc.abstractmethod
    def barrier(self) -> None:
        """Every rank is up and has handled Init."""

    @abc.abstractmethod
    def begin_call(self, call_seq: int) -> None:
        """Segments created from now on belong to host call ``call_seq``."""

    @abc.abstractmethod
    def end_call(self) -> None:
        """The call is over: ranks drop its windows and arena, its segments are unlinked."""

    @abc.abstractmethod
    def close(self) -> None:
        """Stop every rank (Shutdown, 1 s grace, then SIGKILL), join them, unlink every segment.
        Idempotent; safe after any failure."""

    @abc.abstractmethod
    def alive(self) -> List[bool]:
        """Per rank: is its process still running."""
