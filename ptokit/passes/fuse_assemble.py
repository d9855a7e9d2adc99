"""FuseCreateAssembleToSlice: an orchestration ``pl.assemble`` of a created tensor becomes a window
of its target (pypto's pass of that name).

The front end keeps ``out = pl.assemble(out, chunk, offsets)`` in orchestration code as written, a
statement writing ``out``.  No orchestration instruction copies data, so each such assemble must be
the pattern pypto fuses: ``chunk`` a ``pl.create_tensor`` of the same block, assembled once.  The
create becomes the window of ``out`` at ``offsets`` (its shape padded with leading 1s to ``out``'s
rank, then reshaped back to ``chunk``'s: a ``tensor_view`` with a ``then`` step), the assemble goes,
and the tasks that fill ``chunk`` write into ``out``.  The window is formed where ``chunk`` is
created, so the offsets may read only names bound by then; a kernel writes its tensor arguments
row-major, so the window must be one contiguous block of ``out`` (only leading dimensions cut).
Any other orchestration assemble is a located error.
"""
from __future__ import annotations

from typing import Dict, List, Set

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.access import allocates, assembles_tensor
from ..ir.ops import infer

_WINDOW = "tensor_view"      # the op this pass builds
_HOW = ("in orchestration code pl.assemble(target, chunk, offsets) makes a pl.create_tensor `chunk` of the same "
        "block a window of `target` (the tasks that fill it then write into `target`; no orchestration instruction "
        "copies data)")


def fuse_create_assemble_to_slice(prog: N.Program, ctx) -> N.Program:
    for fn in prog.of_kind(N.FunctionType.Orchestration):
        _block(fn.body)
    return prog


def _block(stmts: List[N.Stmt]) -> None:
    created: Dict[str, int] = {}          # name -> index of its pl.create_tensor statement in this block
    drop: Set[int] = set()
    for i, s in enumerate(stmts):
        for sub in N.child_bodies(s):
            _block(sub)
        e = s.expr if isinstance(s, N.ExprStmt) else None
        if assembles_tensor(e):
            _fuse(stmts, created, i, e)
            drop.add(i)
            continue
        for _, x in N.iter_exprs([s]):
            if assembles_tensor(x):
                raise CompileError("pl.assemble in orchestration code is a statement (out = pl.assemble(out, chunk, "
                                   "offsets)), not a value inside another expression", x.loc or s.loc)
        for t in _bound(s):
            created.pop(t, None)
        if isinstance(s, N.Assign) and len(s.targets) == 1 and allocates(s.value):
            created[s.targets[0].name] = i
    stmts[:] = [s for i, s in enumerate(stmts) if i not in drop]


def _bound(s: N.Stmt) -> Set[str]:
    """The names ``s`` (with its nested bodies) binds."""
    out: Set[str] = set()
    for x in N.walk_stmts([s]):
        if isinstance(x, N.Assign):
            out.update(t.name for t in x.targets)
        elif isinstance(x, N.For):
            out.add(x.var.name)
            out.update(v.name for v, _ in x.iter_args)
            out.update(v.name for v in x.results)
        elif isinstance(x, (N.While, N.If)):
            out.update(v.name for v in x.results)
    return out


def _fuse(stmts: List[N.Stmt], created: Dict[str, int], i: int, e: N.OpCall) -> None:
    target, source, offsets = e.args[:3]
    where = created.pop(source.name, None) if isinstance(source, N.Var) else None
    if where is None:
        text = source.name if isinstance(source, N.Var) else "the source"
        raise CompileError(f"{_HOW}, but {text!r} is not a tensor created by pl.create_tensor in this block and "
                           f"assembled once", source.loc or e.loc)
    late = set().union(*(_bound(s) for s in stmts[where + 1:i]))
    late = sorted({x.name for o in offsets.items for x in N.walk_expr(o) if isinstance(x, N.Var)} & late)
    if late:
        raise CompileError(f"{_HOW}; the window is formed where {source.name!r} is created, but the offsets read "
                           f"{', '.join(repr(n) for n in late)}, bound after it", offsets.loc or e.loc)
    create = stmts[where].value
    shape, base = list(create.type.shape), list(target.type.shape)
    if len(offsets.items) != len(base) or len(shape) > len(base):
        raise CompileError(f"{_HOW}; the offsets must name each of the {len(base)} dimensions of {target.name!r} "
                           f"{target.type} and {source.name!r} {create.type} may not have more", offsets.loc or e.loc)
    window = [1] * (len(base) - len(shape)) + shape
    _check_window(window, base, offsets, target, offsets.loc or e.loc)
    steps = (("reshape", tuple(shape)),) if len(window) != len(shape) else ()
    attrs = {"shape": window, "then": steps}
    view = N.OpCall(_WINDOW, [target, offsets], attrs, type=infer(_WINDOW, [target.type, offsets.type], attrs),
                    loc=e.loc)
    stmts[where].value = view


def _check_window(window, base, offsets: N.ListExpr, target: N.Var, loc) -> None:
    for w, b, o in zip(window, base, offsets.items):
        if isinstance(w, int) and isinstance(b, int) and isinstance(o, N.Const) and o.value + w > b:
            raise CompileError(f"pl.assemble at offsets {[getattr(x, 'value', '?') for x in offsets.items]} of "
                               f"{window} reaches past the end of {target.name!r} {target.type}", loc)
    first = next((i for i, w in enumerate(window) if w != 1), len(window))
    for i in range(first + 1, len(window)):
        whole = window[i] == base[i] and isinstance(offsets.items[i], N.Const) and offsets.items[i].value == 0
        if not whole:
            raise CompileError(f"pl.assemble of a {window} block into {target.name!r} {target.type} here is not one "
                               f"contiguous block of it (dimension {i} is cut): the kernel writes its tensor "
                               f"arguments row-major, so only leading dimensions may be cut", loc)
