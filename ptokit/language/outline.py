"""Blocks of kernel code: the body of a ``with pl.at(level=pl.Level.CORE_GROUP, ...)`` block (or of
``pl.spmd``) is parsed as kernel code and kept, as an ``incore`` scope statement, where it stood
in its orchestration; the pass OutlineIncoreScopes (``passes/outline_scopes.py``) makes it a
kernel and a call.  Here: the kernel's name (pypto's naming rule, in the namespace the front end
shares with ``@pl.jit`` helpers), the orchestration names the body sees, and the names a block
binds that later code reads (a tensor the block stores into; anything else is a located error).
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Set, Tuple

from ..errors import PartialCodegenError
from ..ir import nodes as N
from ..ir.access import tensor_accesses
from ..ir.types import INDEX, TensorType, TileType, dim_vars, intermediate_tensor_type
from .regions import check_regions
from .scopes import AtSpec


class Outliner:
    """The names of the kernels a front end meets while parsing one program (blocks and helpers)."""

    def __init__(self, program_name: str, used_names: Set[str]):
        self.program_name = program_name
        self.used_names = used_names
        self.kernel_count = 0
        # name bound in an outlined block -> (kernel, line, the tensor later code reads it as, or None:
        # a scalar, which stays in its kernel); OutlineIncoreScopes makes the tensor an intermediate
        self.block_locals: Dict[str, Tuple[str, int, Optional[TensorType]]] = {}

    def unique(self, base: str) -> str:
        name, k = base, 1
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        return name

    def kernel_name(self, parser, spec: AtSpec) -> str:
        """``name_hint`` when free; the enclosing function's own name taken by the hint gives
        ``<function>_<hint>``; still taken (a second block with the same hint, another function),
        ``<name>_0``, ``<name>_1``, ...  Without a hint: ``<function>_incore_<n>``."""
        enclosing = parser.fn.name if parser.fn is not None else self.program_name
        self.kernel_count += 1
        if spec.name_hint is None:
            return self.unique(f"{enclosing}_incore_{self.kernel_count - 1}")
        name = spec.name_hint if spec.name_hint != enclosing else f"{enclosing}_{spec.name_hint}"
        if name in self.used_names:
            k = 0
            while f"{name}_{k}" in self.used_names:
                k += 1
            name = f"{name}_{k}"
        self.used_names.add(name)
        return name

    def outline(self, parser, s, spec: AtSpec, kernel_parser: Callable, block_var: Optional[str] = None) -> N.Stmt:
        """Parse block ``s`` (a ``with`` or ``for`` statement of ``parser``'s orchestration) as kernel
        code: an ``incore`` scope statement holding the kernel's body, inside the block's ``at``
        scope (the pass OutlineIncoreScopes makes it a kernel and a call).  ``kernel_parser(kfn)``
        makes the parser of the body (same source and scope, kernel code).  ``block_var``: a name
        bound to the SPMD block index in the kernel (``for i in pl.spmd(n)``)."""
        if not s.body or all(isinstance(b, ast.Pass) for b in s.body):
            raise parser.err("a pl.at block needs a body (the kernel's code)", s)
        check_out_rebinding(parser, s.body)
        kname = self.kernel_name(parser, spec)
        # names bound to a tensor window in the orchestration (`band = x[a:b, :]`, `pl.slice(x, ...)`):
        # the kernel's tensor parameters, passed the window
        views = {n.id: parser.windows[n.id] for n in free_loads(s.body, set())
                 if n.id in parser.windows and n.id not in parser.env and n.id != block_var}
        kfn = N.Function(kname, N.FunctionType.InCore, [], [], [], parser.loc(s))
        kfn.attrs["jit_outlined"] = True
        if spec.split:
            kfn.attrs["split"] = spec.split
        if getattr(spec, "slot_num", 0):
            kfn.attrs["slot_num"] = spec.slot_num       # pl.cross_core_slot: the pipe's ring depth
        inner = kernel_parser(kfn)
        inner.fn = kfn
        # a name the block assigns once to a compile-time number is that number (`M, N = x.shape`), as
        # in a function body; so is one the orchestration bound so before the block and the block
        # leaves alone
        inner.assign_counts = assignment_counts(s)
        inner.consts.update({k: c for k, c in parser.consts.items() if k not in inner.assign_counts})
        # the body sees the orchestration's tensors and scalars under their own names
        for name, t in parser.env.items():
            inner.env[name] = t
            if isinstance(t, TensorType):
                for d in t.shape:
                    for v in dim_vars(d):
                        inner.env.setdefault(v, INDEX)
        inner.alias.update({k: v for k, v in parser.alias.items() if isinstance(parser.env.get(k), TensorType)})
        for v, w in views.items():
            inner.env[v] = w.type
        prologue = []
        if block_var is not None:
            inner.env[block_var] = INDEX
            prologue.append(N.Assign([N.Var(block_var, type=INDEX, loc=parser.loc(s))],
                                     N.OpCall("get_block_idx", [], {}, type=INDEX, loc=parser.loc(s)),
                                     loc=parser.loc(s)))
        body = prologue + inner.block(s.body)
        kfn.body = body
        check_regions(kfn, inner)
        check_out_left_a_tile(parser, inner, s.body)
        bound: Dict[str, Tuple[str, int, Optional[TensorType]]] = {}
        for n in (n for b in s.body for n in ast.walk(b)):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in parser.env:
                outer = inner.alias.get(n.id)
                if isinstance(parser.env.get(outer), TensorType) and n.id in parser.live_after:
                    # a tensor the block names (`o2 = pl.store(t, [r, 0], o)`) is the tensor the
                    # kernel writes in place: after the block the name is that tensor
                    parser.env[n.id] = parser.env[outer]
                    parser.alias[n.id] = outer
                    continue
                bound.setdefault(n.id, (kname, parser.src.start + n.lineno - 1, intermediate_tensor_type(inner.env.get(n.id))))
        self.block_locals.update(bound)         # a later block binding a name again is the one later code sees
        attrs = {"name": kname, "kernel_attrs": dict(kfn.attrs)}
        if views:
            attrs["views"] = views
        inner_scope = N.Scope("incore", body, attrs, loc=parser.loc(s))
        return N.Scope("at", [inner_scope], spec.scope_attrs(), loc=parser.loc(s))


def check_out_rebinding(parser, body: List[ast.stmt]) -> None:
    """pypto refuses a block that assigns a ``pl.Out`` / ``pl.InOut`` tensor parameter of the
    enclosing function twice when the second value does not build on the first
    (``result = pl.mul(x, 2.0)`` then ``result = pl.add(x, 1.0)``): the second binding discards
    the first write, and the output would hold neither.  A located ``PartialCodegenError`` (a
    CompileError, pypto's kind); ``out = pl.assemble(out, t, ...)`` reads ``out`` and is fine."""
    if parser.fn is None:
        return
    outs = {p.name for p in parser.fn.params
            if isinstance(p.type, TensorType) and p.direction in (N.Direction.OUT, N.Direction.INOUT)}
    written: Dict[str, int] = {}
    for st in body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            target, value = st.targets[0], st.value
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            target, value = st.target, st.value
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id in outs):
            continue
        name = target.id
        if name in written and name not in {n.id for n in _names(value) if isinstance(n.ctx, ast.Load)}:
            raise PartialCodegenError(f"{name!r} is a pl.Out tensor of {parser.fn.name}: this assignment rebinds "
                                      f"it and discards the value written at line {written[name]}, so the output "
                                      f"would hold neither; compute into another name, or build on {name} "
                                      f"(`{name} = pl.assemble({name}, t, offsets)`)", parser.loc(target))
        written[name] = parser.src.start + st.lineno - 1


def check_out_left_a_tile(parser, inner, body: List[ast.stmt]) -> None:
    """A block that binds a ``pl.Out`` / ``pl.InOut`` tensor parameter's name to a tile
    (``result = pl.add(pl.load(x, ...), 1.0)``) and leaves it so never writes that output: the tile
    lives in the kernel and the caller's array keeps what it held. Refused where the name is bound,
    saying how to write the output.  Bound to a tensor-level value (``result = pl.add(x, 1.0)``)
    the output is written: ConvertTensorToTileOps stores the value into it."""
    if parser.fn is None:
        return
    outs = {p.name for p in parser.fn.params
            if isinstance(p.type, TensorType) and p.direction in (N.Direction.OUT, N.Direction.INOUT)}
    for st in body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name) and t.id in outs and isinstance(inner.env.get(t.id), TileType):
                raise parser.err(f"{t.id!r} is a pl.{'Out' if _direction(parser, t.id) is N.Direction.OUT else 'InOut'} "
                                 f"tensor of {parser.fn.name}, but this block binds the name to a tile "
                                 f"({inner.env[t.id]}), so the output is never written; store the tile into "
                                 f"it: `{t.id} = pl.store(tile, [0, 0], {t.id})` (or `{t.id}[:] = tile`)", t)


def _direction(parser, name: str):
    return next(p.direction for p in parser.fn.params if p.name == name)


def _names(node) -> List[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name)] if node is not None else []


def free_loads(stmts: List[ast.stmt], bound: Set[str]) -> List[ast.Name]:
    """The name loads of ``stmts`` that may read a value from outside them: a name bound earlier
    in the block (an assignment, a ``for`` target, ``with ... as``) before it is read is the
    block's own (``for i in pl.range(n)`` inside a block reuses no outer ``i``).  ``bound`` grows
    with straight-line bindings; names bound in a loop or branch body stay local to it."""
    out: List[ast.Name] = []

    def loads(node, b):
        out.extend(n for n in _names(node) if isinstance(n.ctx, ast.Load) and n.id not in b)

    for st in stmts:
        if isinstance(st, (ast.For, ast.AsyncFor)):
            loads(st.iter, bound)
            inner = bound | {n.id for n in _names(st.target)}
            out.extend(free_loads(st.body, inner))
            out.extend(free_loads(st.orelse, set(bound)))
        elif isinstance(st, ast.If):
            loads(st.test, bound)
            out.extend(free_loads(st.body, set(bound)))
            out.extend(free_loads(st.orelse, set(bound)))
        elif isinstance(st, ast.While):
            loads(st.test, bound)
            out.extend(free_loads(st.body, set(bound)))
        elif isinstance(st, ast.With):
            inner = set(bound)
            for item in st.items:
                loads(item.context_expr, inner)
                inner |= {n.id for n in _names(item.optional_vars)}
            out.extend(free_loads(st.body, inner))
        elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = st.value
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            loads(value, bound)
            if isinstance(st, ast.AugAssign):
                loads(st.target, bound)
            for t in targets:       # subscripts and attributes of a target read their base
                loads(t, bound)
            bound |= {n.id for t in targets if not isinstance(st, ast.AugAssign)
                      for n in _names(t) if isinstance(n.ctx, ast.Store)}
        else:
            loads(st, bound)
    return out


def tensor_uses(body: List[N.Stmt], functions: Dict[str, N.Function]) -> Tuple[Set[str], Set[str]]:
    """Names of tensor variables read and written in ``body`` (the one analysis, ir/access.py)."""
    reads, writes = tensor_accesses(body, functions)
    return set(reads), set(writes)


def assignment_counts(item: ast.AST) -> Dict[str, int]:
    """How many places assign each name in a function or block (a loop target counts as many)."""
    counts: Dict[str, int] = {}

    def note(target, weight=1):
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                counts[n.id] = counts.get(n.id, 0) + weight

    for node in ast.walk(item):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                note(t)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            note(node.target, 2 if isinstance(node, ast.AugAssign) else 1)
        elif isinstance(node, (ast.For, ast.comprehension)):
            note(node.target, 2)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            note(node.optional_vars, 2)
    return counts
