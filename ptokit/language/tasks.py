"""Orchestration task features (pypto-parity.md A3, A4, B): task ids as values, ``pl.array`` of
task ids, ``pl.system.task_dummy``, ``deps=`` / ``no_dep_args=`` / ``dumps=`` / ``predicate=``
task options, ``pl.no_dep`` and ``pl.dump_tag``, and host reads and writes of tensor elements
(``pl.read``, ``pl.write``, ``A[i, j]``).

A mixin of FunctionParser (uses ``expr``, ``err``, ``loc``, ``env``, ``alias``, ``typed_op``,
``bind``, ``_resolve``, ``_index_list``, ``in_orchestration``).  The parser calls it through:

* ``task_scope(stmt, spec)`` on every ``at`` scope it makes (``pl.at``, ``pl.spmd``,
  ``pl.submit``): the options go to the scope and its task calls, the ``as`` name is bound;
* ``task_call_attrs(fcall, no_dep)`` on every task call (``pl.no_dep`` arguments, dump tags);
* ``task_statement(s)`` for ``pl.dump_tag(t)`` / ``pl.write(...)`` statements (and
  ``rebinding_write(s)`` for ``t = pl.write(t, ...)``);
* ``orch_subscript`` / ``orch_assign_subscript`` for ``arr[i]``, ``A[i, j]`` and their writes;
* ``escaping_init(t)``: the value a task id or array has on a path that does not bind it;
* the ``front=`` readers of op rows (``front_read``, ``front_write``, ``front_no_dep``,
  ``front_dump_tag``) and the ``deps`` operand kind (``deps_value``).

Kernel-side ``pl.read`` / ``pl.write`` go through ``kernel_read`` / ``kernel_write``.
"""
from __future__ import annotations

import ast
from typing import List, Optional, Set

from ..ir import nodes as N
from ..ir.ops import BY_PYTHON, OPS
from ..ir.types import TASK_ID, ArrayType, DType, ScalarType, TensorType, TileType, TupleType

# host code has no 16-bit float type: pl.read / pl.write of these in orchestration are refused
_NO_HOST_SCALAR = (DType.FP16, DType.BF16)


def _base_var(a: N.Expr) -> Optional[N.Var]:
    if isinstance(a, N.OpCall) and a.op == "tensor_view":
        a = a.args[0]
    return a if isinstance(a, N.Var) else None


class TaskMixin:
    dump_tags: Set[str]

    # ------------------------------------------------------------ deps
    def deps_value(self, node) -> N.ListExpr:
        """``deps=[t0, arr, None]``: task ids and TASK_ID arrays (``None`` entries dropped)."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err("deps= takes a list of task ids: deps=[tid] (task ids bound with `as`, by pl.submit "
                           "or pl.system.task_dummy, pl.TASK_ID arrays, None)", node)
        items = []
        for d in node.elts:
            if isinstance(d, ast.Constant) and d.value is None:
                continue
            if not self.in_orchestration:
                raise self.err("deps= belongs to orchestration code", d)
            v = self.expr(d)
            t = v.type
            if not ((isinstance(t, ScalarType) and t.dtype is DType.TASK_ID)
                    or (isinstance(t, ArrayType) and t.dtype is DType.TASK_ID)):
                what = f"{ast.unparse(d)!r} is {t}" if t is not None else f"{ast.unparse(d)!r} is not a value"
                raise self.err(f"deps= takes task ids (bound with `as`, by pl.submit or pl.system.task_dummy) and "
                               f"pl.TASK_ID arrays, but {what}", d)
            items.append(v)
        return N.ListExpr(items, type=TupleType(tuple(i.type for i in items)), loc=self.loc(node))

    def tensor_list(self, node, what: str) -> List[tuple]:
        """``dumps=[x, y]`` / ``no_dep_args=[x]``: (alias-resolved tensor name, node) of each entry."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err(f"{what}= takes a list of tensors: {what}=[x]", node)
        out = []
        for d in node.elts:
            v = self.expr(d)
            if not isinstance(v, N.Var) or not isinstance(v.type, TensorType):
                raise self.err(f"{what}= takes tensors (the task's tensor arguments), but {ast.unparse(d)!r} is "
                               f"{v.type}", d)
            out.append((v.name, d))
        return out

    def predicate_value(self, node) -> N.Expr:
        """``predicate=(t[i] > 0)``: one comparison of one tensor element with an integer literal,
        read by the runtime when the task's producers are done (never by the orchestration)."""
        usage = "predicate= takes one comparison of a tensor element with an integer literal: predicate=(t[i] > 0)"
        e = node
        if not (isinstance(e, ast.Compare) and len(e.ops) == 1):
            raise self.err(usage, node)
        o = BY_PYTHON.get(type(e.ops[0]))
        if o is None or not o.compare:
            raise self.err(usage, node)
        sub, lit_node = e.left, e.comparators[0]
        if not isinstance(sub, ast.Subscript):
            raise self.err(f"{usage}; the left side must be a tensor element t[i, ...]", sub)
        t = self.expr(sub.value)
        if not isinstance(t, N.Var) or not isinstance(t.type, TensorType):
            raise self.err(f"{usage}; {ast.unparse(sub.value)!r} is {t.type}, not a tensor", sub.value)
        idx = self.element_indices(sub, t)
        lit = self.expr(lit_node)
        if not (isinstance(lit, N.Const) and isinstance(lit.value, int) and not isinstance(lit.value, bool)):
            raise self.err(f"{usage}; the right side must be an integer literal", lit_node)
        read = self.typed_op("read", [t, idx], {}, sub)
        return self.typed_op(f"scalar.{o.name}", [read, lit], {}, node)

    # ------------------------------------------------------------ task scopes and calls
    def task_scope(self, stmt: N.Stmt, spec) -> N.Stmt:
        """The ``at`` scope of one task block with its options: ``deps=`` and ``predicate=`` on the
        scope, ``dumps=`` / ``no_dep_args=`` (and dump tags) on its task calls, and the ``as``
        name bound to the block's task id by a last statement of the scope."""
        if not (isinstance(stmt, N.Scope) and stmt.kind == "at"):
            stmt = N.Scope("at", [stmt], {}, loc=stmt.loc)
        attrs = dict(stmt.attrs)
        attrs.pop("name", None)
        deps = list(getattr(spec, "deps", []) or [])
        if deps:
            attrs["deps"] = N.ListExpr(deps, type=TupleType(tuple(d.type for d in deps)),
                                       loc=getattr(spec, "deps_loc", None) or stmt.loc)
        if getattr(spec, "predicate", None) is not None:
            attrs["predicate"] = spec.predicate
        stmt.attrs = attrs
        kernels = [k for k in N.walk_stmts(stmt.body) if isinstance(k, N.Scope) and k.kind == "incore"]
        if kernels:
            # a block of kernel code: OutlineIncoreScopes resolves the names on the call it makes
            for k in kernels:
                k.attrs["dumps"] = [(name, self.loc(node)) for name, node in getattr(spec, "dumps", [])]
                k.attrs["no_dep"] = [(name, self.loc(node)) for name, node in getattr(spec, "no_dep", [])]
                k.attrs["dump_tags"] = sorted(getattr(self, "dump_tags", ()) or ()) if self.in_orchestration else []
        calls = [] if kernels else [c for _, c in N.walk_calls(stmt.body)]
        for key, entries, what in () if kernels else (("dumps", getattr(spec, "dumps", []), "dumps"),
                                                      ("no_dep", getattr(spec, "no_dep", []), "no_dep_args")):
            for name, node in entries:
                hit = False
                for c in calls:
                    for j, a in enumerate(c.args):
                        b = _base_var(a)
                        if b is not None and b.name == name:
                            c.attrs[key] = sorted(set(c.attrs.get(key, ())) | {j})
                            hit = True
                if not hit:
                    raise self.err(f"{what}= names {ast.unparse(node)!r}, which is not a tensor argument of this "
                                   f"block's task", node)
        for c in calls:
            self.task_call_attrs(c, ())
        name = getattr(spec, "name", None)
        if name is not None:
            loc = stmt.loc
            stmt.body.append(N.Assign([N.Var(name, type=TASK_ID, loc=loc)],
                                      N.OpCall("system.task_id", [], {}, type=TASK_ID, loc=loc), loc=loc))
            self._note_assigned(name, spec.call or stmt)
            self.env[name] = TASK_ID
            self.alias.pop(name, None)
            self.consts.pop(name, None)
        return stmt

    def task_call_attrs(self, fcall: N.FuncCall, no_dep) -> N.FuncCall:
        """Task-argument marks of one kernel call: the ``pl.no_dep(x)`` argument positions, and the
        arguments tagged with ``pl.dump_tag`` earlier."""
        if no_dep:
            fcall.attrs["no_dep"] = sorted(set(fcall.attrs.get("no_dep", ())) | set(no_dep))
        tags = getattr(self, "dump_tags", None)
        if tags and self.in_orchestration:
            hits = {j for j, a in enumerate(fcall.args) if (b := _base_var(a)) is not None and b.name in tags}
            if hits:
                fcall.attrs["dumps"] = sorted(set(fcall.attrs.get("dumps", ())) | hits)
        return fcall

    def no_dep_arg(self, node):
        """The ``x`` of a kernel-call argument written ``pl.no_dep(x)``, else None."""
        if not isinstance(node, ast.Call):
            return None
        op = getattr(self._resolve(node.func), "__pto_op__", None)
        if op is None or OPS[op].front != "front_no_dep":
            return None
        if not self.in_orchestration:
            raise self.err("pl.no_dep(x) marks an argument of a task; it belongs in orchestration code", node)
        if len(node.args) != 1 or node.keywords:
            raise self.err("pl.no_dep takes one tensor: self.kernel(pl.no_dep(x), ...)", node)
        return node.args[0]

    # ------------------------------------------------------------ statements
    def task_statement(self, s: ast.Expr) -> Optional[List[N.Stmt]]:
        """``pl.dump_tag(t)`` and ``pl.write(t, idx, v)`` statements; None for other statements."""
        call = s.value
        if not isinstance(call, ast.Call):
            return None
        op = getattr(self._resolve(call.func), "__pto_op__", None)
        front = OPS[op].front if op is not None else None
        if front == "front_dump_tag":
            if not self.in_orchestration:
                raise self.err("pl.dump_tag marks a tensor for the argument dump of the orchestration's tasks; it "
                               "belongs in orchestration code", call)
            bound = self.bind(OPS[op], call)
            t = self.expr(bound["tensor"])
            if not isinstance(t, N.Var) or not isinstance(t.type, TensorType):
                raise self.err(f"pl.dump_tag takes a tensor, but {ast.unparse(bound['tensor'])!r} is {t.type}",
                               bound["tensor"])
            self.dump_tags.add(t.name)
            return []
        if front == "front_write":
            bound = self.bind(OPS[op], call)
            return [N.ExprStmt(self.element_write(bound["tensor"], bound["indices"], bound["value"], call, True),
                               loc=self.loc(s))]
        return None

    def rebinding_write(self, s: ast.Assign) -> Optional[List[N.Stmt]]:
        """``t = pl.write(t, indices, value)`` (pypto's spelling: the call's value is the tensor it
        wrote): the write statement; None when the value is not a pl.write call."""
        call = s.value
        if not isinstance(call, ast.Call):
            return None
        op = getattr(self._resolve(call.func), "__pto_op__", None)
        if op is None or OPS[op].front != "front_write":
            return None
        bound = self.bind(OPS[op], call)
        if not (isinstance(bound["tensor"], ast.Name) and bound["tensor"].id == s.targets[0].id):
            raise self.err(f"pl.write(t, indices, value) gives back t itself: bind it to the same name "
                           f"({ast.unparse(bound['tensor'])} = pl.write({ast.unparse(bound['tensor'])}, ...)) or "
                           f"write it as a statement", call)
        return self.task_statement(ast.copy_location(ast.Expr(value=call), s))

    # ------------------------------------------------------------ op readers (front=)
    def front_no_dep(self, op, e):
        raise self.err("pl.no_dep(x) marks a task argument: write it directly in a kernel call's argument list, "
                       "self.kernel(pl.no_dep(x), ...) (in a @pl.jit body: pl.at(..., no_dep_args=[x]))", e)

    def front_dump_tag(self, op, e):
        raise self.err("pl.dump_tag(t) is a statement of its own (it has no value)", e)

    def front_write(self, op, e):
        raise self.err("pl.write(t, indices, value) is a statement of its own (it has no value)", e)

    def front_task_dummy(self, op, e):
        if not self.in_orchestration:
            raise self.err("pl.system.task_dummy submits a task; it belongs in orchestration code", e)
        bound = self.bind(op, e)
        deps = self.deps_value(bound["deps"])
        return self.hoisted_task_dummy(self.typed_op(op.name, [deps], {}, e, {"deps": bound["deps"]}), e)

    def front_read(self, op, e):
        bound = self.bind(op, e)
        return self.element_read(bound["tensor"], bound["indices"], e, True)

    # ------------------------------------------------------------ element access
    def element_indices(self, sub_or_node, t: N.Expr, indices_node=None) -> N.ListExpr:
        """The index list of ``t[i, j]`` (a subscript) or of ``pl.read(t, [i, j])`` / ``pl.read(t, i)``."""
        if indices_node is None:
            sl = sub_or_node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            if any(isinstance(x, ast.Slice) for x in elts):
                raise self.err(f"{ast.unparse(sub_or_node)}: an element takes an index per dimension, not a slice",
                               sub_or_node)
            node = ast.copy_location(ast.List(elts=list(elts), ctx=ast.Load()), sub_or_node)
        elif isinstance(indices_node, (ast.List, ast.Tuple)):
            node = indices_node
        else:
            v = self.expr(indices_node)
            if isinstance(v, N.ListExpr):
                node = indices_node
            else:
                node = ast.copy_location(ast.List(elts=[indices_node], ctx=ast.Load()), indices_node)
        return self._index_list(node, "the indices of a tensor element")

    def element_read(self, tensor_node, indices_node, node, call: bool) -> N.Expr:
        t = self.expr(tensor_node)
        if not self.in_orchestration:
            return self.kernel_read(t, tensor_node, indices_node, node)
        if isinstance(t.type, TileType):
            raise self.err("pl.read of a tile is kernel code; in orchestration pl.read reads a tensor", tensor_node)
        idx = self.element_indices(node if not call else None, t, indices_node if call else None)
        self._check_host_access(t, tensor_node, "read")
        return self.typed_op("read", [t, idx], {}, node, {"tensor": tensor_node, "indices": indices_node or node})

    def element_write(self, tensor_node, indices_node, value_node, node, call: bool) -> N.Expr:
        t = self.expr(tensor_node)
        if not self.in_orchestration:
            return self.kernel_write(t, tensor_node, indices_node, value_node, node)
        if isinstance(t.type, TileType):
            raise self.err("pl.write of a tile is kernel code; in orchestration pl.write writes a tensor", tensor_node)
        idx = self.element_indices(node if not call else None, t, indices_node if call else None)
        self._check_host_access(t, tensor_node, "write")
        if self.fn is not None and isinstance(t, N.Var):
            for p in self.fn.params:
                if p.name == t.name and p.direction is N.Direction.IN:
                    raise self.err(f"pl.write writes {t.name!r}, an input parameter of {self.fn.name}: declare it "
                                   f"pl.Out[...] or pl.InOut[...] so the caller sees the write", tensor_node)
        v = self.expr(value_node)
        return self.typed_op("write", [t, idx, v], {}, node,
                             {"tensor": tensor_node, "indices": indices_node or node, "value": value_node})

    def _check_host_access(self, t: N.Expr, node, what: str) -> None:
        if not isinstance(t.type, TensorType):
            raise self.err(f"pl.{what} needs a tensor, but {ast.unparse(node)!r} is {t.type}", node)
        if not isinstance(t, N.Var):
            raise self.err(f"pl.{what} in orchestration takes a tensor variable (not a window)", node)
        if t.type.dtype in _NO_HOST_SCALAR:
            raise self.err(f"pl.{what} of a {t.type.dtype.name} tensor in orchestration is not supported: host code "
                           f"has no {t.type.dtype.name} scalar type (read it in a kernel, or keep such values in an "
                           f"FP32 or integer tensor)", node)

    def kernel_read(self, t, tensor_node, indices_node, node):
        """``pl.read(x, [i, j])`` / ``x[i, j]`` in kernel code: ``pto.tgetval`` of a tile,
        ``pto.load_scalar`` of a tensor (one flat row-major offset either way)."""
        off = self.kernel_element_offset(t, tensor_node, indices_node, node)
        return self.typed_op("getval" if isinstance(t.type, TileType) else "load_scalar", [t, off], {}, node)

    def kernel_write(self, t, tensor_node, indices_node, value_node, node):
        """``pl.write(x, [i, j], v)`` / ``x[i, j] = v`` in kernel code: ``pto.tsetval`` into a tile (in
        place), ``pto.store_scalar`` into a tensor (which must be an output parameter)."""
        off = self.kernel_element_offset(t, tensor_node, indices_node, node)
        v = self.expr(value_node)
        if not isinstance(v.type, ScalarType):
            raise self.err(f"pl.write writes one element, a scalar, but got {v.type}", value_node)
        return self.typed_op("setval" if isinstance(t.type, TileType) else "store_scalar", [t, off, v], {}, node)

    def kernel_element_offset(self, t, tensor_node, indices_node, node) -> N.Expr:
        if isinstance(t.type, TileType):
            shape = list(t.type.shape)
        elif isinstance(t.type, TensorType) and isinstance(t, N.Var):
            shape = list(t.type.shape)
        else:
            raise self.err(f"pl.read / pl.write take a tile or a tensor parameter, but {ast.unparse(tensor_node)!r} "
                           f"is {t.type}", tensor_node)
        if indices_node is not None and not isinstance(indices_node, (ast.List, ast.Tuple)):
            flat = self.expr(indices_node)
            if isinstance(flat.type, ScalarType) and not flat.type.dtype.is_float:
                return flat                          # one flat row-major offset
        idx = self.element_indices(node if indices_node is None else None, t, indices_node).items
        if len(idx) != len(shape):
            raise self.err(f"an element of the {len(shape)}-D {t.type} takes {len(shape)} indices, got {len(idx)}",
                           indices_node or node)
        for axis, (i, d) in enumerate(zip(idx, shape)):
            if isinstance(i, N.Const) and isinstance(d, int) and not 0 <= i.value < d:
                raise self.err(f"index {i.value} is outside axis {axis} of the {t.type} (0 .. {d - 1})",
                               indices_node or node)
        flat = idx[0]
        for i, d in zip(idx[1:], shape[1:]):
            flat = self.scalar_op("add", self.scalar_op("mul", flat, self._dim_value(d, node), node), i, node)
        return flat

    # ------------------------------------------------------------ subscripts in orchestration
    def orch_subscript(self, e: ast.Subscript) -> Optional[N.Expr]:
        """``arr[i]`` (an array element) and ``A[i, j]`` (all indices, one per dimension: a host read);
        None for a window."""
        if not isinstance(e.value, ast.Name) or e.value.id not in self.env:
            return None
        t = self.env[e.value.id]
        if isinstance(t, ArrayType):
            return self.array_subscript(e)
        if isinstance(t, TensorType) and self._all_indices(e):
            return self.element_read(e.value, None, e, False)
        return None

    def orch_assign_subscript(self, target: ast.Subscript, s) -> Optional[List[N.Stmt]]:
        """``arr[i] = v`` (rebinds ``arr`` to the updated array) and ``A[i, j] = v`` (a host write);
        None for other targets."""
        if not isinstance(target.value, ast.Name) or target.value.id not in self.env:
            return None
        t = self.env[target.value.id]
        if isinstance(t, ArrayType):
            return self.array_assign_subscript(target, s)
        if isinstance(t, TensorType) and self._all_indices(target):
            return [N.ExprStmt(self.element_write(target.value, None, s.value, target, False), loc=self.loc(s))]
        return None

    # ------------------------------------------------------------ pl.array elements (any level)
    def is_array_subscript(self, e: ast.Subscript) -> bool:
        return isinstance(e.value, ast.Name) and isinstance(self.env.get(e.value.id), ArrayType)

    def array_subscript(self, e: ast.Subscript) -> N.Expr:
        """``arr[i]``: an element of a pl.array."""
        arr = self.expr(e.value)
        if isinstance(e.slice, (ast.Slice, ast.Tuple)):
            raise self.err(f"{ast.unparse(e)}: a pl.array takes one index", e.slice)
        return self.typed_op("array.get_element", [arr, self.expr(e.slice)], {}, e)

    def array_assign_subscript(self, target: ast.Subscript, s) -> List[N.Stmt]:
        """``arr[i] = v``: rebinds ``arr`` to the updated array."""
        if isinstance(target.slice, (ast.Slice, ast.Tuple)):
            raise self.err(f"{ast.unparse(target)}: a pl.array takes one index", target.slice)
        name = target.value.id
        arr = self.expr(target.value)
        new = self.typed_op("array.update_element", [arr, self.expr(target.slice), self.expr(s.value)], {}, s,
                            {"value": s.value, "index": target.slice})
        self._note_assigned(name, target)
        self.env[name] = new.type
        return [N.Assign([N.Var(name, type=new.type, loc=self.loc(target))], new, loc=self.loc(s))]

    @staticmethod
    def _all_indices(e: ast.Subscript) -> bool:
        elts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        return not any(isinstance(x, ast.Slice) for x in elts)

    # ------------------------------------------------------------ values
    def escaping_init(self, t, loc) -> Optional[N.Expr]:
        """The value of a task id (the empty one) or an array (a new one) on the paths of a loop or
        ``if`` that do not bind it; None for other types."""
        if isinstance(t, ScalarType) and t.dtype is DType.TASK_ID:
            return N.OpCall("system.task_invalid", [], {}, type=TASK_ID, loc=loc)
        if isinstance(t, ArrayType):
            return N.OpCall("array.create", [], {"extent": t.extent, "dtype": t.dtype}, type=t, loc=loc)
        return None

    def none_value(self, node) -> N.Expr:
        """``None`` in orchestration code: the empty task id (``pl.system.task_invalid()``)."""
        if not self.in_orchestration:
            raise self.err("None is a value of orchestration code only (the empty task id)", node)
        return N.OpCall("system.task_invalid", [], {}, type=TASK_ID, loc=self.loc(node))

    def hoisted_task_dummy(self, call: N.OpCall, node) -> N.Expr:
        """``pl.system.task_dummy(...)`` used inside an expression: submitted by a statement of its
        own just before, its task id bound to a temporary."""
        if node is self.direct_call:
            return call
        tmp = f"_dummy{len(self.pre)}_{node.lineno}_{node.col_offset}"
        self.env[tmp] = TASK_ID
        self.pre.append(N.Assign([N.Var(tmp, type=TASK_ID, loc=self.loc(node))], call, loc=self.loc(node)))
        return N.Var(tmp, type=TASK_ID, loc=self.loc(node))
