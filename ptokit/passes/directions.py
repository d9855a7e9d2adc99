"""Derive how each task passes each argument to the runtime.

For every kernel call in an Orchestration function this pass records, in
``FuncCall.attrs["arg_kinds"]``, one of:

* ``input``      -- the kernel reads the tensor (``add_input``)
* ``output_new`` -- first write of a ``pl.create_tensor`` intermediate: the runtime
                    allocates it (``add_output(TensorCreateInfo)``)

The runtime zero-fills every tensor it allocates (pypto defines ``pl.create_tensor`` so). A
``pl.create_tensor`` read (by a task, or the host) before any task writes it therefore holds
zeros: its ``create_tensor`` call gets ``attrs["zero_alloc"]`` and the runtime allocates it where
it is created (``alloc_tensors``) instead of for its first writer.  So is one whose first writer
sits in a loop body or an ``if`` arm and that is used after it (its first writer then writes into
it: ``output``).
* ``output``     -- write into an existing tensor (``add_output(tensor)``)
* ``inout``      -- read and written (``add_inout``)
* ``scalar``     -- a by-value scalar (``add_scalar``)

A tensor argument may be a window ``x[a:b, :]`` (``OpCall("tensor_view")``): it takes its
direction from the kernel parameter like a whole tensor, and the created-tensor rules apply to
its base tensor -- a ``pl.create_tensor`` must be written whole by its first writer.

It also numbers the kernels by first use (``fn.attrs["kernel_ids"]``), which
is the ``func_id`` of ``kernel_config.py``.
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.access import allocates
from ..ir.types import ArrayType, ScalarType, TensorType


# runtime.md: at most 32 tensors and 16 scalars per task; 256 tensors for the whole program
MAX_TASK_TENSORS, MAX_TASK_SCALARS, MAX_PROGRAM_TENSORS = 32, 16, 256
MAX_EXPLICIT_DEPS = 64     # PTO2_MAX_EXPLICIT_DEPS (pto_orchestration_api.h)


def _check_deps(fn: N.Function) -> None:
    """deps= of a task (task ids, and every element of each TASK_ID array) within the runtime's limit."""
    lists = [s.attrs["deps"] for s in N.walk_stmts(fn.body) if isinstance(s, N.Scope) and "deps" in s.attrs]
    lists += [e.args[0] for _, e in N.walk_ops(fn.body, "system.task_dummy")]
    for deps in lists:
        count = sum(d.type.extent if isinstance(d.type, ArrayType) else 1 for d in deps.items)
        if count > MAX_EXPLICIT_DEPS:
            raise CompileError(f"deps= of this task name up to {count} task ids; a task takes at most "
                               f"{MAX_EXPLICIT_DEPS} (join some with pl.system.task_dummy first)", deps.loc)


def _check_arg_counts(fn: N.Function) -> None:
    tensors = sum(isinstance(p.type, TensorType) for p in fn.params)
    scalars = sum(isinstance(p.type, ScalarType) for p in fn.params)
    if fn.kind is N.FunctionType.Orchestration:
        if tensors > MAX_PROGRAM_TENSORS:
            raise CompileError(f"{fn.name} takes {tensors} tensors; a program takes at most {MAX_PROGRAM_TENSORS}",
                               fn.loc)
        return
    if tensors > MAX_TASK_TENSORS or scalars > MAX_TASK_SCALARS:
        raise CompileError(f"kernel {fn.name} takes {tensors} tensors and {scalars} scalars; a task passes at most "
                           f"{MAX_TASK_TENSORS} tensors and {MAX_TASK_SCALARS} scalars", fn.loc)


def derive_directions(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        _check_arg_counts(fn)
    for fn in prog.of_kind(N.FunctionType.Orchestration):
        kernel_ids = {}
        created = {}
        written = set()
        first_writes = {}                            # (id of a call, argument index) -> create_tensor

        def zero_filled(name):
            # read (by a task or the host) before any task writes it: pl.create_tensor's buffer is
            # zero-filled, so the runtime allocates it where it is created (alloc_tensors)
            created[name].attrs["zero_alloc"] = True
            written.add(name)

        # a plain (In) tensor parameter that a task writes becomes InOut, as pypto lets a program
        # write it (its default direction is only a default): the caller's array receives the result
        plain = {p.name: p for p in fn.params if isinstance(p.type, TensorType) and p.direction is N.Direction.IN}
        roots = {}                                   # another name for a tensor -> the name it stands for
        for s, call in N.iter_exprs(fn.body):
            if isinstance(s, N.Assign) and s.value is call and isinstance(call, N.Var):
                roots[s.targets[0].name] = roots.get(call.name, call.name)
            if allocates(call) and isinstance(s, N.Assign):
                created[s.targets[0].name] = call
            if isinstance(call, N.OpCall) and call.op in ("read", "write") and isinstance(call.args[0], N.Var):
                name = call.args[0].name          # host access (and predicates): the tensor must exist
                if name in created and name not in written:
                    zero_filled(name)
            if not isinstance(call, N.FuncCall):
                continue
            callee = prog.functions[call.callee]
            if callee.kind is N.FunctionType.Orchestration:
                raise CompileError("an Orchestration function cannot call another one", call.loc)
            kernel_ids.setdefault(call.callee, len(kernel_ids))
            kinds = []
            for a, p in zip(call.args, callee.params):
                if isinstance(p.type, ScalarType):
                    kinds.append("scalar")
                    continue
                view = isinstance(a, N.OpCall) and a.op == "tensor_view"
                base = a.args[0] if view else a
                if not isinstance(p.type, TensorType) or not isinstance(base, N.Var):
                    raise CompileError(f"argument {p.name!r} of task {call.callee} must be a tensor "
                                       f"variable or a window of one", call.loc)
                fresh = base.name in created and base.name not in written
                root = roots.get(base.name, base.name)
                if p.direction is not N.Direction.IN and root in plain:
                    plain.pop(root).direction = N.Direction.INOUT
                if p.direction is N.Direction.IN:
                    if fresh:
                        zero_filled(base.name)
                    kinds.append("input")
                elif p.direction is N.Direction.OUT:
                    if fresh and view:
                        raise CompileError(f"tensor {base.name!r} is created by pl.create_tensor and first "
                                           f"written through a window by {call.callee}; its first writer "
                                           f"must take it whole (the runtime allocates it for that task), "
                                           f"later tasks may write windows of it", (a.loc if view else call.loc))
                    if fresh:
                        first_writes[(id(call), len(kinds))] = created[base.name]
                    kinds.append("output_new" if fresh else "output")
                    written.add(base.name)
                else:
                    if fresh:
                        zero_filled(base.name)
                    kinds.append("inout")
                    written.add(base.name)
            call.attrs["arg_kinds"] = kinds
            for j in call.attrs.get("no_dep", ()):
                if kinds[j] == "scalar":
                    raise CompileError(f"pl.no_dep marks a tensor argument, but argument {j} of {call.callee} is a "
                                       f"scalar", call.loc)
                if kinds[j] == "output_new":
                    raise CompileError(f"pl.no_dep on the first write of {call.args[j].name!r} (created by "
                                       f"pl.create_tensor): the runtime allocates it for this task and later tasks "
                                       f"depend on its creator, so there is nothing to leave untracked; drop "
                                       f"pl.no_dep, or use pl.create_tensor(..., manual_dep=True)", call.loc)
        fn.attrs["kernel_ids"] = kernel_ids
        _check_deps(fn)
        _allocate_branch_created(fn.body, [], {}, first_writes)
        _check_scoped_tensors(fn.body, [], {})
    return prog


def _allocate_branch_created(body, path: list, born: dict, creates: dict) -> None:
    """A tensor whose first writer (``output_new``) sits in a loop body or an if arm would be
    allocated there, once per pass, so a use after that loop or arm would see none of it
    (``pl.create_tensor`` before a loop whose tasks fill bands of it, then a read after the loop).
    Such a tensor is allocated where it is created instead (``alloc_tensors``, as pypto's
    orchestration allocates every created tensor), and its first writer writes into it
    (``output``).  ``born``: tensor -> (path of loop / arm bodies, call, argument index, its
    ``create_tensor``); ``creates``: (id of a call, argument index) -> the ``create_tensor`` of
    the tensor that argument writes first."""
    for s in body:
        if not isinstance(s, (N.For, N.While, N.If)):
            for sub in N.child_bodies(s):
                _allocate_branch_created(sub, path, born, creates)
            for name, kind, call, j in _task_tensors(s):
                first = born.get(name)
                if first is not None and path[:len(first[0])] != first[0]:
                    _, writer, k, create = born.pop(name)
                    writer.attrs["arg_kinds"][k] = "output"
                    create.attrs["zero_alloc"] = True
                if kind == "output_new":
                    born[name] = (list(path), call, j, creates[(id(call), j)])
            continue
        for k, sub in enumerate(N.child_bodies(s)):
            _allocate_branch_created(sub, path + [(id(s), k)], born, creates)


def _task_tensors(s):
    """(base tensor name, arg kind, call, argument index) of each task argument of a statement
    without a body."""
    for _, call in N.walk_calls([s]) if not N.child_bodies(s) else []:
        for j, (a, kind) in enumerate(zip(call.args, call.attrs.get("arg_kinds", []))):
            base = a.args[0] if isinstance(a, N.OpCall) and a.op == "tensor_view" else a
            if isinstance(base, N.Var):
                yield base.name, kind, call, j


def _check_scoped_tensors(body, scopes: list, born: dict) -> None:
    """A tensor a task creates (its first writer, ``output_new``) lives until the ``pl.scope``
    holding that task ends: a use after that is an error (``born``: tensor -> scope path)."""
    for s in body:
        if isinstance(s, N.Scope) and s.kind == "scope":
            _check_scoped_tensors(s.body, scopes + [id(s)], born)
            continue
        for name, kind, call, _ in _task_tensors(s):
            path = born.get(name)
            if path is not None and scopes[:len(path)] != path:
                raise CompileError(f"tensor {name!r} is created by a task inside a pl.scope and used after "
                                   f"that scope ends (the runtime allocates a created tensor for its first writer "
                                   f"and releases it with that task's scope); use it inside the scope, or write "
                                   f"it first before the scope", call.loc)
            if kind == "output_new":
                born[name] = list(scopes)
        for sub_body in N.child_bodies(s):
            _check_scoped_tensors(sub_body, scopes, born)
