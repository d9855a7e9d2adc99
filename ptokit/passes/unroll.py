"""UnrollLoops: ``pl.unroll`` loops become copies of their body, ``pl.pipeline(stage=k)`` loops
hold ``k`` copies per iteration.

``pl.unroll(a, b, c)`` has literal bounds (the front end checks): the loop is replaced by one
copy of its body per iteration, the loop variable replaced by that iteration's constant.

``pl.pipeline(start, stop, step, stage=k)`` keeps a loop whose step is ``k * step`` and whose
body is ``k`` copies of the original, the ``j``-th seeing ``var + j * step``; the iterations
that do not fill a whole step run after it, unrolled when the bounds are constants and as a
loop of step ``step`` otherwise.  The numbers are those of the plain loop — the copies give the
hardware's scheduler independent work to overlap.

Runs before ConvertToSSA: names assigned in the body are simply assigned once per copy and the
SSA conversion numbers them.
"""
from __future__ import annotations

from typing import List

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops.scalar import SCALAR_OPERATORS
from ..ir.types import INDEX
from .context import PassContext
from .rewrite import subst_body


def unroll_loops(prog: N.Program, ctx: PassContext) -> N.Program:
    for fn in prog.functions.values():
        fn.body = _body(fn.body)
    return prog


def _body(body: List[N.Stmt]) -> List[N.Stmt]:
    out: List[N.Stmt] = []
    for s in body:
        for sub in N.child_bodies(s):
            sub[:] = _body(sub)
        if isinstance(s, N.For) and s.kind == "unroll":
            out.extend(_unrolled(s, s.body))
        elif isinstance(s, N.For) and s.kind == "pipeline":
            out.extend(_pipelined(s, s.body))
        else:
            out.append(s)
    return out


def _with_body(s: N.For, body: List[N.Stmt], **changes) -> N.For:
    fields = dict(var=s.var, start=s.start, stop=s.stop, step=s.step, kind=s.kind, stage=s.stage,
                  iter_args=s.iter_args, yields=s.yields, results=s.results)
    fields.update(changes)
    return N.For(fields.pop("var"), fields.pop("start"), fields.pop("stop"), fields.pop("step"), body,
                 loc=s.loc, **fields)


def _const(v: int, like: N.Expr) -> N.Const:
    return N.Const(v, type=like.type, loc=like.loc)


def _copy(body: List[N.Stmt], var: N.Var, value: N.Expr) -> List[N.Stmt]:
    return subst_body(body, {var.name: value})


def _constant_trips(s: N.For):
    if all(isinstance(b, N.Const) and isinstance(b.value, int) for b in (s.start, s.stop, s.step)):
        return list(range(s.start.value, s.stop.value, s.step.value))
    return None


def _unrolled(s: N.For, body: List[N.Stmt]) -> List[N.Stmt]:
    trips = _constant_trips(s)
    if trips is None:      # the front end requires literal bounds; keep the loop rather than guess
        return [_with_body(s, body, kind="range")]
    out: List[N.Stmt] = []
    for v in trips:
        out.extend(_copy(body, s.var, _const(v, s.var)))
    return out


def _scalar(op: str, a: N.Expr, b: N.Expr, like: N.Expr) -> N.Expr:
    """``a op b`` on integers, folded where an operand makes it trivial."""
    ca = a.value if isinstance(a, N.Const) else None
    cb = b.value if isinstance(b, N.Const) else None
    if ca is not None and cb is not None and SCALAR_OPERATORS[f"scalar.{op}"].fold is not None:
        return N.Const(SCALAR_OPERATORS[f"scalar.{op}"].fold(ca, cb), type=like.type, loc=like.loc)
    if (op in ("add", "sub") and cb == 0) or (op in ("mul", "floordiv") and cb == 1):
        return a
    if (op == "add" and ca == 0) or (op == "mul" and ca == 1):
        return b
    return N.OpCall(f"scalar.{op}", [a, b], type=like.type, loc=like.loc)


def _pipelined(s: N.For, body: List[N.Stmt]) -> List[N.Stmt]:
    k = s.stage
    if k <= 1:
        return [_with_body(s, body, kind="range", stage=1)]
    for st in N.walk_stmts(body):
        ref = st.value.attrs.get("memref") if isinstance(st, N.Assign) and isinstance(st.value, N.OpCall) else None
        if ref is not None:
            raise CompileError(f"pl.MemRef {ref.name!r} in a pl.pipeline(stage={k}) body: the {k} copies of the body "
                               f"would share its storage and serialize on it (pypto refuses this too); rotate slots "
                               f"yourself in a pl.range loop (pl.MemRef(slots={k})[i % {k}]) or leave the tile to "
                               f"the planner", ref.loc or st.loc)
    var = s.var
    step_k = (_const(s.step.value * k, s.step) if isinstance(s.step, N.Const)
              else _scalar("mul", s.step, _const(k, s.step), s.step))
    copies: List[N.Stmt] = subst_body(body, {})
    for j in range(1, k):
        offset = (_const(s.step.value * j, var) if isinstance(s.step, N.Const)
                  else _scalar("mul", s.step, _const(j, s.step), var))
        copies.extend(_copy(body, var, _scalar("add", N.Var(var.name, type=var.type, loc=var.loc), offset, var)))
    trips = _constant_trips(s)
    if trips is not None:
        whole = len(trips) // k * k
        main_stop = s.start.value + whole * s.step.value
        out: List[N.Stmt] = []
        if whole:
            out.append(_with_body(s, copies, stop=_const(main_stop, s.stop), step=step_k, kind="range", stage=1))
        for v in trips[whole:]:
            out.extend(_copy(body, var, _const(v, var)))
        return out
    # dynamic bounds: main_stop = start + (trips // k) * (k * step), trips = max(stop - start + step - 1, 0) // step
    like = s.stop if s.stop.type is not INDEX else s.start
    span = _scalar("sub", s.stop, s.start, like)
    reach = _scalar("max", _scalar("add", span, _scalar("sub", s.step, _const(1, s.step), like), like),
                    _const(0, like), like)      # an empty loop has no whole steps (floordiv rounds down)
    trips_e = _scalar("floordiv", reach, s.step, like)
    main_stop = _scalar("add", s.start,
                        _scalar("mul", _scalar("floordiv", trips_e, _const(k, like), like), step_k, like), like)
    stop_name = N.Var(f"{var.name}__pipeline_stop", type=like.type, loc=s.loc)
    return [N.Assign([stop_name], main_stop, loc=s.loc),
            _with_body(s, copies, stop=N.Var(stop_name.name, type=like.type, loc=s.loc), step=step_k,
                       kind="range", stage=1),
            _with_body(s, subst_body(body, {}), start=N.Var(stop_name.name, type=like.type, loc=s.loc), kind="range", stage=1)]
