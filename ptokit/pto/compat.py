"""What an older ptoas release does not know, asked of a built ``.pto`` function.

Ops carry it on their dialect row (``OpSpec.absent_in``); element types are listed here. A writer
compiling for that release (``ptoas_compat=``) refuses such a function with a located error instead
of writing a file the release would reject.
"""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

from . import dialect
from .ast import Block, Func, Op
from .types import LocalArrayType, PartitionViewType, PtrType, ScalarType, TensorViewType, TileBufType

# element types each release cannot parse: MLIR 19 has no f4E2M1FN / f8E8M0 (0.27's dialect no
# !pto.f8E8M0 / !pto.f4E2M1x2 either), and 0.27's tile_buf takes no 4-bit integers
ABSENT_TYPES = {"0.27": ("f4E2M1FN", "f8E8M0", "i4", "ui4")}


def _elem(ty) -> Optional[str]:
    if isinstance(ty, TileBufType):
        return ty.dtype
    if isinstance(ty, (PtrType, TensorViewType, PartitionViewType, LocalArrayType)):
        return ty.elem
    if isinstance(ty, ScalarType):
        return ty.name
    return None


def _types(op: Op):
    yield from op.colon_types
    yield from op.arrow_types
    for c in op.clauses:
        yield from c.types
    for u in op.operands:
        yield u.type


def _ops(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from _ops(region)


def unknown_to(func: Func, release: str) -> Iterator[Tuple[Optional[Op], str]]:
    """(op or None for a parameter, what) for each op or element type of ``func`` that ptoas
    ``release`` does not know, in order."""
    absent_types = ABSENT_TYPES.get(release, ())
    for a in func.args:
        if _elem(a.type) in absent_types:
            yield None, f"element type {_elem(a.type)}"
    for op in _ops(func.body):
        row = dialect.PTO_OPS.get(op.name)
        if row is not None and release in row.absent_in:
            yield op, f"'{op.name}'"
            continue
        for ty in _types(op):
            if _elem(ty) in absent_types:
                yield op, f"element type {_elem(ty)} (in '{op.name}')"
                break
