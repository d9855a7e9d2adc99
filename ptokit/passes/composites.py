"""ExpandComposites: ops without a dialect op of their own (``OpDef.expand``, e.g. ``pl.tile.sin``)
become the sequence of primitive ops their row gives, each bound to a fresh temporary
(``_sin0 = pl.muls(x, 0.318...)``, ...), the last one to the original target.

Runs on flat code (every op call is the whole right-hand side of an assignment), before SSA, so the
temporaries get buffers from memory planning like any other tile.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Optional

from ..errors import CompileError, InternalError
from ..ir import nodes as N
from ..ir.ops import OPS, OpTypeError, infer
from ..ir.types import TensorType, TileType
from .rewrite import subst_body


def expand_composites(prog: N.Program, ctx) -> N.Program:
    counter = itertools.count()
    for fn in prog.functions.values():
        aliases: Dict[str, N.Var] = {}
        fn.body = _body(fn.body, counter, fn.kind is N.FunctionType.Orchestration, aliases)
        if aliases:
            _check_aliases(fn.body, aliases)
            fn.body = subst_body(fn.body, dict(aliases))
    return prog


def _check_aliases(body: List[N.Stmt], aliases: Dict[str, N.Var]) -> None:
    """A name bound to a collective's window (result = pld.tensor.all_to_all(x, data, sig)) stands
    for that window in the rest of the function: it may not be bound to anything else."""
    for st in N.walk_stmts(body):
        for t in getattr(st, "targets", ()):
            if t.name in aliases:
                raise CompileError(f"{t.name!r} names the window {aliases[t.name].name!r} (a collective's "
                                   f"result); bind other values to another name", t.loc or st.loc)


def _body(body: List[N.Stmt], counter, orchestration: bool = False,
          aliases: Optional[Dict[str, N.Var]] = None) -> List[N.Stmt]:
    out: List[N.Stmt] = []
    for s in body:
        for sub in N.child_bodies(s):
            sub[:] = _body(sub, counter, orchestration, aliases)
        v = s.value if isinstance(s, N.Assign) else None
        e = s.expr if isinstance(s, N.ExprStmt) else None
        if isinstance(v, N.OpCall) and v.op in OPS and OPS[v.op].expand is not None:
            out.extend(_expand(s, v, counter, orchestration, aliases))
        elif isinstance(e, N.OpCall) and e.op in OPS and OPS[e.op].expand is not None:
            stmts = _expand(N.Assign([N.Var(f"_{e.op}", type=e.type, loc=e.loc)], e, loc=s.loc), e, counter,
                            orchestration)
            # a statement composite (pld.tensor.put): its tensor-writing steps are statements too
            out.extend(N.ExprStmt(st.value, loc=s.loc) if isinstance(st, N.Assign) and (
                isinstance(st.targets[0].type, TensorType) or st is stmts[-1]) else st for st in stmts)
        else:
            out.append(s)
    return out


def _expand(s: N.Assign, call: N.OpCall, counter, orchestration: bool = False,
            aliases: Optional[Dict[str, N.Var]] = None) -> List[N.Stmt]:
    stmts: List[N.Assign] = []

    def emit(op: str, args, attrs) -> N.Var:
        try:
            t = infer(op, [a.type for a in args], attrs)
        except OpTypeError as exc:   # a recipe that does not type-check is a bug in the op table
            raise InternalError(f"expanding pl.tile.{call.op}: {op}: {exc}") from None
        tmp = N.Var(f"_{call.op}{next(counter)}", type=t, loc=call.loc)
        stmts.append(N.Assign([tmp], N.OpCall(op, list(args), dict(attrs), type=t, loc=call.loc), loc=s.loc))
        return N.Var(tmp.name, type=t, loc=call.loc)

    last = OPS[call.op].expand(list(call.args), dict(call.attrs), emit)
    if last is None:          # the recipe leaves these arguments to the op itself (pl.full of a non-BF16 tile)
        return [s]
    if any(last is a for a in call.args):
        # a collective returns its window operand (signal = pld.tensor.barrier(signal)): its steps are
        # statements; binding the result to the operand's own name needs no assignment
        if len(s.targets) != 1:
            raise CompileError(f"pld.{call.op} returns its {last.name!r} window: bind it to one name "
                               f"({last.name} = pld.{call.op}(...)) or call it as a statement", call.loc)
        used = set()
        for st in stmts:
            used |= _names(st.value)
        steps = [N.ExprStmt(st.value, loc=s.loc) if isinstance(st.targets[0].type, TensorType)
                 or st.targets[0].name not in used else st for st in stmts]
        if s.targets[0].name not in (last.name, f"_{call.op}") and aliases is not None:
            # another name (result = pld.tensor.all_to_all(x, data, sig)): the same window from here on
            aliases[s.targets[0].name] = N.Var(last.name, type=last.type, loc=call.loc)
        return steps
    if not stmts or stmts[-1].targets[0].name != last.name:
        raise InternalError(f"expanding pl.tile.{call.op}: the recipe must end with the op that gives the result")
    if orchestration and any(isinstance(st.targets[0].type, TileType) for st in stmts):
        raise CompileError(f"pl.{call.op} in an Orchestration function: it runs on a core (tile loads, tile ops and "
                           f"stores); call it inside an InCore function or a pl.at block", call.loc or s.loc)
    final = stmts[-1]
    if call.attrs.get("memref") is not None:     # the declared allocation places the op's result
        final.value.attrs = {**final.value.attrs, "memref": call.attrs["memref"]}
    stmts[-1] = N.Assign(s.targets, final.value, loc=s.loc)
    return stmts


def _names(e) -> set:
    """The variable names an expression reads (a step's operands, nested lists and scalar ops)."""
    if isinstance(e, N.Var):
        return {e.name}
    if isinstance(e, N.OpCall):
        return set().union(*(_names(a) for a in e.args)) if e.args else set()
    if isinstance(e, N.ListExpr):
        return set().union(*(_names(a) for a in e.items)) if e.items else set()
    return set()
