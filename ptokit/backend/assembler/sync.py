"""Built-in assembler: what each pipe has done to each tile that another pipe has not yet waited for.

A flag ``set_flag(PIPE_A, PIPE_B, e); wait_flag(...)`` orders everything pipe A issued before it
ahead of everything pipe B issues after it, and nothing else: a third pipe C is still free to run
ahead of A. So the state keeps, per tile and per pipe that wrote (or read) it, the set of pipes
already ordered after that access. A flag A -> B adds B to every access A made, and to every access
A was itself ordered after (B waits for A, which waited for it). An access needs a flag towards pipe
P until P is in its set; the same pipe is in order with itself.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Set

# id(tile) -> {pipe that accessed it: pipes ordered after that access}
Accesses = Dict[int, Dict[str, Set[str]]]


def _copy(acc: Accesses) -> Accesses:
    return {k: {p: set(s) for p, s in by.items()} for k, by in acc.items()}


def _merge(into: Accesses, other: Accesses) -> None:
    """Where control flow joins: an access made on either path counts, and a pipe is ordered after
    it only if it is on both paths that made it."""
    for k, by in other.items():
        mine = into.setdefault(k, {})
        for pipe, after in by.items():
            if pipe in mine:
                mine[pipe] &= after
            else:
                mine[pipe] = set(after)


class SyncState:
    """The unsynchronised writes (RAW, WAW) and reads (WAR) of tiles, for ``--enable-insert-sync``."""

    def __init__(self):
        self.writes: Accesses = {}
        self.reads: Accesses = {}

    def copy(self) -> "SyncState":
        s = SyncState()
        s.writes, s.reads = _copy(self.writes), _copy(self.reads)
        return s

    def merge(self, other: "SyncState") -> None:
        _merge(self.writes, other.writes)
        _merge(self.reads, other.reads)

    def clear(self) -> None:
        """After ``pipe_barrier(PIPE_ALL)``: every pipe waits for every other."""
        self.writes, self.reads = {}, {}

    def needs(self, pipe: str, reads: Iterable[int], writes: Iterable[int],
              overlaps: Callable[[int, int], bool]) -> List[str]:
        """The pipes ``pipe`` must wait for before an instruction that reads tiles ``reads`` and writes
        ``writes`` (ids): their unordered writers (RAW, WAW) and, for a write, their unordered readers
        (WAR: the planner reuses a buffer once its last reader is issued). In first-needed order."""
        need: List[str] = []

        def add(table: Accesses, tile: int) -> None:
            for k, by in table.items():
                if overlaps(k, tile):
                    need.extend(p for p, after in by.items() if p != pipe and pipe not in after)

        for r in reads:
            add(self.writes, r)
        for w in writes:
            add(self.writes, w)
            add(self.reads, w)
        return list(dict.fromkeys(need))

    def flags_needed(self, pipe: str, reads: Iterable[int], writes: Iterable[int],
                     overlaps: Callable[[int, int], bool]) -> List[str]:
        """The flags towards ``pipe`` to emit before the instruction (``needs``), recorded as emitted: each
        time the one after which the fewest remain (a flag from the pipe that waited for the others
        orders them all), the first needed among equals."""
        reads, writes = list(reads), list(writes)
        flags: List[str] = []
        need = self.needs(pipe, reads, writes, overlaps)
        while need:
            best = None
            for src in need:
                trial = self.copy()
                trial.flag(src, pipe)
                left = trial.needs(pipe, reads, writes, overlaps)
                if best is None or len(left) < len(best[2]):
                    best = (src, trial, left)
            src, trial, need = best
            self.writes, self.reads = trial.writes, trial.reads
            flags.append(src)
        return flags

    def flag(self, src: str, dst: str) -> None:
        """``set_flag(src, dst); wait_flag(src, dst)`` was emitted."""
        for table in (self.writes, self.reads):
            for by in table.values():
                for pipe, after in by.items():
                    if pipe == src or src in after:
                        after.add(dst)

    def issued(self, pipe: str, reads: Iterable[int], writes: Iterable[int]) -> None:
        """An instruction on ``pipe`` read ``reads`` and wrote ``writes`` (ids)."""
        for r in reads:
            self.reads.setdefault(r, {})[pipe] = set()
        for w in writes:
            # every earlier access of the tile is ordered before this write (needs() saw to it), so a
            # pipe ordered after the write is ordered after them: the write stands for them all
            self.writes[w] = {pipe: set()}
            self.reads.pop(w, None)
