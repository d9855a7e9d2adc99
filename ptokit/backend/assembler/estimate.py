"""The estimate line of one instruction (docs/estimate.md): ``PTO_EST(PIPE_X, cycles, nwrites, tiles...);``
after its call, with the cycles its dialect row's cost gives for its operand types (ptokit.pto.costs), the
tiles it writes, then the tiles it reads.  No line for an instruction without an estimate."""
from __future__ import annotations

from typing import Callable, Optional

from ...pto import costs, dialect
from ...pto.ast import Op
from ...pto.types import TileBufType


def fifo_est_line(way: str, tile: TileBufType, name: str, arch: str) -> Optional[str]:
    """The estimate line of a TPUSH (``way`` "push", written before it: the push's device time includes
    the copy) or a TPOP ("pop", after it: the copy follows the wait for the data); a2a3 only (its FIFOs go
    through GM)."""
    got = costs.fifo_transfer(way, tile) if arch == "a2a3" else None
    if got is None:
        return None
    pipe, cycles = got
    return f"PTO_EST(PIPE_{pipe}, {cycles}u, {1 if way == 'pop' else 0}, {name});"


def est_line(op: Op, spec: dialect.OpSpec, ins, outs, pipe: str, ex: Callable) -> Optional[str]:
    cost = dialect.cost_of(op.name)
    if cost is None:
        return None
    tiles = {o.role: u.value.type for o, u in zip(spec.ins, ins)}
    tiles.update({o.role: u.value.type for o, u in zip(spec.outs, outs)})
    cycles = costs.estimate(op.name, cost, [u.value.type for u in ins], [u.value.type for u in outs], tiles)
    if cycles is None:
        return None
    written = [ex(u) for u in outs if isinstance(u.value.type, TileBufType)]
    read = [ex(u) for u in ins if isinstance(u.value.type, TileBufType)]
    return f"PTO_EST(PIPE_{pipe}, {cycles}u, {len(written)}{''.join(', ' + t for t in written + read)});"
