"""MaterializeRuntimeScopes: each loop body of an orchestration function is a runtime scope.

The runtime holds every task submitted in an open scope until the scope ends; with only the
function's own scope, a loop submitting more tasks than the task ring has slots (or creating more
tensors than the heap holds) deadlocks, however early those tasks finish.  pypto's pass of this
name makes each ``for`` / ``if`` body of an orchestration an AUTO scope, so that the tasks of a
finished iteration retire (docs/passes.md).  Here a ``pl.range`` loop body that submits a task
becomes ``with pl.scope():`` unless

* it is inside a MANUAL scope (the runtime nests no AUTO scope in a MANUAL one), or is already one
  scope;
* the scopes around it are already as deep as the runtime allows (``MAX_RUNTIME_SCOPE_DEPTH``, the
  function's own scope counted): outer loops get theirs first;
* a task id of its tasks is carried out of the loop (a ``deps=`` after the loop on a task of a scope
  that ended names a retired task: the order still holds, but no edge is left to show it),
* it carries a tensor from one iteration to the next (``cur = nxt``: the next iteration and the
  code after the loop read what an iteration created), or
* a tensor it creates is used after the loop (a scope's tensors end with it), or it hands a task a
  tensor created before the loop that no task was handed before it (the runtime allocates that
  tensor for its first writer, in the loop's scope).

``if`` arms are left as written (they run once per visit, so they hold no more tasks than the code
around them), and so are ``pl.while_`` bodies (their test is a statement of the body).
"""
from __future__ import annotations

from typing import List, Set

from ..ir import nodes as N
from ..ir.access import allocates
from ..ir.types import ArrayType, DType, ScalarType, TensorType
from ..targets import MAX_RUNTIME_SCOPE_DEPTH


def _created(body: List[N.Stmt]) -> Set[str]:
    return {s.targets[0].name for s in N.walk_stmts(body)
            if isinstance(s, N.Assign) and allocates(s.value)}


def _reads_outside(fn: N.Function, body: List[N.Stmt]) -> Set[str]:
    inner = {id(s) for s in N.walk_stmts(body)}
    out: Set[str] = set()
    for s, e in N.iter_exprs(fn.body):
        if id(s) in inner:
            continue
        out.update(x.name for x in N.walk_expr(e) if isinstance(x, N.Var))
    return out


def _submits(body: List[N.Stmt]) -> bool:
    return any(True for _ in N.walk_calls(body))


def _task_args(stmts: List[N.Stmt]) -> Set[str]:
    out: Set[str] = set()
    for _, call in N.walk_calls(stmts):
        for a in call.args:
            out.update(x.name for x in N.walk_expr(a) if isinstance(x, N.Var))
    return out


def _wrap(fn: N.Function, body: List[N.Stmt], manual: bool, handed: Set[str], depth: int) -> None:
    """``handed``: the tensors some task was handed before ``body`` (so allocated already);
    ``depth``: the runtime scopes open around ``body``."""
    for k, s in enumerate(body):
        before = handed | _task_args(body[:k])
        if isinstance(s, N.Scope):
            inner = s.kind == "scope"
            _wrap(fn, s.body, manual or (inner and s.attrs.get("mode") == "manual"), before, depth + inner)
            continue
        if isinstance(s, N.For) and _scoped(fn, s, manual, before, depth):
            s.body = [N.Scope("scope", s.body, {"mode": "auto"}, loc=s.loc)]
            _wrap(fn, s.body[0].body, manual, before, depth + 1)
            continue
        for child in N.child_bodies(s):
            _wrap(fn, child, manual, before, depth)


def _task_ids_out(s: N.For) -> bool:
    """Does a task id (or an array of them) leave loop ``s`` as one of its results?"""
    return any(getattr(r.type, "dtype", None) is DType.TASK_ID and isinstance(r.type, (ScalarType, ArrayType))
               for r in (s.results or ()))


def _tensors_carried(s: N.For) -> bool:
    """Does loop ``s`` carry a tensor from one iteration to the next (``cur = nxt``)?  The tensor an
    iteration creates is read by the next one and after the loop: a scope would release it."""
    return any(isinstance(r.type, TensorType) for r in (s.results or ()))


def _scoped(fn: N.Function, s: N.For, manual: bool, before: Set[str], depth: int) -> bool:
    """Does loop ``s`` get a runtime scope per iteration (the module's rules)?"""
    if manual or depth >= MAX_RUNTIME_SCOPE_DEPTH or not _submits(s.body) or _task_ids_out(s) or _tensors_carried(s):
        return False
    if len(s.body) == 1 and isinstance(s.body[0], N.Scope) and s.body[0].kind == "scope":
        return False
    inside = _created(s.body)
    if inside & _reads_outside(fn, s.body):
        return False
    # a tensor created before the loop and handed to no task yet is allocated by its first writer,
    # inside the loop: in the loop's scope it would end with the first iteration
    return not ((_task_args(s.body) & (_created(fn.body) - inside)) - before)


def materialize_runtime_scopes(prog: N.Program, ctx) -> N.Program:
    for fn in prog.of_kind(N.FunctionType.Orchestration):
        _wrap(fn, fn.body, False, set(), 1)
    return prog
