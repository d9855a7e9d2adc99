"""What an older ptoas release does not know, asked of a built ``.pto`` function.

Ops and attributes carry it on their dialect row (``OpSpec.absent_in``, ``AttrSpec.absent_in``);
element types are listed here. A writer
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


def ops_of(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from ops_of(region)


def row_of(op: Op) -> Optional[dialect.OpSpec]:
    """The dialect row of ``op``; of a many-form op, the variant its operands select."""
    spec = dialect.PTO_OPS.get(op.name)
    if spec is None or not spec.variants:
        return spec
    groups = {c.name: c for c in op.clauses if c.kind == "group"}
    if "ins" not in groups or "outs" not in groups:
        return spec
    return dialect.variant(spec, groups["ins"].types, groups["outs"].types, groups["ins"].axis) or spec


def place_for(func: Func, release: str) -> None:
    """Move each attribute the release reads elsewhere (``AttrSpec.place_in``) to that place, in place:
    only "ins" (after the last ins operand) is declared."""
    for op in ops_of(func.body):
        row = row_of(op)
        if row is None:
            continue
        groups = [c for c in op.clauses if c.kind == "group" and c.name == "ins"]
        inner = {k for c in groups for a in c.attrs for k in a[2]}
        moved = [k for k in op.attr_order if k not in inner and row.attr(k) is not None
                 and dict(row.attr(k).place_in).get(release) == "ins"]
        if moved and groups:
            ins = groups[0]
            ins.attrs = list(ins.attrs) + [("attrs", {k: op.attrs[k] for k in moved}, moved, len(ins.uses))]


def unknown_to(func: Func, release: str) -> Iterator[Tuple[Optional[Op], str]]:
    """(op or None for a parameter, what) for each op or element type of ``func`` that ptoas
    ``release`` does not know, in order."""
    absent_types = ABSENT_TYPES.get(release, ())
    for a in func.args:
        if _elem(a.type) in absent_types:
            yield None, f"element type {_elem(a.type)}"
    for op in ops_of(func.body):
        row = row_of(op)
        if row is not None and release in row.absent_in:
            yield op, f"'{op.name}'" if not row.axis else f"the \"{row.axis}\" form of '{op.name}'"
            continue
        attr = next((k for k in op.attrs if row is not None and row.attr(k) is not None
                     and release in row.attr(k).absent_in), None)
        if attr is not None:
            yield op, f"attribute '{attr}' of '{op.name}'"
            continue
        for ty in _types(op):
            if _elem(ty) in absent_types:
                yield op, f"element type {_elem(ty)} (in '{op.name}')"
                break
