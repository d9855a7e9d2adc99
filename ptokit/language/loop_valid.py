"""Loop-carried tiles whose valid region changes inside the loop (issue 13).

A carried tile keeps one buffer, and each writer sets the buffer's valid region, so the tile's
type has to say at every point which region that is.  When a carried tile's region at the end of
the body differs from its region at entry (or names a scalar the body rebinds), each such extent
``i`` becomes an INDEX scalar ``__name_valid<i>`` that the loop carries like any other scalar: it
is set to the entry extent before the loop and to the body's extent at the end of the body, each
time followed by ``name = set_validshape(name, ...)`` over these scalars (no data moves).  The body
is then parsed again with the tile typed over the scalars, so its uses in the next iteration see
the region the previous one left, and SSA gives the loop's result tile the scalars' results.  The
scalars are named as those of a tile merged after an ``if`` (``views.merge_valid_arms``): both hold
the tile's current extent, so nested loops and branches share them.

Loops whose carried tiles keep their region are parsed once and left as they were.

A mixin of FunctionParser (uses ``block`` state, ``typed_op``, ``declare_escaping``, ``env``).
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, List, Set, Tuple

from ..ir import nodes as N
from ..ir.types import INDEX, TileType

# parser state a trial parse of a loop body may change; restored before the body is parsed again
_STATE = ("alias", "consts", "windows", "assigned", "dump_tags")


def _key(v):
    return v if isinstance(v, int) else repr(v)


def _extents(t: TileType) -> tuple:
    return tuple(t.valid) if t.valid else tuple(t.shape)


def _reads(v) -> Set[str]:
    return {e.name for e in N.walk_expr(v) if isinstance(e, N.Var)} if isinstance(v, N.Expr) else set()


def _bound(body: List[N.Stmt]) -> Set[str]:
    """Names the (parsed) body assigns, its loops' variables included."""
    out: Set[str] = set()
    for s in N.walk_stmts(body):
        if isinstance(s, N.Assign):
            out.update(t.name for t in s.targets)
        elif isinstance(s, N.For):
            out.add(s.var.name)
    return out


def _last_def(body: List[N.Stmt], name: str) -> int:
    """Where the body's end restatement of ``name`` goes: right after its last definition at the top
    of the body (its extents name scalars as they were there; a later statement, such as the rest
    of a ``pl.yield_``, may rebind them), else at the end."""
    for k in range(len(body) - 1, -1, -1):
        s = body[k]
        if isinstance(s, N.Assign) and any(t.name == name for t in s.targets):
            return k + 1
        if name in _bound([s]):
            break
    return len(body)


def carry_name(name: str, i: int) -> str:
    return f"__{name}_valid{i}"


class LoopValidMixin:
    def parse_loop_body(self, parse: Callable[[], Tuple[list, list]], saved: Dict[str, object], s):
        """``parse()`` parses the loop body (leaving its end state in ``self.env``); parsed again,
        with the changing tiles typed over their carried extents, until no other tile's region
        changes.  Tiles first bound in the body and read after the loop are declared before it
        (added to ``saved``) when their region changes."""
        snap = {k: _copy(getattr(self, k)) for k in _STATE}
        counters = {k: v for k, v in vars(self).items() if k.endswith("_count")}
        pre0 = list(self.pre)
        body, yielded = parse()
        if self.in_orchestration:
            return body, yielded
        carry: Dict[str, Set[int]] = {}
        loop_names = {n.id for n in ast.walk(s.target) if isinstance(n, ast.Name)} if isinstance(s, ast.For) else set()
        while True:
            new = self._valid_changes(saved, body, carry, loop_names)
            if not new:
                break
            for name, dims in new.items():
                carry.setdefault(name, set()).update(dims)
            for k in _STATE:
                setattr(self, k, _copy(snap[k]))
            for k in [k for k in vars(self) if k.endswith("_count")]:
                if k in counters:
                    setattr(self, k, counters[k])
                else:
                    delattr(self, k)
            self.env = {k: v for k, v in saved.items()}
            self.pre = list(pre0)
            for name in sorted(carry):
                if name not in saved:      # first bound in the body: declared (whole) before the loop
                    self.declare_escaping(self.env, {name: self._trial_types[name]}, s)
                    self.env[name] = saved[name] = self._trial_types[name].with_(valid=None)
                self.pre.extend(self._restate(name, carry[name], s))
            body, yielded = parse()
        for name in sorted(carry):
            restated = self._restate(name, carry[name], s)
            at = _last_def(body, name)
            body[at:at] = restated
        return body, yielded

    def _valid_changes(self, saved, body, carry, loop_names) -> Dict[str, Set[int]]:
        """{tile: extents} carried through the loop whose region the body leaves changed, beyond ``carry``."""
        rebound = _bound(body) | loop_names
        self._trial_types = {}
        out: Dict[str, Set[int]] = {}
        for name in sorted(self.env):
            b = self.env[name]
            if not isinstance(b, TileType):
                continue
            a = saved.get(name)
            if a is None:
                if name not in self.live_after or name in self.alias:
                    continue
                a = b.with_(valid=None)            # declared whole before the loop (declare_escaping)
            if not isinstance(a, TileType) or (a.shape, a.dtype, a.memory) != (b.shape, b.dtype, b.memory):
                continue                           # not the same tile: loop_scope reports it
            self._trial_types[name] = b
            dims = set()
            for i, (x, y) in enumerate(zip(_extents(a), _extents(b))):
                if i in carry.get(name, ()):
                    continue
                if _key(x) != _key(y) or _reads(x) & rebound:
                    dims.add(i)
            if dims:
                out[name] = dims
        return out

    def _restate(self, name: str, dims: Set[int], node) -> List[N.Stmt]:
        """``__name_valid<i> = <extent i>`` for the carried extents, then ``name = set_validshape(name,
        ...)`` over them (nothing where the type already names them)."""
        t = self.env[name]
        have = _extents(t)
        loc = self.loc(node)
        if all(isinstance(have[i], N.Var) and have[i].name == carry_name(name, i) for i in dims):
            return []
        out: List[N.Stmt] = []
        want = []
        for i, v in enumerate(have):
            if i not in dims:
                want.append(v)
                continue
            c = carry_name(name, i)
            out.append(N.Assign([N.Var(c, type=INDEX, loc=loc)],
                                N.Const(v, type=INDEX, loc=loc) if isinstance(v, int) else v, loc=loc))
            want.append(N.Var(c, type=INDEX, loc=loc))
        res = self.typed_op("set_validshape", [N.Var(name, type=t, loc=loc)], {"valid": tuple(want)}, node)
        out.append(N.Assign([N.Var(name, type=res.type, loc=loc)], res, loc=loc))
        self.env[name] = res.type
        return out


    def yield_binds(self, dests, values, node) -> List[Tuple[str, ast.expr]]:
        """The (name, value) binds of ``pl.yield_``: its values are those before any of them is bound,
        so a bind whose name a later value reads (or a later tile's valid region names) waits until
        that value is bound; a cycle (``a, b = pl.yield_(b, a)``) goes through ``__yield<k>`` scalars."""
        reads = []
        for v in values:
            r = {n.id for n in ast.walk(v) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            for name in list(r):
                t = self.env.get(name)
                if isinstance(t, TileType):
                    for d in t.valid or ():
                        r |= _reads(d)
            reads.append(r)
        todo, out = list(range(len(dests))), []
        while todo:
            ready = [k for k in todo if not any(dests[k] in reads[j] for j in todo if j != k)]
            if not ready:                       # a cycle: every value first, then the names
                tmp = [f"__yield{k}" for k in todo]
                return out + [(t, values[k]) for t, k in zip(tmp, todo)] + \
                    [(dests[k], ast.copy_location(ast.Name(id=t, ctx=ast.Load()), node)) for t, k in zip(tmp, todo)]
            out.append((dests[ready[0]], values[ready[0]]))
            todo.remove(ready[0])
        return out


def _copy(v):
    return dict(v) if isinstance(v, dict) else set(v) if isinstance(v, set) else v
