"""MaterializeValidShapeSymbols: a kernel's valid-shape symbol becomes a scalar parameter.

A kernel parameter ``pl.Tensor[[Q, BLK], pl.FP32, pl.TensorView(valid_shape=[Q, VALID])]`` may name
a dynamic dimension (``VALID = pl.dynamic("VALID")``) that no tensor parameter's shape binds: the
runtime's tensors carry their shapes, not their valid regions, so a compiled kernel has no value
for it (pypto's pass of this name, docs/passes.md).  This pass appends such a symbol to the
kernel's parameters as an INDEX scalar (the body already reads it under that name), and at every
call passes the argument's valid extent at the position the annotation names the symbol: the
``valid_shape=`` of an orchestration ``pl.slice`` (``tensor_view`` attribute ``valid``), else the
argument's own size there.  Appended, not prepended as pypto does (its reason is the order of its
printed text; here call attributes index the arguments, and appending leaves them valid).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import INDEX, ScalarType, TensorType, dim_vars

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV, N.FunctionType.Spmd)


def _symbols(fn: N.Function) -> List[Tuple[str, str, int]]:
    """(symbol, parameter, axis) for each symbol of a parameter's valid_shape that the kernel
    cannot bind itself (no tensor shape names it, no scalar parameter is it), in first-use order."""
    views: Dict[str, tuple] = fn.attrs.get("tensor_valid") or {}
    bound = {p.name for p in fn.params if isinstance(p.type, ScalarType)}
    for p in fn.params:
        if isinstance(p.type, TensorType):
            for d in p.type.shape:
                bound.update(dim_vars(d))
    out: List[Tuple[str, str, int]] = []
    for p in fn.params:
        for axis, d in enumerate(views.get(p.name, ())):
            if isinstance(d, str) and d not in bound and d not in (s for s, _, _ in out):
                out.append((d, p.name, axis))
    for pname, region in views.items():        # an expression over a symbol (VALID - 1): no slot to read
        for d in region:
            for v in dim_vars(d):
                if v not in bound and v not in (s for s, _, _ in out):
                    raise CompileError(f"{fn.name}: the valid_shape symbol {v!r} of parameter {pname!r} appears only "
                                       f"inside the expression {d!r}; name it on its own in one valid_shape entry, so "
                                       f"that a caller's valid extent there gives its value", fn.loc)
    return out


def _extent(arg: N.Expr, axis: int, call: N.FuncCall, callee: str, sym: str) -> N.Expr:
    """The valid extent of ``arg`` on ``axis``, as a scalar expression of the caller."""
    valid = arg.attrs.get("valid") if isinstance(arg, N.OpCall) and arg.op == "tensor_view" else None
    d = valid[axis] if valid is not None else arg.type.shape[axis]
    if isinstance(d, int):
        return N.Const(d, type=INDEX, loc=call.loc)
    if isinstance(d, N.Expr):
        return d
    if dim_vars(d) == (d,):
        return N.Var(d, type=INDEX, loc=call.loc)
    raise CompileError(f"{callee} needs the valid extent {sym!r} of this argument on axis {axis}, but its size there "
                       f"is the expression {d!r}; pass a pl.slice(..., valid_shape=[...]) of it", call.loc)


def materialize_valid_shape_symbols(prog: N.Program, ctx) -> N.Program:
    symbols = {fn.name: _symbols(fn) for fn in prog.functions.values() if fn.kind in _KERNELS}
    symbols = {k: v for k, v in symbols.items() if v}
    if not symbols:
        return prog
    for fn in prog.functions.values():
        for _, call in N.walk_calls(fn.body):
            syms = symbols.get(call.callee)
            if not syms:
                continue
            callee = prog.functions[call.callee]
            names = [p.name for p in callee.params]
            for sym, pname, axis in syms:
                call.args.append(_extent(call.args[names.index(pname)], axis, call, call.callee, sym))
    for name, syms in symbols.items():
        fn = prog.functions[name]
        fn.params.extend(N.Param(sym, INDEX, N.Direction.IN, loc=fn.loc) for sym, _, _ in syms)
    return prog
