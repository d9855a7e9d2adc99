"""Python ``ast`` -> IR, with type inference and located errors: the one front end.

The function bodies are never executed.  Names in them resolve, in order, to local variables,
the program's dynamic dimensions, and the defining module's globals (DSL ops, dtypes,
module-level int constants).  Every IR node records the DSL source location it came from.

``FunctionParser`` parses statements and expressions; its mixins hold the shared pieces: op
calls bound to the op table (``binding``), tensor windows (``windows``), ``pl.at``/``pl.spmd``
arguments (``scopes``) and program-function calls (``signatures``).  ``@pl.jit``
(``ptokit.jit.frontend``) subclasses it and customises it only through the hook methods
marked "hook" below.
"""
from __future__ import annotations

import ast
import builtins
from typing import Dict, List, Optional, Set

import numpy as np

from .dist_front import call_hook as dist_call_hook
from ..errors import CompileError, InternalError
from ..ir import nodes as N
from ..ir.ops import BY_PYTHON, OPS, SCALAR_OPERATORS
from ..ir.types import BOOL, INDEX, DType, MemorySpace, PadValue, ScalarType, TensorType, TileType, dim_vars
from .units import parse_program as _parse_units
from .annotations import TENSOR_VALID, read_annotation
from .binding import OpBinder
from .outline import Outliner, assignment_counts
from .scalars import ScalarMixin
from .regions import split_aiv_region
from .scalar_returns import call_site_value
from .pipes import PipeMixin
from .scopes import AtSpec, ScopeMixin
from .units import dyn_dims_of  # noqa: F401  (re-exported for the jit front end)
from .signatures import CallMixin, Signature
from .source import Source, eval_static
from .tasks import TaskMixin
from .views import TileViewMixin
from .memrefs import MemRefMixin
from .loop_valid import LoopValidMixin
from .cube import CubeMixin, L1Mixin
from .tensor_level import TensorLevelMixin, writes_operand0_tensor
from .types import DynamicDim
from .windows import WindowMixin
from .orch_views import OrchViewMixin

_MISSING = object()


def parse_program(spec) -> N.Program:
    """The IR program of a ``@pl.program`` class (``program.parse_program`` with this front end)."""
    return _parse_units(spec, FunctionParser)


class FunctionParser(PipeMixin, CubeMixin, OpBinder, TensorLevelMixin, ScalarMixin, WindowMixin, ScopeMixin, CallMixin,
                     TaskMixin, L1Mixin, TileViewMixin, MemRefMixin, LoopValidMixin, OrchViewMixin):
    def __init__(self, src: Source, g, sigs: Dict[str, Signature], dyn: Dict[str, DynamicDim]):
        self.src = src
        self.g = g
        self.sigs = sigs
        self.dyn = dyn
        self.env: Dict[str, object] = {}      # name -> IR type
        self.alias: Dict[str, str] = {}       # tensor name -> underlying tensor variable name
        self.fn: Optional[N.Function] = None
        self.pre: List[N.Stmt] = []           # statements hoisted out of the current statement
        self.direct_call = None               # the call that is the whole value of the current statement
        self.strict_ssa = False               # every name assigned once (pl.function/pl.program strict_ssa=True)
        self.assigned: Set[str] = set()
        self.live_after: Set[str] = set()     # names read after the statement being parsed
        self.outliner: Optional[Outliner] = None   # where pl.at blocks of kernel code become kernels
        self.manual_depth = 0                 # MANUAL runtime scopes around the statement being parsed
        self.consts: Dict[str, N.Const] = {}  # names assigned once, to a compile-time number
        self.dim_locals: Dict[str, str] = {}  # names assigned once, to a dynamic dimension (pl.tensor.dim)
        self.windows: Dict[str, N.OpCall] = {}   # names bound to a tensor window
        self.window_reads: Dict[str, Set[str]] = {}   # window name -> the names its tensor and bounds read
        self.stale_windows: Dict[str, tuple] = {}    # window name -> (a name it reads, assigned again there)
        self.escapes_to = None                # what a break/continue here would leave: "loop" or "with"
        self.yield_ctx = None                 # ("loop", carried names, [(lhs, carried)]) or ("if",) for pl.yield_
        self.post: List[N.Stmt] = []          # statements that follow the current statement
        self.synthetic = False                # parsing an assignment the front end made itself
        self.assign_counts: Dict[str, int] = {}
        self.dump_tags: Set[str] = set()      # tensors pl.dump_tag marked for the tasks after it (tasks.py)

    # ------------------------------------------------------------ helpers
    def err(self, msg, node) -> CompileError:
        return CompileError(msg, self.src.loc(node))

    def loc(self, node):
        return self.src.loc(node)

    @property
    def in_orchestration(self) -> bool:
        return self.fn is not None and self.fn.kind is N.FunctionType.Orchestration

    def parse_body(self, item: ast.FunctionDef, fn: N.Function) -> List[N.Stmt]:
        self.fn = fn
        self.assign_counts = assignment_counts(item)
        for p in fn.params:
            self.env[p.name] = p.type
            if isinstance(p.type, TensorType):
                for d in p.type.shape:
                    for v in dim_vars(d):
                        self.env.setdefault(v, INDEX)
        for region in (fn.attrs.get(TENSOR_VALID) or {}).values():
            for d in region:          # a symbol only a pl.TensorView valid_shape names: a scalar the caller
                for v in dim_vars(d):  # passes (passes/valid_symbols.py)
                    self.env.setdefault(v, INDEX)
        return self.block(item.body)

    def block(self, stmts) -> List[N.Stmt]:
        out: List[N.Stmt] = []
        outer = self.live_after
        later = [_names_read(s) for s in stmts]
        try:
            for i, s in enumerate(stmts):
                if i == 0 and self._is_func_attr(s):
                    continue          # read by the program front end (program._check_decl)
                self.live_after = set(outer).union(*later[i + 1:])
                out.extend(self.stmt(s))
        finally:
            self.live_after = outer
        return out

    def _is_func_attr(self, s) -> bool:
        return (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                and getattr(self._resolve(s.value.func), "__pto_marker__", None) == "func_attr")

    def declare_escaping(self, before: Dict[str, object], after: Dict[str, object], node) -> None:
        """Names first bound inside a loop or one ``if`` arm and read after it stay visible, with
        the value of the path that ran: a declaration before the statement makes them carried
        (an uninitialised tile, or a zero scalar, for the paths that do not bind them)."""
        for name in sorted(set(after) - set(before)):
            if name not in self.live_after or name in self.alias:
                continue
            t = after[name]
            loc = self.loc(node)
            init = self.escaping_init(t, loc)     # task ids and arrays (tasks.py)
            if init is not None:
                pass
            elif isinstance(t, TileType):
                init = N.OpCall("create_tile", [], {"shape": list(t.shape), "dtype": t.dtype,
                                                    "target_memory": t.memory}, type=t.with_(valid=None), loc=loc)
            elif isinstance(t, ScalarType):
                init = N.Const(0.0 if t.dtype.is_float else (False if t.dtype is DType.BOOL else 0), type=t, loc=loc)
            else:
                continue
            self.pre.append(N.Assign([N.Var(name, type=init.type, loc=loc)], init, loc=loc))
            before[name] = t

    # ------------------------------------------------------------ hooks
    def call_hook(self, target, e: ast.Call) -> Optional[N.Expr]:
        """hook: a call of a name that is not a DSL op (pld names: language/distributed/front.py)."""
        return dist_call_hook(self, target, e)

    def subscript(self, e: ast.Subscript) -> N.Expr:
        """hook: ``x[...]`` read as a value: a task-argument window in orchestration, a window or
        tile slice in kernel code."""
        if self.in_orchestration:
            element = self.orch_subscript(e)      # arr[i], A[i, j] (tasks.py)
            return element if element is not None else self.tensor_window(e)
        if self.is_array_subscript(e):
            return self.array_subscript(e)
        return self.kernel_subscript(e)

    def assign_subscript(self, target: ast.Subscript, s) -> List[N.Stmt]:
        """hook: ``x[...] = value``: kernel code only."""
        if self.in_orchestration:
            element = self.orch_assign_subscript(target, s)     # arr[i] = v, A[i, j] = v (tasks.py)
            if element is not None:
                return element
            raise self.err("writing a window of a tensor (x[a:b] = ...) is kernel code; in an orchestration "
                           "function it must be inside a `with pl.at(level=pl.Level.CORE_GROUP):` block", target)
        if self.is_array_subscript(target):
            return self.array_assign_subscript(target, s)
        return [self.kernel_assign_subscript(target, s)]

    def at_block(self, s: ast.With, spec: AtSpec) -> N.Stmt:
        """hook: ``with pl.at(...)``: a body of kernel code is outlined into a kernel of its own; a
        body that only submits program functions is a scope around those tasks."""
        if self.outliner is not None and self._has_kernel_code(s.body):
            if not self.in_orchestration:
                raise self.err("a pl.at block of kernel code belongs in the orchestration, not inside a kernel", s)
            return self.task_scope(self.outliner.outline(self, s, spec, self._kernel_parser), spec)
        body = self.block(s.body)
        return self.task_scope(N.Scope("at", body, spec.scope_attrs(), loc=self.loc(s)), spec)

    def _kernel_parser(self, kfn: N.Function) -> "FunctionParser":
        p = type(self)(self.src, self.g, self.sigs, self.dyn)
        p.strict_ssa = self.strict_ssa
        p.outliner = self.outliner
        return p

    def _has_kernel_code(self, stmts) -> bool:
        """Does a block hold DSL ops of kernel code (tile or tensor compute, loads, stores)?"""
        for node in (n for s in stmts for n in ast.walk(s)):
            if isinstance(node, ast.Call):
                op = getattr(self._resolve(node.func), "__pto_op__", None)
                if op is not None and not OPS[op].has("orchestration"):
                    return True
            if isinstance(node, (ast.Assign, ast.AugAssign)) and any(isinstance(t, ast.Subscript) for t in (
                    node.targets if isinstance(node, ast.Assign) else [node.target])):
                return True
        return False

    # ------------------------------------------------------------ statements
    def stmt(self, s) -> List[N.Stmt]:
        saved = self.pre, self.direct_call, self.post
        self.pre = []
        self.post = []
        self.direct_call = None
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            self.direct_call = s.value
        elif isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and \
                isinstance(s.targets[0], (ast.Name, ast.Tuple)):
            self.direct_call = s.value
        try:
            out = self._stmt(s)
            return self.pre + out + self.post
        finally:
            self.pre, self.direct_call, self.post = saved

    def _stmt(self, s) -> List[N.Stmt]:
        loc = self.loc(s)
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return []       # docstring
            if getattr(s, "_pl_condition", None) is not None:
                return [self.condition(s._pl_condition, s)]
            if isinstance(s.value, ast.Call) and \
                    getattr(self._resolve(s.value.func), "__pto_marker__", None) == "cond":
                raise self.err("pl.cond(...) is the first statement of a `for (...) in pl.while_(init_values=...)` "
                               "loop body", s)
            if self.static_statement(s):
                return []
            handled = self.task_statement(s)      # pl.dump_tag, pl.write (tasks.py)
            if handled is not None:
                return handled
            e = self.expr(s.value)
            return [N.ExprStmt(e, loc=loc)]
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, (ast.Break, ast.Continue)):     # CtrlFlowTransform makes them structured
            word = "break" if isinstance(s, ast.Break) else "continue"
            if self.escapes_to == "with":    # (Python itself refuses one outside a loop)
                raise self.err(f"`{word}` inside a `with` block: the block is its own task or scope, so it cannot "
                               f"end the loop around it; put the test outside the block", s)
            return [(N.Break if word == "break" else N.Continue)(loc=loc)]
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            return self.assign(s)
        if isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                raise self.err("augmented assignment needs a simple name", s)
            fake = ast.Assign(targets=[s.target], value=ast.BinOp(
                left=ast.Name(id=s.target.id, ctx=ast.Load(), lineno=s.lineno, col_offset=s.col_offset),
                op=s.op, right=s.value, lineno=s.lineno, col_offset=s.col_offset),
                lineno=s.lineno, col_offset=s.col_offset)
            return self.assign(fake)
        if isinstance(s, ast.Return):
            if s.value is None:
                return [N.Return([], loc=loc)]
            vals = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
            out, values = [], []
            for i, v in enumerate(vals):
                e = self.expr(v)
                if self.fn is not None and self.fn.kind is N.FunctionType.InCore and self.tensor_level_value(e):
                    e = self.as_tile(e, v, "return")      # the pass makes it the tile it computes
                if isinstance(e.type, TileType) and self.fn is not None and self.fn.kind is N.FunctionType.InCore:
                    e = self.returned_tile(e, i, v)       # stored to an added Out (signatures.py)
                if isinstance(e, N.OpCall) and e.op == "store":
                    # `return pl.store(t, off, out)`: the store happens, and the tensor is returned
                    out.append(N.ExprStmt(e, loc=loc))
                    e = N.Var(e.args[1].name, type=e.args[1].type, loc=e.loc)
                values.append(e)
            return out + [N.Return(values, loc=loc)]
        if isinstance(s, ast.For):
            return [self.for_loop(s)]
        if isinstance(s, ast.While):
            return [self.while_stmt(s)]
        if isinstance(s, ast.If):
            return [self.if_stmt(s)]
        if isinstance(s, ast.With):
            return [self.with_block(s)]
        raise self.err(f"unsupported statement in a DSL function: {type(s).__name__}", s)

    def if_stmt(self, s: ast.If) -> N.Stmt:
        cond = self.expr(s.test)
        if not isinstance(cond.type, ScalarType):
            raise self.err(f"an if condition must be a scalar, but got {cond.type}", s.test)
        saved = dict(self.env)
        outer_yield, self.yield_ctx = self.yield_ctx, ("if",)
        try:
            then_body = self.block(s.body)
            then_env = self.env
            self.env = dict(saved)
            else_body = self.block(s.orelse)
        finally:
            self.yield_ctx = outer_yield
        else_env = self.env
        self.env = dict(saved)
        self.merge_valid_arms(then_body, else_body, then_env, else_env, s)     # views.py
        for name in set(then_env) | set(else_env):
            if name in then_env and name in else_env:
                self.env[name] = then_env[name]
            elif name in saved:
                self.env[name] = saved[name]
            elif name in self.alias:
                self.env[name] = then_env.get(name, else_env.get(name))
        one_arm = {k: v for k, v in {**else_env, **then_env}.items() if k not in self.env}
        self.declare_escaping(self.env, {**self.env, **one_arm}, s)
        self.env.update({k: v for k, v in one_arm.items() if k in self.live_after and not isinstance(v, TensorType)})
        return N.If(cond, then_body, else_body, loc=self.loc(s))

    def assign(self, s) -> List[N.Stmt]:
        loc = self.loc(s)
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        if isinstance(s, ast.Assign) and len(s.targets) != 1:
            raise self.err("chained assignment is not supported", s)
        if s.value is None:
            raise self.err("a declaration needs a value", s)
        if isinstance(s, ast.Assign) and isinstance(target, ast.Name):
            handled = self.rebinding_write(s)      # t = pl.write(t, idx, v) (tasks.py)
            if handled is not None:
                return handled
        if isinstance(s, ast.AnnAssign) and isinstance(target, ast.Name):
            annot, ref = self.split_memref(s.annotation)
            if ref is not None:        # t: pl.Tile[..., buf[i], pl.Mem.Vec] = ... (memrefs.py)
                plain = ast.copy_location(ast.AnnAssign(target=target, annotation=annot, value=s.value,
                                                        simple=s.simple), s)
                annot, _ = self.split_tile_view(annot)
                return self.apply_memref(target.id, ref, self.assign(plain), annot, s)
            annot, view = self.split_tile_view(s.annotation)
            if view is not None:       # t: pl.Tile[..., pl.TileView(valid_shape=[vr, vc])] = ... (views.py)
                plain = ast.copy_location(ast.AnnAssign(target=target, annotation=annot, value=s.value,
                                                        simple=s.simple), s)
                self.lhs_view = view       # a pop takes its valid region from it (pipes.py)
                try:
                    out = self.assign(plain)
                    # a pop that took its valid region from the view consumed it (pipes.py)
                    return out if self.lhs_view is None else out + self.apply_tile_view(target.id, view, s)
                finally:
                    self.lhs_view = None
        if isinstance(target, ast.Subscript):
            return self.assign_subscript(target, s)
        if isinstance(s.value, ast.Call):
            marker = getattr(self._resolve(s.value.func), "__pto_marker__", None)
            if marker in ("spmd_submit", "submit"):
                return self.submit_call(target, s.value, s, marker)
            if marker == "yield_":
                return self.yield_stmt(target, s.value, s)
        self.lhs_annotation = s.annotation if isinstance(s, ast.AnnAssign) else None   # a pop's type (pipes.py)
        try:
            value = self.expr(s.value)
        finally:
            self.lhs_annotation = None
        if isinstance(target, ast.Tuple):
            names = []
            for t in target.elts:
                if not isinstance(t, ast.Name):
                    raise self.err("only names can be unpacked", t)
                self._note_assigned(t.id, t)
                names.append(t.id)
            if isinstance(value, N.ListExpr):          # M, N = x.shape / a, b = (1, 2)
                if len(value.items) != len(names):
                    raise self.err(f"{len(names)} names for {len(value.items)} values", target)
                out = []
                for name, item, t in zip(names, value.items, target.elts):
                    if isinstance(item, N.Const) and isinstance(item.value, (int, float)) and \
                            self.assign_counts.get(name, 0) == 1 and name not in self.env:
                        self.consts[name] = item
                        continue
                    self.env[name] = item.type
                    self.alias.pop(name, None)
                    out.append(N.Assign([N.Var(name, type=item.type, loc=self.loc(t))], item, loc=loc))
                return out
            if not isinstance(value, N.FuncCall):
                raise self.err("tuple unpacking needs a function call returning several values", s.value)
            return self._assign_call(names, value, loc, s)
        if not isinstance(target, ast.Name):
            raise self.err("assignment target must be a name", target)
        name = target.id
        self._note_assigned(name, target)
        want = None
        if isinstance(s, ast.AnnAssign):
            annot = eval_static(s.annotation, self.src, self.annotation_scope(s.annotation), "annotation")
            ann = read_annotation(annot, self.loc(s.annotation))
            want, _ = ann.ir_type(self.loc(s.annotation))
            if ann.kind == "tile" and ann.memory is None:
                want = want.with_(memory=None)    # shape and dtype only: the value's memory space wins
        if isinstance(value, N.FuncCall):
            out = self._assign_call([name], value, loc, s)
            if want is not None:      # the call's result type is known once it is bound
                self._check_annot(want, N.Var(name, type=self.env.get(name)), s)
            return out
        if want is not None:
            self._check_annot(want, value, s)
            if isinstance(want, TileType) and want.nd is not None and isinstance(value, N.OpCall) and \
                    isinstance(value.type, TileType) and value.type.nd is None:
                value.type = value.type.with_(nd=want.nd)    # the annotation names the N-D axes of the rows
        if isinstance(value.type, TensorType) and isinstance(value, N.OpCall) and value.op == "store":
            self._alias(name, value.args[1])
            return [N.ExprStmt(value, loc=loc)]
        if isinstance(value, N.OpCall) and writes_operand0_tensor(value):
            self._alias(name, value.args[0])   # `o = pl.expand_clone(src, o)`, `o = pl.assemble(o, c, offs)`: a
            return [N.ExprStmt(value, loc=loc)]    # statement writing o
        computed = self.kernel_code and self.tensor_level_value(value)   # a value this kernel computes
        if isinstance(value, N.Var) and not computed and (isinstance(value.type, TensorType) or
                                                          value.name in getattr(self, "k_accumulators", ())):
            self._alias(name, value)   # a K-loop accumulator (cube.py) is named, not copied: an Acc tile has no copy
            return []
        if isinstance(value, N.OpCall) and value.op == "tensor_view":
            self.windows[name] = value        # the name stands for the window where it is used (a task
            self.window_reads[name] = _window_names(value)   # argument, a pl.at block's tensor argument)
            self.stale_windows.pop(name, None)
            return []
        if isinstance(value, N.Const) and isinstance(value.value, (int, float)) and \
                self.assign_counts.get(name, 0) == 1 and not isinstance(s, ast.AnnAssign) and name not in self.env:
            self.consts[name] = value         # known while compiling (e.g. `rows, cols = x.shape`)
            return []
        if isinstance(value, N.Var) and value.type == INDEX and self.assign_counts.get(name, 0) == 1 and \
                name not in self.env and (value.name in self.dyn or value.name in self.dim_locals):
            self.dim_locals[name] = self.dim_locals.get(value.name, value.name)   # hd = pl.tensor.dim(x, 1)
        self.env[name] = value.type
        self.alias.pop(name, None)
        if computed or name in self.tensor_level_names:
            self.tensor_level_names = (self.tensor_level_names - {name}) | ({name} if computed else set())
        return [N.Assign([N.Var(name, type=value.type, loc=self.loc(target))], value, loc=loc)]

    def yield_stmt(self, target, call: ast.Call, node) -> List[N.Stmt]:
        """``v = pl.yield_(x)`` / ``a, b = pl.yield_(x, y)``: in a loop with ``init_values`` the values
        carried into the next iteration (the left names hold the last ones after the loop); in an
        ``if`` arm the values the arms merge into the left names."""
        if call.keywords:
            raise self.err("pl.yield_ takes the values positionally", call)
        names = [t.id for t in (target.elts if isinstance(target, ast.Tuple) else [target]) if isinstance(t, ast.Name)]
        if len(names) != (len(target.elts) if isinstance(target, ast.Tuple) else 1):
            raise self.err("pl.yield_ is assigned to names", target)
        if len(names) != len(call.args):
            raise self.err(f"pl.yield_ yields {len(call.args)} values to {len(names)} names", node)
        ctx = self.yield_ctx
        if ctx is None:
            raise self.err("pl.yield_ belongs in a loop body or an if arm", call)
        dests = names
        if ctx[0] == "loop":
            carried, record = ctx[1], ctx[2]
            if len(carried) != len(call.args):
                raise self.err(f"pl.yield_ yields {len(call.args)} values but the loop carries {len(carried)} "
                               f"(init_values=)", call)
            record[:] = list(zip(names, carried))
            dests = carried
        out = []
        for dest, value in self.yield_binds(dests, call.args, node):     # loop_valid.py
            out.extend(self.bind_name(dest, value, node))
        return out

    def bind_name(self, name: str, value_node, node) -> List[N.Stmt]:
        """``name = <value_node>`` written by the front end itself (loop-carried values): parsed as an
        assignment, exempt from strict_ssa's one-assignment rule."""
        stmt = ast.copy_location(ast.Assign(targets=[ast.copy_location(ast.Name(id=name, ctx=ast.Store()), node)],
                                            value=value_node), node)
        self.synthetic = True
        try:
            return self.assign(stmt)
        finally:
            self.synthetic = False

    def _note_assigned(self, name: str, node) -> None:
        for w, reads in self.window_reads.items():      # a named window reads its bounds where it is used
            if name in reads and w not in self.stale_windows:
                self.stale_windows[w] = (name, self.loc(node))
        if self.synthetic:
            return
        if self.strict_ssa and name in self.assigned:
            raise self.err(f"{name!r} is assigned a second time, but this function is strict_ssa=True (each name "
                           f"is assigned once; use a new name, or drop strict_ssa)", node)
        self.assigned.add(name)

    def submit_call(self, target, call: ast.Call, node, marker: str) -> List[N.Stmt]:
        """``out, tid = pl.submit(self.k, *args, deps=[t0])`` and ``out, tid = pl.spmd_submit(self.k,
        *args, core_num=n, deps=[t0], sync_start=...)``: the call forms of ``with pl.at(deps=[t0]) as
        tid:`` around the kernel call (inside ``with pl.spmd(n):`` for spmd_submit), the same IR
        scopes.  ``(a, b), tid = ...`` binds several results, ``_`` drops the task id, and a plain
        ``res = pl.submit(...)`` binds the results only."""
        spmd = marker == "spmd_submit"
        usage = (f"out, tid = pl.{marker}(self.kernel, *args" + (", core_num=N" if spmd else "") + ", deps=[...])")
        if not self.in_orchestration:
            raise self.err(f"pl.{marker} submits a task and belongs in an Orchestration function", call)
        pair = isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)
        if not pair and (spmd or not isinstance(target, (ast.Name, ast.Tuple))):
            raise self.err(f"pl.{marker} returns the kernel's result(s) and a task id: write `{usage}`", target)
        if not call.args or not (isinstance(call.args[0], ast.Attribute) and isinstance(call.args[0].value, ast.Name)
                                 and call.args[0].value.id == "self"):
            raise self.err(f"pl.{marker} takes the kernel (self.kernel) first: `{usage}`", call)
        kw = {k.arg: k.value for k in call.keywords}
        if None in kw:
            raise self.err(f"pl.{marker} does not take **kwargs", call)
        allowed = {"deps", "allow_early_resolve", "dumps", "predicate"} | ({"core_num", "sync_start"} if spmd else set())
        unknown = set(kw) - allowed
        if unknown:
            raise self.err(f"pl.{marker} has no keyword {sorted(unknown)[0]!r} "
                           f"({', '.join(k + '=' for k in sorted(allowed))})", call)
        if spmd and "core_num" not in kw:
            raise self.err(f"pl.spmd_submit needs the block count as core_num=: `{usage}`", call)
        if "allow_early_resolve" in kw:
            self._static_bool(kw["allow_early_resolve"], "allow_early_resolve")   # a scheduling hint: no effect
        spec = AtSpec(deps=self.deps_list(kw["deps"]) if "deps" in kw else [], call=call,
                      deps_loc=self.loc(kw["deps"]) if "deps" in kw else None)
        if "dumps" in kw:
            spec.dumps = self.tensor_list(kw["dumps"], "dumps")     # the runtime's argument dump (tasks.py)
        if "predicate" in kw:
            spec.predicate = self.predicate_value(kw["predicate"])  # skipped at dispatch when false
        results = target.elts[0] if pair else target
        if pair and target.elts[1].id != "_":
            spec.name = target.elts[1].id
        kcall = ast.Call(func=call.args[0], args=list(call.args[1:]), keywords=[])
        ast.copy_location(kcall, call)
        kcall.end_lineno, kcall.end_col_offset = call.end_lineno, call.end_col_offset
        inner = ast.Assign(targets=[results], value=kcall)
        ast.copy_location(inner, node)
        inner.end_lineno, inner.end_col_offset = node.end_lineno, node.end_col_offset
        body = self.assign(inner)
        loc = self.loc(node)
        if spmd:
            n = self.expr(kw["core_num"])
            if not isinstance(n.type, ScalarType) or n.type.dtype.is_float:
                raise self.err(f"core_num must be an integer, but got {n.type}", kw["core_num"])
            attrs = {"block_num": n}
            if "sync_start" in kw and self._static_bool(kw["sync_start"], "sync_start"):
                attrs["sync_start"] = True
            body = [N.Scope("spmd", body, attrs, loc=loc)]
        return [self.task_scope(N.Scope("at", body, spec.scope_attrs(), loc=loc), spec)]

    def _alias(self, name, tensor_expr):
        if not isinstance(tensor_expr, N.Var):
            raise InternalError(f"tensor alias of a non-variable {tensor_expr!r}")
        self.alias[name] = self.alias.get(tensor_expr.name, tensor_expr.name)
        self.env[name] = tensor_expr.type

    def _assign_call(self, names, call: N.FuncCall, loc, node) -> List[N.Stmt]:
        sig = self.sigs[call.callee]
        callee = sig.fn
        if callee.kind is N.FunctionType.Inline:
            rets = callee.return_types
            if len(rets) != len(names):
                raise self.err(f"{call.callee} returns {len(rets)} values, but {len(names)} names are bound", node)
            targets = []
            for name, t in zip(names, rets):
                self.env[name] = t
                self.alias.pop(name, None)
                targets.append(N.Var(name, type=t, loc=loc))
            return [N.Assign(targets, call, loc=loc)]
        if len(sig.returns_params) != len(names):
            raise self.err(f"{call.callee} returns {len(sig.returns_params)} values, but {len(names)} names are bound",
                           node)
        after: List[N.Stmt] = []
        for k, (name, pidx) in enumerate(zip(names, sig.returns_params)):
            rets = callee.return_types or []
            if pidx < 0 and k < len(rets) and isinstance(rets[k], ScalarType):
                value, why = call_site_value(callee, k, call.args)    # scalar_returns.py
                if value is None:
                    raise self.err(f"the scalar {call.callee} returns in position {k} cannot be bound here: {why}",
                                   node)
                self.env[name] = rets[k]
                self.alias.pop(name, None)
                after.append(N.Assign([N.Var(name, type=rets[k], loc=loc)], value, loc=loc))
                continue
            if pidx < 0:
                raise self.err(f"{call.callee} must return its Out/InOut tensor parameters so the caller can "
                               f"bind them", node)
            arg = call.args[pidx]
            if isinstance(arg, N.OpCall) and arg.op == "tensor_view":
                arg = arg.args[0]     # `y = self.k(..., y[a:b, :])`: the name is the whole tensor again
            if not isinstance(arg, N.Var):
                raise self.err("an Out argument must be a tensor variable", node)
            self._alias(name, arg)
        return [N.ExprStmt(call, loc=loc)] + after

    def annotation_scope(self, node) -> dict:
        """The names an annotation in the body sees: the function's scope, then its locals (as Python
        would), a constant as its value and a run-time scalar as a dynamic dimension of that name
        (``t: pl.Tensor[[16, hd], pl.FP32] = pl.create_tensor([16, hd], ...)``)."""
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        scope = dict(self.g)
        for name in used:
            if name in self.consts and name not in self.env:
                scope[name] = self.consts[name].value
            elif isinstance(self.env.get(name), ScalarType):
                scope[name] = DynamicDim(self.dim_locals.get(name, name))
        return scope

    def _check_annot(self, want, value, node):
        got = value.type
        if isinstance(want, TileType) and isinstance(got, TileType):
            if want.shape != got.shape or want.dtype != got.dtype or want.memory not in (None, got.memory) or \
                    (want.nd is not None and got.nd is not None and want.nd != got.nd):
                raise self.err(f"annotation says {want} but the value is {got}", node)
        elif isinstance(want, TensorType) and isinstance(got, TileType):
            # pypto's tensor-level result in kernel code (`c: pl.Tensor[[1, M, N], pl.FP32] = pl.matmul(a, b)`)
            # that the front end computed on chip: the name holds the tile (an N-D shape folds into rows)
            if not _tile_holds(want, got):
                raise self.err(f"annotation says {want} but the value is {got}", node)
        elif type(want) is not type(got):
            raise self.err(f"annotation says {want} but the value is {got}", node)

    def for_loop(self, s: ast.For) -> N.Stmt:
        it = s.iter
        carried_names = []
        if s.orelse:
            raise self.err("`for ... else` is not supported: put the else code after the loop", s.orelse[0])
        if isinstance(it, ast.Call) and getattr(self._resolve(it.func), "__pto_marker__", None) == "while_":
            return self.while_loop(s, it)
        if isinstance(s.target, ast.Tuple):
            # `for i, (a, b) in pl.range(n, init_values=(a0, b0)):` -- explicit loop-carried values
            elts = s.target.elts
            inner_t = elts[1] if len(elts) == 2 else None
            names = inner_t.elts if isinstance(inner_t, ast.Tuple) else [inner_t] if inner_t is not None else []
            if len(elts) != 2 or not isinstance(elts[0], ast.Name) or not all(isinstance(n, ast.Name) for n in names):
                raise self.err("a loop header is `for i in ...` or `for i, (a, b) in pl.range(..., init_values=(...))`",
                               s.target)
            carried_names = [n.id for n in names]
            loop_name = elts[0]
        elif isinstance(s.target, ast.Name):
            loop_name = s.target
        else:
            raise self.err("a loop variable must be a simple name", s.target)
        if not isinstance(it, ast.Call):
            raise self.err("loops must iterate over pl.range(...), pl.parallel(...) or pl.unroll(...)", it)
        marker = self._resolve(it.func)
        kind = getattr(marker, "__pto_marker__", None)
        if kind == "split_aiv":
            return split_aiv_region(self, s, it)
        if kind == "spmd":
            spec = self.parse_spmd(it)
            if self.outliner is None or not self.in_orchestration:
                raise self.err("`for i in pl.spmd(n)` is a kernel launched as n blocks; it belongs in the "
                               "orchestration", it)
            return self._spmd_kernel(s, spec, spec.at(), block_var=s.target.id)
        if kind not in ("range", "parallel", "unroll", "pipeline"):
            if marker is range:
                kind = "range"
            else:
                raise self.err("loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...) or "
                               "pl.unroll(...)", it)
        kw = {k.arg: k.value for k in it.keywords}
        allowed = {"init_values"} | ({"stage"} if kind == "pipeline" else set())
        for k in kw:
            if k not in allowed:
                raise self.err(f"pl.{kind} takes its bounds positionally (start, stop, step)" +
                               (f" and {', '.join(sorted(allowed))}=" if allowed else ""), kw[k])
        if "stage" in kw:
            stage = self.expr(kw["stage"])
            if not (isinstance(stage, N.Const) and isinstance(stage.value, int) and stage.value >= 1):
                raise self.err("stage= of pl.pipeline must be a positive compile-time integer", kw["stage"])
        stage_n = stage.value if "stage" in kw else 1
        if kind == "pipeline" and "stage" not in kw:
            raise self.err("pl.pipeline needs stage=, the number of iterations each pipelined step holds", it)
        inits = []
        if "init_values" in kw:
            node = kw["init_values"]
            elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
            if len(elts) != len(carried_names):
                raise self.err(f"init_values has {len(elts)} values for {len(carried_names)} loop-carried names", node)
            inits = list(zip(carried_names, elts))
        elif carried_names:
            raise self.err("`for i, (a, ...) in ...` names loop-carried values: give their initial values with "
                           "init_values=(...)", s.target)
        for name, node in inits:     # the carried names hold their initial values when the loop starts
            self.pre.extend(self.bind_name(name, node, node))
        bounds = [self.expr(a) for a in it.args]
        for b, a in zip(bounds, it.args):
            if not isinstance(b.type, ScalarType) or b.type.dtype.is_float:
                raise self.err(f"loop bounds must be integers or integer scalars, but got {b.type}", a)
        if not 1 <= len(bounds) <= 3:
            raise self.err("pl.range takes 1 to 3 arguments (start, stop, step)", it)
        if len(bounds) == 1:
            bounds = [self._const(0, s)] + bounds
        if len(bounds) == 2:
            bounds.append(self._const(1, s))
        if kind == "unroll" and not all(isinstance(b, N.Const) for b in bounds):
            raise self.err("pl.unroll needs literal bounds", it)
        if isinstance(bounds[2], N.Const) and bounds[2].value <= 0:
            raise self.err("loop step must be positive", it)
        var = N.Var(loop_name.id, type=INDEX, loc=self.loc(loop_name))
        self.env[var.name] = INDEX
        body, yielded = self.loop_scope(s.body, carried_names, s)
        loop = N.For(var, bounds[0], bounds[1], bounds[2], body, kind=kind, stage=stage_n, loc=self.loc(s))
        self.bind_yielded(yielded, s)
        return loop

    def loop_scope(self, stmts, carried_names, s):
        """Parse a loop body: (statements, [(name a pl.yield_ bound, carried name)]).  Names bound
        before the loop keep their types; names first bound inside stay visible after it when read."""
        saved = dict(self.env)
        saved_alias = dict(self.alias)
        outer_yield, outer_live = self.yield_ctx, self.live_after

        def parse():
            yielded = []
            self.yield_ctx = ("loop", carried_names, yielded)
            outer_escape, self.escapes_to = self.escapes_to, "loop"
            # the next iteration reads what the body leaves of the names bound before the loop
            self.live_after = set(outer_live) | (set(saved) & set().union(*[_names_read(x) for x in stmts]))
            try:
                return self.block(stmts), yielded
            finally:
                self.yield_ctx, self.live_after, self.escapes_to = outer_yield, outer_live, outer_escape

        body, yielded = self.parse_loop_body(parse, saved, s)     # loop_valid.py
        if self.in_orchestration:
            body.extend(self._carry_tensor_rebinds(saved, saved_alias, stmts, body, s))
        for k, v in list(self.env.items()):
            if k in saved and saved[k] != v and isinstance(v, TileType) and isinstance(saved[k], TileType):
                # a Vec accumulator the body turns into an Acc product (pl.create_tensor then matmul /
                # matmul_acc): InferTileMemorySpace places it in Acc from the start, as pypto's does
                to_acc = saved[k].memory is MemorySpace.Vec and v.memory is MemorySpace.Acc
                if v.shape != saved[k].shape or v.dtype != saved[k].dtype or (v.memory != saved[k].memory
                                                                              and not to_acc):
                    raise self.err(f"loop-carried {k!r} changes type inside the loop: {saved[k]} before, {v} after", s)
        inner = self.env
        self.env = {k: v for k, v in inner.items() if k in saved}
        self.declare_escaping(self.env, inner, s)
        for k, v in inner.items():          # tensor names bound in the loop alias existing tensors
            if k not in self.env and k in self.alias:
                self.env[k] = v
        return body, yielded

    def _carry_tensor_rebinds(self, saved, saved_alias, stmts, body, s) -> List[N.Stmt]:
        """A tensor name bound before an orchestration loop and rebound in its body to another tensor
        (``cur = nxt``) carries that tensor from one iteration to the next (pypto: an iter_arg of
        tensor type): the body ends with the assignment ``cur = nxt`` (ConvertToSSA makes ``cur`` a
        carried value, the orchestration a tensor handle it reassigns), and after the loop ``cur``
        names the last one.  Refused where it is written when the name stood for another tensor
        before the loop (it would rebind that tensor's name too)."""
        out = []
        for k, t in saved.items():
            if not isinstance(t, TensorType) or self.alias.get(k, k) == saved_alias.get(k, k):
                continue
            if any(isinstance(x, N.Assign) and x.targets[0].name == self.alias.get(k, k)
                   and self.tensor_level_value(x.value) for x in N.walk_stmts(body)):
                continue     # a computed tensor: ConvertTensorToTileOps refuses it here, naming the pl.at it needs
            now = self.alias.get(k, k)
            if saved_alias.get(k, k) == k and isinstance(self.env.get(k), TensorType):
                out.append(N.Assign([N.Var(k, type=t, loc=self.loc(s))], N.Var(now, type=self.env[k], loc=self.loc(s)),
                                    loc=self.loc(s)))
                self.alias.pop(k, None)
                continue
            where = [x for st in stmts for x in ast.walk(st) if isinstance(x, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(n, ast.Name) and n.id == k for tgt in (x.targets if isinstance(x, ast.Assign) else
                                                                  [x.target]) for n in ast.walk(tgt))]
            raise self.err(f"the tensor {k!r}, bound before this loop as another name of "
                           f"{saved_alias.get(k, k)!r}, is rebound in its body to {now!r}: carrying it from one "
                           f"iteration to the next would rebind {saved_alias.get(k, k)!r} as well; bind a tensor of "
                           f"its own to {k!r} before the loop", where[-1] if where else stmts[0])
        return out

    def bind_yielded(self, yielded, s) -> None:
        # after the loop, the names the yield was assigned to hold the carried values' last state
        for lhs, name in yielded:
            self.post.extend(self.bind_name(lhs, ast.copy_location(ast.Name(id=name, ctx=ast.Load()), s), s))

    def condition(self, test: ast.expr, node) -> N.Stmt:
        cond = self.expr(test)
        if not isinstance(cond.type, ScalarType):
            raise self.err(f"a loop condition must be a scalar, but got {cond.type}", test)
        return N.Condition(cond, loc=self.loc(test))

    def _condition_stmt(self, test: ast.expr) -> ast.stmt:
        st = ast.copy_location(ast.Expr(value=test), test)
        st._pl_condition = test
        return st

    def while_stmt(self, s: ast.While) -> N.Stmt:
        """``while test:``: names rebound in the body are carried; the test is evaluated before every
        iteration."""
        if s.orelse:
            raise self.err("`while ... else` is not supported: put the else code after the loop", s.orelse[0])
        body, yielded = self.loop_scope([self._condition_stmt(s.test)] + s.body, [], s)
        return N.While(body, loc=self.loc(s))

    def while_loop(self, s: ast.For, it: ast.Call) -> N.Stmt:
        """``for (a, b) in pl.while_(init_values=(a0, b0)):`` whose body starts with ``pl.cond(test)``
        and ends with ``a2, b2 = pl.yield_(...)``."""
        usage = "`for (x,) in pl.while_(init_values=(x0,)):` with `pl.cond(...)` as the first statement"
        target = s.target
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if not names or not all(isinstance(n, ast.Name) for n in names):
            raise self.err(f"pl.while_ binds its carried values to names: {usage}", target)
        carried = [n.id for n in names]
        if it.args or [k.arg for k in it.keywords] != ["init_values"]:
            raise self.err(f"pl.while_ takes only init_values=(...): {usage}", it)
        node = it.keywords[0].value
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
        if len(elts) != len(carried):
            raise self.err(f"init_values has {len(elts)} values for {len(carried)} loop-carried names", node)
        first = s.body[0]
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
                and getattr(self._resolve(first.value.func), "__pto_marker__", None) == "cond"):
            raise self.err(f"a pl.while_ body starts with its test, pl.cond(...): {usage}", first)
        call = first.value
        if len(call.args) != 1 or call.keywords:
            raise self.err("pl.cond takes the loop condition, one expression", call)
        for name, value in zip(carried, elts):
            self.pre.extend(self.bind_name(name, value, value))
        body, yielded = self.loop_scope([self._condition_stmt(call.args[0])] + s.body[1:], carried, s)
        self.bind_yielded(yielded, s)
        return N.While(body, loc=self.loc(s))

    def with_block(self, s: ast.With) -> N.Stmt:
        outer, self.escapes_to = self.escapes_to, "with"
        try:
            return self._with_block(s)
        finally:
            self.escapes_to = outer

    def _with_block(self, s: ast.With) -> N.Stmt:
        if len(s.items) != 1:
            raise self.err("one context manager per with statement", s)
        item = s.items[0]
        call = item.context_expr
        if not isinstance(call, ast.Call):
            raise self.err("expected `with pl.spmd(n):` or `with pl.at(...):`", call)
        marker = getattr(self._resolve(call.func), "__pto_marker__", None)
        if marker == "spmd":
            return self.spmd_block(s, self.parse_spmd(call, item.optional_vars))
        if marker == "at":     # pl.at, and pl.incore (parse_at reads its own arguments)
            spec = self.parse_at(call, item.optional_vars)
            return self.at_block(s, spec)
        if marker in ("scope", "manual_scope", "cluster"):
            if item.optional_vars is not None:
                raise self.err(f"`with pl.{marker}()` binds no name", item.optional_vars)
            if not self.in_orchestration:
                raise self.err(f"pl.{marker} is a runtime scope of the orchestration; it cannot be in kernel code", s)
            if marker == "cluster":
                if call.args or call.keywords:
                    raise self.err("pl.cluster() takes no arguments", call)
                return N.Scope("cluster", self.block(s.body), {}, loc=self.loc(s))
            mode = self.parse_scope_mode(call, marker)
            if mode == "manual" and self.manual_depth:
                raise self.err("a MANUAL scope cannot be nested in another MANUAL scope", s)
            self.manual_depth += mode == "manual"
            try:
                body = self.block(s.body)
            finally:
                self.manual_depth -= mode == "manual"
            return N.Scope("scope", body, {"mode": mode}, loc=self.loc(s))
        raise self.err("expected `with pl.at(...)`, `with pl.spmd(n)`, `with pl.scope()` or `with pl.cluster()`",
                       call)

    def spmd_block(self, s, spec) -> N.Stmt:
        """``with pl.spmd(n, ...) [as tid]:``: a body of kernel code (it reads the block index, or
        holds tile ops) is one SPMD kernel; a body that calls kernels dispatches them as n blocks."""
        if not self.in_orchestration:
            raise self.err("pl.spmd launches blocks of a task and belongs in the orchestration", s)
        only = s.body[0] if len(s.body) == 1 else None
        if isinstance(only, ast.With) and len(only.items) == 1 and isinstance(only.items[0].context_expr, ast.Call) \
                and getattr(self._resolve(only.items[0].context_expr.func), "__pto_marker__", None) == "at":
            # `with pl.spmd(n): with pl.at(level=CORE_GROUP, ...):` -- the pl.at block is the kernel
            at = self.parse_at(only.items[0].context_expr, only.items[0].optional_vars)
            merged = spec.at()
            merged.name_hint = at.name_hint or merged.name_hint
            merged.deps = merged.deps + at.deps
            merged.deps_loc = merged.deps_loc or at.deps_loc
            merged.name = merged.name or at.name
            merged.dumps, merged.no_dep = at.dumps, at.no_dep
            merged.split = at.split or merged.split
            return self._spmd_kernel(only, spec, merged)
        if self.outliner is not None and self._has_kernel_code(s.body):
            return self._spmd_kernel(s, spec, spec.at())
        body = self.block(s.body)
        inner = N.Scope("spmd", body, spec.scope_attrs(), loc=self.loc(s))
        at = spec.at()
        return self.task_scope(N.Scope("at", [inner], at.scope_attrs(), loc=self.loc(s)), at)

    def _spmd_kernel(self, s, spec, at: AtSpec, block_var: Optional[str] = None) -> N.Stmt:
        scope = self.outliner.outline(self, s, at, self._kernel_parser, block_var=block_var)
        call = scope.body
        scope.body = [N.Scope("spmd", call, spec.scope_attrs(), loc=self.loc(s))]
        return self.task_scope(scope, at)

    # ------------------------------------------------------------ expressions
    def _const(self, v, node):
        t = BOOL if isinstance(v, bool) else (INDEX if isinstance(v, int) else ScalarType(DType.FP32))
        return N.Const(v, type=t, loc=self.loc(node))

    def _resolve(self, node):
        """Statically resolve a name or attribute chain against the module globals."""
        if isinstance(node, ast.Name):
            if node.id in self.g:
                return self.g[node.id]
            return getattr(builtins, node.id, _MISSING)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            if base is _MISSING:
                return _MISSING
            return getattr(base, node.attr, _MISSING)
        return _MISSING

    def call(self, e: ast.Call) -> N.Expr:
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            return self.func_call(f.attr, e)
        target = self._resolve(f) if not (isinstance(f, ast.Name) and f.id in self.env) else _MISSING
        handled = self.call_hook(target, e)
        if handled is not None:
            return handled
        if getattr(target, "__pto_function__", None) is not None and target.__pto_name__ in self.sigs:
            return self.func_call(target.__pto_name__, e)
        op = getattr(target, "__pto_op__", None)
        if op is None:
            scalar = self.scalar_call(target, e)
            if scalar is not None:
                return scalar
            raise self.err(f"{ast.unparse(f)!r} is not a DSL op or program function", f)
        return self.op_call(op, e)

    def expr(self, e) -> N.Expr:
        loc = self.loc(e)
        if isinstance(e, ast.Constant):
            if isinstance(e.value, (bool, int, float)):
                return self._const(e.value, e)
            if e.value is None and self.in_orchestration:
                return self.none_value(e)         # the empty task id (tasks.py)
            raise self.err(f"unsupported constant {e.value!r}", e)
        if isinstance(e, ast.Name):
            if e.id in self.consts and e.id not in self.env:
                c = self.consts[e.id]
                return N.Const(c.value, type=c.type, loc=loc)
            if e.id in self.windows and e.id not in self.env:
                if e.id in self.stale_windows:
                    changed, where = self.stale_windows[e.id]
                    raise self.err(f"the window {e.id!r} reads {changed!r}, which is assigned again (line "
                                   f"{where.line}) after {e.id!r} was bound; bind the window again after it, or "
                                   f"pass it directly", e)
                w = self.windows[e.id]
                return N.OpCall(w.op, list(w.args), dict(w.attrs), type=w.type, loc=loc)
            if e.id in self.env:
                name = self.alias.get(e.id, e.id)
                return N.Var(name, type=self.env[e.id], loc=loc)
            if e.id in self.dyn:
                raise self.err(f"dynamic dimension {e.id!r} is not a dimension of any tensor parameter of "
                               f"{self.fn.name}", e)
            val = self._resolve(e)
            return self._static_value(val, e)
        if isinstance(e, ast.Attribute):
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                raise self.err("a program function must be called: self.name(...)", e)
            if isinstance(e.value, ast.Name) and e.value.id in self.env:
                base = self.expr(e.value)
                if e.attr == "shape" and isinstance(base.type, (TensorType, TileType)):
                    return self.shape_of(base, e)
                if e.attr == "dtype" and isinstance(base.type, (TensorType, TileType, ScalarType)):
                    return N.Const(base.type.dtype, loc=loc)
                raise self.err(f"{ast.unparse(e)!r}: {base.type} has no attribute {e.attr!r} here", e)
            return self._static_value(self._resolve(e), e)
        if isinstance(e, (ast.List, ast.Tuple)):
            return N.ListExpr([self.expr(x) for x in e.elts], loc=loc)
        if isinstance(e, ast.BinOp):
            o = BY_PYTHON.get(type(e.op))
            if o is None or o.compare:
                raise self.err(f"unsupported operator {type(e.op).__name__}", e)
            return self.scalar_op(o.name, self.expr(e.left), self.expr(e.right), e)
        if isinstance(e, ast.UnaryOp):
            return self.unary_op(e)
        if isinstance(e, ast.BoolOp):
            return self.bool_op(e)
        if isinstance(e, ast.Compare):
            if len(e.ops) != 1:
                raise self.err("chained comparisons are not supported", e)
            o = BY_PYTHON.get(type(e.ops[0]))
            if o is None or not o.compare:
                raise self.err(f"unsupported comparison {type(e.ops[0]).__name__}", e)
            return self.scalar_op(o.name, self.expr(e.left), self.expr(e.comparators[0]), e)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Subscript):
            static = self._static_subscript(e)
            if static is not _MISSING:
                return self._static_value(static, e)
            if isinstance(e.value, ast.Attribute) and e.value.attr == "shape":    # x.shape[1]
                dims = self.expr(e.value)
                idx = self.expr(e.slice)
                if isinstance(dims, N.ListExpr) and isinstance(idx, N.Const) and isinstance(idx.value, int):
                    if not -len(dims.items) <= idx.value < len(dims.items):
                        raise self.err(f"{ast.unparse(e)}: index {idx.value} is out of range", e)
                    return dims.items[idx.value]
            return self.subscript(e)
        raise self.err(f"unsupported expression {ast.unparse(e)!r} in a DSL function", e)

    def _static_subscript(self, e: ast.Subscript):
        """``SHAPE[0]`` / ``CFG["rows"]`` on a value from the enclosing scope, folded; _MISSING when
        the subscripted value is a local (a tensor or tile) or the index is not a constant."""
        base = e.value
        if isinstance(base, ast.Name) and base.id in self.env:
            return _MISSING
        if not isinstance(base, (ast.Name, ast.Attribute, ast.Subscript)):
            return _MISSING
        container = self._static_subscript(base) if isinstance(base, ast.Subscript) else self._resolve(base)
        if container is _MISSING or not isinstance(container, (list, tuple, dict)):
            return _MISSING
        if isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
            idx = N.Const(e.slice.value)
        else:
            idx = self.expr(e.slice) if not isinstance(e.slice, ast.Slice) else None
        if isinstance(idx, N.Const) and isinstance(idx.value, (int, str)) and not isinstance(idx.value, bool):
            try:
                return container[idx.value]
            except (IndexError, KeyError):
                raise self.err(f"{ast.unparse(e)}: index {idx.value!r} is out of range of {ast.unparse(base)}", e) from None
        return _MISSING

    def _static_value(self, val, node):
        """A value from the enclosing scope (closure, global, class attribute) as an IR constant:
        numbers, nested lists/tuples of them (a ListExpr), dtypes, memory spaces and enums."""
        if val is _MISSING:
            local = self.outliner.block_locals.get(node.id) if self.outliner and isinstance(node, ast.Name) else None
            if local is not None and local[2] is not None:      # OutlineIncoreScopes makes it a tensor
                return N.Var(node.id, type=local[2], loc=self.loc(node))
            if local is not None:
                raise self.err(f"{node.id!r} is a scalar computed inside the pl.at block of kernel {local[0]!r} "
                               f"(line {local[1]}) and lives only in that kernel (a kernel hands back tensors); to "
                               f"use it in later code, compute it in the orchestration, or compute both parts in "
                               f"one block", node)
            raise self.err(f"name {ast.unparse(node)!r} is not defined", node)
        if isinstance(val, bool) or isinstance(val, (int, float)):
            return self._const(val, node)
        if isinstance(val, np.generic) and isinstance(val.item(), (bool, int, float)):
            return self._const(val.item(), node)
        if isinstance(val, (list, tuple)):
            return N.ListExpr([self._static_value(v, node) for v in val], loc=self.loc(node))
        if isinstance(val, (DType, MemorySpace, PadValue)):
            return N.Const(val, loc=self.loc(node))
        if isinstance(val, DynamicDim):
            if val.name in self.env:              # NR = pl.dynamic("world_size"): the dim under its own name
                return N.Var(self.alias.get(val.name, val.name), type=self.env[val.name], loc=self.loc(node))
            raise self.err(f"dynamic dimension {val.name!r} is not a dimension of any tensor parameter of "
                           f"{self.fn.name}", node)
        return N.Const(val, loc=self.loc(node))

    def scalar_op(self, op, a, b, node):
        o = SCALAR_OPERATORS[f"scalar.{op}"]
        if isinstance(a.type, TileType) or isinstance(b.type, TileType):
            raise self.err(f"operator on tiles: use pl.{o.tile_op or op}(...) instead of a Python operator", node)
        if isinstance(a, N.Const) and isinstance(b, N.Const) and o.fold is not None and \
                isinstance(a.value, (int, float)) and isinstance(b.value, (int, float)):
            try:
                v = o.fold(a.value, b.value)
            except ZeroDivisionError:
                raise self.err("division by zero in a constant expression", node) from None
            except (ValueError, OverflowError) as exc:
                raise self.err(f"{ast.unparse(node)}: {exc}", node) from None
            if isinstance(v, bool) or o.compare:
                return N.Const(bool(v), type=BOOL, loc=self.loc(node))
            typed = self.typed_op(f"scalar.{op}", [a, b], {}, node).type   # the operands' dtype (pl.const ones too)
            return N.Const(v, type=typed, loc=self.loc(node))
        return self.typed_op(f"scalar.{op}", [a, b], {}, node)


def _tile_holds(want: TensorType, got: TileType) -> bool:
    """Whether a tile stands for the tensor an annotation names: same dtype, and the tensor's shape is
    the tile's written (N-D) shape, or its 2-D shape with leading axes of 1."""
    if want.dtype != got.dtype or not want.is_static:
        return False
    shape = tuple(want.shape)
    if got.nd is not None:
        return shape == tuple(got.nd)
    while len(shape) > 2 and shape[0] == 1:
        shape = shape[1:]
    return shape == tuple(got.shape)


def _names_read(node) -> Set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _window_names(e: N.Expr) -> Set[str]:
    """The variables an expression reads, with the dynamic dimensions of its type's shape."""
    out: Set[str] = set()
    for x in N.walk_expr(e):
        if isinstance(x, N.Var):
            out.add(x.name)
        t = getattr(x, "type", None)
        for d in getattr(t, "shape", ()) if isinstance(t, TensorType) else ():
            out.update(dim_vars(d))
    return out
