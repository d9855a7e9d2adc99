"""Host functions (level H) of distributed programs: the body of a
``@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)`` method or a ``@pl.jit.host``
function, read into a ``HostProgram`` -- the plain-Python statements of ``host_orch.py``'s
``entry(rt, tensors, world_size)`` (codegen/host_orch.py prints them).

What a host body may hold (the spec's distributed.md, section 1.1): window slots
(``b = pld.alloc_window_buffer(nbytes)`` / ``(shape, dtype=)``, at the top level: the slots of
one host function form one domain, allocated when the call starts), views
(``w = pld.window(b, shape, dtype=)``), ``pld.world_size()``, ``pl.range`` loops and ``if`` on
host scalars, ``x[r]`` (drops dim 0), calls of chip (D) functions with ``device=r``, host
collectives.  Anything else is a located CompileError.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from math import prod
from typing import Callable, Dict, List, Optional, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.comm import ReduceOp
from ..ir.host import HostProgram
from ..ir.types import DType, ScalarType, TensorType
from .annotations import annot_to_type, evaluated as annotation_of
from .binder import bind_call, header_args, parameter
from .signatures import arg_problem
from .dist_front import P3_NAMES, is_window, user_params
from .source import Source, eval_static
from .types import DynamicDim


class _WorldSize(ast.NodeTransformer):
    """``pld.world_size()`` in a static host value (a slot's byte count, a window shape): the W of the
    compile's DistributedConfig."""

    def __init__(self, reader):
        self.reader = reader

    def visit_Call(self, node):
        if self.reader._is_pld(node, "pld.world_size") and not node.args and not node.keywords:
            return ast.copy_location(ast.Constant(self.reader.world_size), node)
        return self.generic_visit(node)


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
_CMPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


@dataclass
class Value:
    text: str
    kind: str                      # "scalar" | "tensor" | "window" | "slot"
    shape: Tuple = ()
    dtype: Optional[DType] = None
    nbytes: int = 0                # slot


@dataclass
class ChipCall:
    """What the host reader needs to know about a callee: its name and parsed header.  A SubWorker
    (``level=pl.Level.HOST, role=pl.Role.SubWorker``: plain Python run on the host) has no parsed
    body: ``fn`` is its header alone and ``sub`` is True."""
    name: str
    fn: N.Function                 # kind Orchestration (a chip function) or InCore (a kernel: an error)
    sub: bool = False


class HostReader:
    """Reads one host function.  ``resolve_call(func_node, call_node) -> ChipCall | None`` finds chip
    functions (``call_node``: the call, whose argument values ``expr`` gives: a ``@pl.jit`` chip
    function with bare ``pl.Tensor`` parameters is specialized from them)."""

    def __init__(self, item: ast.FunctionDef, src: Source, g: dict, method: bool,
                 resolve_call: Callable[[ast.expr], Optional[ChipCall]], collective_hook=None,
                 world_size: Optional[int] = None, annotations: Optional[dict] = None):
        self.item, self.src, self.g, self.method = item, src, g, method
        # the annotations Python evaluated when the function was made (names only they use, e.g. a
        # factory's constant, are in no closure); the source is evaluated where they are missing
        self.annotations = annotations or {}
        self.world_size = world_size   # W of the compile's DistributedConfig (sizes private signals)
        self.resolve_call = resolve_call
        self.collective_hook = collective_hook
        self.env: Dict[str, Value] = {}
        self.lines: List[str] = []
        self.slots: List[Tuple[str, int]] = []
        self.chips: List[str] = []
        self.subs: List[str] = []        # SubWorkers called, in first-call order
        self.collectives: List[Tuple[str, str, dict]] = []
        self.depth = 1

    def err(self, msg: str, node) -> CompileError:
        return CompileError(msg, self.src.loc(node))

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    # ------------------------------------------------------------ signature
    def read(self) -> HostProgram:
        params, names, ws_name = [], [], None
        seen_scalar = None
        for a, _ in header_args(self.item, self.src, self.g, self.method):
            if a.annotation is None:
                raise self.err(f"parameter {a.arg!r} of host function {self.item.name} needs a type annotation", a)
            annot = annotation_of(a, self.src, self.g, self.annotations)
            ty, direction = annot_to_type(annot, self.src.loc(a.annotation))
            if isinstance(ty, TensorType):
                if seen_scalar is not None:
                    raise self.err(f"tensor parameter {a.arg!r} comes after scalar parameter {seen_scalar!r}; in a "
                                   f"distributed program tensors come before scalars", a)
                if ty.window:
                    raise self.err(f"host parameter {a.arg!r}: a host function takes host tensors; windows are made "
                                   f"in its body (pld.alloc_window_buffer, pld.window)", a.annotation)
                params.append({"name": a.arg, "kind": "tensor", "dtype": ty.dtype.name, "shape": list(ty.shape),
                               "direction": direction.value})
                self.env[a.arg] = Value(a.arg, "tensor", tuple(ty.shape), ty.dtype)
                if ty.shape and isinstance(ty.shape[0], str):
                    ws_name = ws_name or ty.shape[0]
            elif isinstance(ty, ScalarType):
                seen_scalar = seen_scalar or a.arg
                params.append({"name": a.arg, "kind": "scalar", "dtype": ty.dtype.name})
                self.env[a.arg] = Value(a.arg, "scalar", dtype=ty.dtype)
            else:
                raise self.err(f"host parameter {a.arg!r} must be a tensor or a scalar, got {ty}", a.annotation)
            names.append(a.arg)
        tensors = [p["name"] for p in params if p["kind"] == "tensor"]
        scalars = [p["name"] for p in params if p["kind"] == "scalar"]
        if tensors:
            self.emit(f"{', '.join(tensors)}{',' if len(tensors) == 1 else ''} = tensors[:{len(tensors)}]")
        for k, s in enumerate(scalars):
            self.emit(f"{s} = tensors[{len(tensors) + k}]")
        self._collect_slots(self.item.body)
        if self.slots:
            names_ = [n for n, _ in self.slots]
            self.emit(f"{', '.join(names_)}{',' if len(names_) == 1 else ''} = rt.alloc_domain("
                      f"{self.item.name!r})")
        self.body(self.item.body)
        if not any(line.strip() and not line.strip().startswith("#") for line in self.lines):
            self.emit("pass")
        return HostProgram(self.item.name, params, self.slots, self.lines, self.chips, self.collectives, ws_name,
                           self.subs)

    # ------------------------------------------------------------ window slots
    def _is_pld(self, node, name: str) -> bool:
        if not isinstance(node, ast.Call):
            return False
        try:
            target = eval_static(node.func, self.src, self.g, "a name")
        except CompileError:
            return False
        return getattr(target, "__pld_name__", None) == name

    def _collect_slots(self, body) -> None:
        for s in body:
            if isinstance(s, ast.Assign) and self._is_pld(s.value, "pld.alloc_window_buffer"):
                if len(s.targets) != 1 or not isinstance(s.targets[0], ast.Name):
                    raise self.err("pld.alloc_window_buffer names its slot: use it as `buf = "
                                   "pld.alloc_window_buffer(...)`", s)
                name = s.targets[0].id
                if any(n == name for n, _ in self.slots):
                    raise self.err(f"window slot {name!r} is allocated twice", s)
                nbytes = self._slot_bytes(s.value)
                self.slots.append((name, nbytes))
                self.env[name] = Value(name, "slot", nbytes=nbytes)
        for node in ast.walk(ast.Module(body=[s for s in body if not isinstance(s, ast.Assign)], type_ignores=[])):
            if self._is_pld(node, "pld.alloc_window_buffer"):
                raise self.err("pld.alloc_window_buffer may only be the right side of a plain assignment at the top "
                               "level of the host function (its slots form one domain, allocated when the call "
                               "starts)", node)
        for s in body:
            if isinstance(s, ast.Assign) and not self._is_pld(s.value, "pld.alloc_window_buffer"):
                for node in ast.walk(s.value):
                    if self._is_pld(node, "pld.alloc_window_buffer"):
                        raise self.err("pld.alloc_window_buffer may only be the right side of a plain assignment",
                                       node)

    def _static(self, node, what):
        if self.world_size is not None:               # pld.world_size() is the compile's W in static sizes
            node = _WorldSize(self).visit(copy.deepcopy(node))
        return eval_static(node, self.src, self.g, what)

    def _dtype_kw(self, call: ast.Call, required: bool):
        kw = {k.arg: k.value for k in call.keywords}
        if "dtype" not in kw:
            if required:
                raise self.err(f"{ast.unparse(call.func)} needs dtype= (e.g. dtype=pl.FP32)", call)
            return None
        d = self._static(kw["dtype"], "dtype")
        if not isinstance(d, DType):
            raise self.err(f"dtype= must be a dtype such as pl.FP32, got {d!r}", kw["dtype"])
        return d

    def _shape(self, node) -> Tuple[int, ...]:
        v = self._static(node, "a window shape")
        v = [v] if isinstance(v, int) else v
        if not isinstance(v, (list, tuple)) or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0
                                                       for d in v):
            raise self.err(f"a window shape is a list of positive static ints, got {v!r}", node)
        return tuple(v)

    def _slot_bytes(self, call: ast.Call) -> int:
        if len(call.args) != 1 or any(k.arg != "dtype" for k in call.keywords):
            raise self.err("pld.alloc_window_buffer takes nbytes, or a shape and dtype=", call)
        d = self._dtype_kw(call, required=False)
        if d is None:
            n = self._static(call.args[0], "a byte count")
            if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
                raise self.err(f"pld.alloc_window_buffer(nbytes) takes a positive number of bytes, got {n!r}",
                               call.args[0])
            return n
        return prod(self._shape(call.args[0])) * d.size

    # ------------------------------------------------------------ statements
    def body(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return                                   # a docstring
        if isinstance(s, ast.Pass):
            return
        if isinstance(s, ast.Assign):
            self.assign(s)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:     # x: pl.Tensor[...] = self.chip(...)
            self.assign(ast.copy_location(ast.Assign([s.target], s.value), s))
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            self.call(s.value)
        elif isinstance(s, ast.For):
            self.for_(s)
        elif isinstance(s, ast.If):
            cond = self.expr(s.test)
            if cond.kind != "scalar":
                raise self.err(f"an if condition in host code is a host scalar, got a {cond.kind}", s.test)
            self.emit(f"if {cond.text}:")
            self.nested(s.body)
            if s.orelse:
                self.emit("else:")
                self.nested(s.orelse)
        elif isinstance(s, ast.Return):
            if s.value is not None:
                vals = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
                for v in vals:
                    if isinstance(v, ast.Call):
                        self.call(v)
                    elif not (isinstance(v, ast.Name) and self.env.get(v.id, Value("", "")).kind == "tensor"):
                        raise self.err("a host function returns its host tensor parameters (or nothing)", v)
            self.emit("return None")
        else:
            raise self.err(f"{type(s).__name__} is not supported in a host function", s)

    def nested(self, body) -> None:
        self.depth += 1
        n = len(self.lines)
        self.body(body)
        if len(self.lines) == n:
            self.emit("pass")
        self.depth -= 1

    def assign(self, s: ast.Assign) -> None:
        if len(s.targets) != 1 or not isinstance(s.targets[0], ast.Name):
            raise self.err("host code assigns one name at a time", s)
        name = s.targets[0].id
        v = s.value
        if self._is_pld(v, "pld.alloc_window_buffer"):
            return                                     # allocated with the domain at the start
        if name in self.env and self.env[name].kind in ("slot", "tensor") and name != getattr(v, "id", None):
            raise self.err(f"{name!r} is a {self.env[name].kind} of the host function; assign another name", s)
        if self._is_pld(v, "pld.window"):
            self.env[name] = self.window(v, name)
            return
        if isinstance(v, ast.Call) and self._op_name(v.func) == "create_tensor":
            self.env[name] = self.host_tensor(v, name)
            return
        if isinstance(v, ast.Call) and self.resolve_call(v.func, v) is not None:
            outs = self.call(v)                        # out = self.chip(a, b, out): the tensors it writes
            if len(outs) != 1:
                raise self.err(f"{ast.unparse(v.func)} writes {len(outs)} tensors; a call's result names the one "
                               f"pl.Out / pl.InOut tensor it writes (call it as a statement otherwise)", v)
            if name != outs[0].text:
                self.emit(f"{name} = {outs[0].text}")
            self.env[name] = Value(name, "tensor", outs[0].shape, outs[0].dtype)
            return
        if isinstance(v, ast.Call) and self.collective_hook is not None:
            full = self._op_name(v.func)
            res = self.collective_hook(self, full, v) if full is not None else None
            if res is not None:                        # data = pld.tensor.allreduce(data): the window it returns
                if name != res.text:
                    self.emit(f"{name} = {res.text}")
                self.env[name] = Value(name, "window", res.shape, res.dtype)
                return
        val = self.expr(v)
        if val.kind == "scalar":
            self.emit(f"{name} = {val.text}")
            self.env[name] = Value(name, "scalar", dtype=val.dtype)
        elif val.kind in ("tensor", "window"):
            self.emit(f"{name} = {val.text}")
            self.env[name] = Value(name, val.kind, val.shape, val.dtype)
        else:
            raise self.err(f"a {val.kind} cannot be assigned here", v)

    def window(self, call: ast.Call, name: str) -> Value:
        if len(call.args) != 2:
            raise self.err("pld.window(buf, shape, *, dtype) takes a slot and a shape", call)
        buf = call.args[0]
        if not (isinstance(buf, ast.Name) and self.env.get(buf.id, Value("", "")).kind == "slot"):
            raise self.err("the first argument of pld.window is a slot from pld.alloc_window_buffer", buf)
        shape = self._shape(call.args[1])
        dtype = self._dtype_kw(call, required=True)
        slot = self.env[buf.id]
        need = prod(shape) * dtype.size
        if need > slot.nbytes:
            raise self.err(f"pld.window {list(shape)} {dtype.name} needs {need} bytes, but slot {buf.id!r} holds "
                           f"{slot.nbytes}", call)
        self.emit(f"{name} = rt.window({buf.id}, {list(shape)!r}, {dtype.name!r})")
        return Value(name, "window", shape, dtype)

    def host_tensor(self, call: ast.Call, name: str) -> Value:
        """``t = pl.create_tensor(shape, dtype=)`` in host code: a host intermediate (zero-filled,
        for the host call), which chip and SubWorker calls read and write."""
        if len(call.args) != 1:
            raise self.err("pl.create_tensor(shape, *, dtype) in host code takes a static shape", call)
        shape = self._shape(call.args[0])
        dtype = self._dtype_kw(call, required=True)
        self.emit(f"{name} = rt.host_tensor({list(shape)!r}, {dtype.name!r})")
        return Value(name, "tensor", shape, dtype)

    def for_(self, s: ast.For) -> None:
        if not isinstance(s.target, ast.Name) or s.orelse:
            raise self.err("a host loop is `for r in pl.range(...)` over one name", s)
        it = s.iter
        ok = isinstance(it, ast.Call) and (getattr(self._maybe(it.func), "__pto_marker__", None) == "range"
                                           or self._maybe(it.func) is range)
        if not ok:
            raise self.err("a host loop iterates pl.range(...) (e.g. pl.range(pld.world_size()))", it)
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.err("pl.range in host code takes (stop), (start, stop) or (start, stop, step)", it)
        args = [self.expr(a) for a in it.args]
        for a, node in zip(args, it.args):
            if a.kind != "scalar":
                raise self.err(f"pl.range bounds are host scalars, got a {a.kind}", node)
        self.emit(f"for {s.target.id} in range({', '.join(a.text for a in args)}):")
        self.env[s.target.id] = Value(s.target.id, "scalar", dtype=DType.INDEX)
        self.nested(s.body)

    def _maybe(self, node):
        try:
            return eval_static(node, self.src, self.g, "a name")
        except CompileError:
            return None

    def _op_name(self, node) -> Optional[str]:
        """The pld / op-table name a called expression stands for (``pld.all_reduce``, ``tensor.allreduce``)."""
        target = self._maybe(node)
        return getattr(target, "__pld_name__", None) or getattr(target, "__pto_op__", None)

    # ------------------------------------------------------------ calls
    def call(self, c: ast.Call) -> List[Value]:
        """A call statement; a chip or SubWorker call returns the tensors it writes (its
        pl.Out / pl.InOut arguments)."""
        chip = self.resolve_call(c.func, c)
        if chip is not None:
            return self.dispatch(chip, c)
        full = self._op_name(c.func)
        if full is not None and self.collective_hook is not None:
            if self.collective_hook(self, full, c) is not None:
                return []
        if full in P3_NAMES:
            raise self.err(f"{full} is not supported yet", c.func)
        if full is not None:
            raise self.err(f"{full if full.startswith('pld') else 'pld.' + full} is not host code: it may only be "
                           f"used in kernel code", c.func)
        raise self.err(f"{ast.unparse(c.func)!r} is not a chip function or a host operation", c.func)

    def dispatch(self, chip: ChipCall, c: ast.Call) -> List[Value]:
        fn = chip.fn
        if chip.sub:
            return self.sub_call(chip, c)
        if fn.kind is not N.FunctionType.Orchestration:
            raise self.err(f"{chip.name} is a kernel: a host function calls chip (per-device) functions "
                           f"(type=pl.FunctionType.Orchestration / @pl.jit), which call kernels", c.func)
        device = None
        kw = {k.arg: k.value for k in c.keywords}
        if "device" in kw:
            device = self.expr(kw["device"])
            if device.kind != "scalar":
                raise self.err(f"device= is a rank number, got a {device.kind}", kw["device"])
        params = user_params(fn)
        bound = bind_call(chip.name, [parameter(p.name) for p in params], c, self.err, skip=("device",))
        tensors, scalars, outs = [], [], []
        for p in params:
            node = bound[p.name]
            v = self.expr(node)
            if isinstance(p.type, TensorType) and p.direction in (N.Direction.OUT, N.Direction.INOUT):
                outs.append(v)
            if is_window(p.type):
                if v.kind != "window":
                    raise self.err(f"argument {p.name!r} of {chip.name} is a pld.DistributedTensor: pass a window "
                                   f"(pld.window(...)), not a {v.kind}", node)
                self._check_shape(p, v, chip, node)
                tensors.append(v.text)
            elif isinstance(p.type, TensorType):
                if v.kind != "tensor":
                    raise self.err(f"argument {p.name!r} of {chip.name} is a host tensor, got a {v.kind}", node)
                self._check_shape(p, v, chip, node)
                tensors.append(v.text)
            else:
                if v.kind != "scalar":
                    raise self.err(f"argument {p.name!r} of {chip.name} is a scalar, got a {v.kind}", node)
                scalars.append(v.text)
        if device is None and any(is_window(p.type) for p in params):
            raise self.err(f"{chip.name} takes windows, so its call needs device=r (a call without device= uses no "
                           f"windows and goes round-robin over the ranks)", c)
        if chip.name not in self.chips:
            self.chips.append(chip.name)
        self.emit(f"rt.dispatch({device.text if device is not None else 'None'}, {chip.name!r}, "
                  f"[{', '.join(tensors)}], [{', '.join(scalars)}])")
        return outs

    def sub_call(self, sub: ChipCall, c: ast.Call) -> List[Value]:
        """``self.verify(f)``: run SubWorker ``verify`` on the host tensors (after the dispatches
        writing them)."""
        params = sub.fn.params
        bound = bind_call(sub.name, [parameter(p.name) for p in params], c, self.err)
        args, outs = [], []
        for p in params:
            node = bound[p.name]
            v = self.expr(node)
            want = "tensor" if isinstance(p.type, TensorType) else "scalar"
            if v.kind != want:
                raise self.err(f"argument {p.name!r} of SubWorker {sub.name} is a host {want}, got a {v.kind}", node)
            if want == "tensor":
                self._check_shape(p, v, sub, node)
                if p.direction in (N.Direction.OUT, N.Direction.INOUT):
                    outs.append(v)
            args.append(v.text)
        if sub.name not in self.subs:
            self.subs.append(sub.name)
        self.emit(f"rt.sub({sub.name!r}, [{', '.join(args)}])")
        return outs

    def _check_shape(self, p, v: Value, chip: ChipCall, node) -> None:
        got = TensorType(tuple(v.shape), v.dtype if v.dtype is not None else p.type.dtype, window=p.type.window)
        problem = arg_problem(got, p.type, p.name, chip.name)
        if problem:
            raise self.err(problem, node)

    # ------------------------------------------------------------ expressions
    def expr(self, e) -> Value:
        if isinstance(e, ast.Constant) and isinstance(e.value, (bool, int, float)):
            return Value(repr(e.value), "scalar")
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return self.env[e.id]
            return self._static_scalar(e)
        if isinstance(e, ast.Call):
            if self._is_pld(e, "pld.world_size"):
                if e.args or e.keywords:
                    raise self.err("pld.world_size() takes no arguments", e)
                return Value("world_size", "scalar", dtype=DType.INT64)
            raise self.err(f"{ast.unparse(e.func)!r} cannot be used as a value in host code", e)
        if isinstance(e, ast.BinOp) and type(e.op) in _BINOPS:
            a, b = self.expr(e.left), self.expr(e.right)
            for v, node in ((a, e.left), (b, e.right)):
                if v.kind != "scalar":
                    raise self.err(f"host arithmetic is on scalars, got a {v.kind}", node)
            return Value(f"({a.text} {_BINOPS[type(e.op)]} {b.text})", "scalar")
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.Not)):
            a = self.expr(e.operand)
            return Value(f"({'-' if isinstance(e.op, ast.USub) else 'not '}{a.text})", "scalar")
        if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _CMPS:
            a, b = self.expr(e.left), self.expr(e.comparators[0])
            return Value(f"({a.text} {_CMPS[type(e.ops[0])]} {b.text})", "scalar")
        if isinstance(e, ast.BoolOp):
            parts = [self.expr(v).text for v in e.values]
            return Value("(" + (" and " if isinstance(e.op, ast.And) else " or ").join(parts) + ")", "scalar")
        if isinstance(e, ast.Subscript):
            base = self.expr(e.value)
            if base.kind != "tensor":
                raise self.err(f"x[r] in host code indexes a host tensor's first dimension, not a {base.kind}", e)
            nodes = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]     # x[r] or x[k, r]
            idx = [self.expr(n) for n in nodes]
            if any(i.kind != "scalar" for i in idx) or len(base.shape) < len(idx) + 1:
                raise self.err("x[r] takes one rank index and drops dim 0 of a tensor of 2 or more dimensions "
                               "(x[k, r]: one index per leading dimension, each dropping it)", e)
            return Value(base.text + "".join(f"[{i.text}]" for i in idx), "tensor", base.shape[len(idx):], base.dtype)
        return self._static_scalar(e)

    def _static_scalar(self, e) -> Value:
        v = self._maybe(e)
        if isinstance(v, DynamicDim):
            return Value("world_size", "scalar", dtype=DType.INT64)
        if isinstance(v, (bool, int, float)) and not isinstance(v, ReduceOp):
            return Value(repr(v), "scalar")
        raise self.err(f"{ast.unparse(e)!r} is not a host value (a parameter, a loop variable, a window, a "
                       f"constant or pld.world_size())", e)
