"""Derive how each task passes each argument to the runtime.

For every kernel call in an Orchestration function this pass records, in
``FuncCall.attrs["arg_kinds"]``, one of:

* ``input``      -- the kernel reads the tensor (``add_input``)
* ``output_new`` -- first write of a ``pl.create_tensor`` intermediate: the runtime
                    allocates it (``add_output(TensorCreateInfo)``)
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
from ..ir.types import ScalarType, TensorType


# runtime.md: at most 32 tensors and 16 scalars per task; 256 tensors for the whole program
MAX_TASK_TENSORS, MAX_TASK_SCALARS, MAX_PROGRAM_TENSORS = 32, 16, 256


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
        created = set()
        written = set()
        for s, call in N.iter_exprs(fn.body):
            if isinstance(call, N.OpCall) and call.op == "create_tensor" and isinstance(s, N.Assign):
                created.add(s.targets[0].name)
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
                if p.direction is N.Direction.IN:
                    if fresh:
                        raise CompileError(f"tensor {base.name!r} is read by {call.callee} before any task "
                                           f"writes it", (a.loc if view else call.loc))
                    kinds.append("input")
                elif p.direction is N.Direction.OUT:
                    if fresh and view:
                        raise CompileError(f"tensor {base.name!r} is created by pl.create_tensor and first "
                                           f"written through a window by {call.callee}; its first writer "
                                           f"must take it whole (the runtime allocates it for that task), "
                                           f"later tasks may write windows of it", (a.loc if view else call.loc))
                    kinds.append("output_new" if fresh else "output")
                    written.add(base.name)
                else:
                    if fresh:
                        raise CompileError(f"tensor {base.name!r} is passed as InOut to {call.callee} "
                                           f"before any task writes it", (a.loc if view else call.loc))
                    kinds.append("inout")
                    written.add(base.name)
            call.attrs["arg_kinds"] = kinds
        fn.attrs["kernel_ids"] = kernel_ids
        _check_scoped_tensors(fn.body, [], {})
    return prog


def _check_scoped_tensors(body, scopes: list, born: dict) -> None:
    """A tensor a task creates (its first writer, ``output_new``) lives until the ``pl.scope``
    holding that task ends: a use after that is an error (``born``: tensor -> scope path)."""
    for s in body:
        if isinstance(s, N.Scope) and s.kind == "scope":
            _check_scoped_tensors(s.body, scopes + [id(s)], born)
            continue
        for _, call in N.walk_calls([s]) if not N.child_bodies(s) else []:
            for a, kind in zip(call.args, call.attrs.get("arg_kinds", [])):
                base = a.args[0] if isinstance(a, N.OpCall) and a.op == "tensor_view" else a
                if not isinstance(base, N.Var):
                    continue
                path = born.get(base.name)
                if path is not None and scopes[:len(path)] != path:
                    raise CompileError(f"tensor {base.name!r} is created by a task inside a pl.scope and used after "
                                       f"that scope ends (the runtime allocates a created tensor for its first writer "
                                       f"and releases it with that task's scope); use it inside the scope, or write "
                                       f"it first before the scope", call.loc)
                if kind == "output_new":
                    born[base.name] = list(scopes)
        for sub_body in N.child_bodies(s):
            _check_scoped_tensors(sub_body, scopes, born)
