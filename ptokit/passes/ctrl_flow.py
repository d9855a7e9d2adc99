"""CtrlFlowTransform: ``break`` and ``continue`` become structured control flow (pypto's pass of
this name; docs/passes.md).

The front end writes ``Break`` / ``Continue`` statements where the program has them; PTO's loops
(``scf.for`` / ``scf.while``) and ConvertToSSA know no jumps, so this pass removes them, loop by
loop, innermost first:

1. a ``break`` becomes ``__break<k> = True`` followed by a ``continue``: the rest of the iteration
   is skipped, and the flag (cleared before the loop) ends the loop: a ``while`` loop tests
   ``cond and not __break<k>``, a ``for`` loop runs its whole body under ``if not __break<k>:``;
2. a ``continue`` ends its statement list there; an ``if`` that may continue takes the statements
   after it into its arms (``if c: continue`` then ``B`` becomes ``if c: pass else: B``), so no
   statement runs after a ``continue``.
"""
from __future__ import annotations

import copy
from typing import List

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import infer
from ..ir.types import BOOL
from .context import PassContext


def _escapes(body: List[N.Stmt], kinds=(N.Break, N.Continue)) -> List[N.Stmt]:
    """The ``kinds`` statements under ``body``: those of this loop once inner loops are transformed."""
    return [s for s in N.walk_stmts(body) if isinstance(s, kinds)]


def _op(name: str, args: List[N.Expr], loc) -> N.OpCall:
    return N.OpCall(name, args, {}, type=infer(name, [a.type for a in args], {}), loc=loc)


def _not(flag: N.Var, loc) -> N.Expr:
    return _op("scalar.eq", [flag, N.Const(False, type=BOOL, loc=loc)], loc)


def _set(flag: N.Var, value: bool, loc) -> N.Assign:
    return N.Assign([N.Var(flag.name, type=BOOL, loc=loc)], N.Const(value, type=BOOL, loc=loc), loc=loc)


def _continue_free(stmts: List[N.Stmt]) -> List[N.Stmt]:
    """``stmts`` without ``continue``: nothing after one runs (see the module docstring, step 2)."""
    out: List[N.Stmt] = []
    for k, s in enumerate(stmts):
        if isinstance(s, N.Continue):
            return out
        if isinstance(s, N.If) and _escapes([s], (N.Continue,)):     # (the front end refuses one in a with block)
            rest = stmts[k + 1:]
            then = _continue_free(s.then_body + rest)
            # the statements after the if go into both arms: the else arm gets its own copy
            orelse = _continue_free(s.else_body + copy.deepcopy(rest))
            out.append(N.If(s.cond, then, orelse, loc=s.loc))
            return out
        out.append(s)
    return out


class _Transform:
    def __init__(self):
        self.count = 0

    def body(self, stmts: List[N.Stmt]) -> List[N.Stmt]:
        out: List[N.Stmt] = []
        for s in stmts:
            if isinstance(s, (N.For, N.While)):
                out.extend(self.loop(s))
            elif isinstance(s, N.If):
                out.append(N.If(s.cond, self.body(s.then_body), self.body(s.else_body), loc=s.loc))
            elif isinstance(s, N.Scope):
                out.append(N.Scope(s.kind, self.body(s.body), dict(s.attrs), loc=s.loc))
            else:
                out.append(s)
        return out

    def loop(self, s) -> List[N.Stmt]:
        body = self.body(s.body)                        # inner loops first: what is left is this loop's
        if isinstance(s, N.While):
            before, cond, body = N.While(body).split()
        breaks = _escapes(body, (N.Break,))
        if breaks and isinstance(s, N.For) and s.kind == "parallel":
            raise CompileError("`break` in a pl.parallel loop: its iterations are independent, so none can end "
                               "the others; use pl.range", breaks[0].loc)
        flag = None
        if breaks:
            flag = N.Var(f"__break{self.count}", type=BOOL, loc=s.loc)
            self.count += 1
            body = _breaks_to_flag(body, flag)
        body = _continue_free(body)
        if isinstance(s, N.While):
            test = cond.cond
            if flag is not None:
                if test.type != BOOL:
                    test = _op("scalar.ne", [test, N.Const(0, type=test.type, loc=cond.loc)], cond.loc)
                test = _op("scalar.bitand", [test, _not(flag, cond.loc)], cond.loc)
            new = N.While(before + [N.Condition(test, loc=cond.loc)] + body, loc=s.loc)
        else:
            if flag is not None:                       # the iterations after the break do nothing
                body = [N.If(_not(flag, s.loc), body, [], loc=s.loc)]
            new = N.For(s.var, s.start, s.stop, s.step, body, kind=s.kind, stage=s.stage, loc=s.loc)
        return ([_set(flag, False, s.loc)] if flag is not None else []) + [new]


def _breaks_to_flag(stmts: List[N.Stmt], flag: N.Var) -> List[N.Stmt]:
    """Each ``break`` becomes ``flag = True`` then ``continue``."""
    out: List[N.Stmt] = []
    for s in stmts:
        if isinstance(s, N.Break):
            out += [_set(flag, True, s.loc), N.Continue(loc=s.loc)]
        elif isinstance(s, N.If):
            out.append(N.If(s.cond, _breaks_to_flag(s.then_body, flag), _breaks_to_flag(s.else_body, flag),
                            loc=s.loc))
        else:
            out.append(s)
    return out


def ctrl_flow_transform(prog: N.Program, ctx: PassContext) -> N.Program:
    for fn in prog.functions.values():
        if _escapes(fn.body):
            fn.body = _Transform().body(fn.body)
    return prog
