"""Front end of ``@pl.jit``: a specialized Python function -> ``ir.Program``.

The entry function becomes the Orchestration function.  Each
``with pl.at(level=pl.Level.CORE_GROUP, name_hint=..., deps=[...]) as tid:`` block
is outlined into an InCore kernel ``<fn>_incore_<n>`` (or ``name_hint``): the
block's free variables become the kernel's parameters (tensors: IN when only
loaded, OUT when only stored, INOUT when both; scalars: by-value scalars), and
the orchestration submits the kernel in its place.  Helpers decorated
``@pl.jit.incore`` / ``@pl.jit.inline`` are looked up by name in the caller's
scope and specialized from the argument types at each call site.

Inside kernel code, element-wise ops on whole tensors (``pl.add(a, b)``,
``c[:] = pl.exp(a)``) are lowered to load / tile op / store when the tensor fits
in one tile.

Parsing reuses ``ptokit.language.parser.FunctionParser`` (subclassed here).
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import DType, MemorySpace, ScalarType, TensorType, TileType, dim_str, dim_vars, fmt_shape
from ..language.parser import (FunctionParser, Signature, _eval_static, _return_types, _returned_params,
                               _Source)
from ..language.types import (DirAnnot, DynamicDim, Level, Scalar, ScalarAnnot, Tensor, TensorAnnot, Tile,
                              TileAnnot)
from .helpers import JitHelper, function_scope
from .specialize import ArgSpec

# the largest tensor a tensor-level op loads as one tile (bytes)
MAX_TENSOR_TILE_BYTES = 64 * 1024

_EW_BINARY = {"add", "sub", "mul", "div", "maximum", "minimum"}
_EW_SCALAR = {"adds", "subs", "muls", "divs", "maxs", "mins"}
_EW_UNARY = {"exp", "log", "sqrt", "rsqrt", "recip", "neg", "abs", "relu"}
_ORCH_OPS = {"create_tensor"}


def dyn_dims_of(scope: dict) -> Dict[str, DynamicDim]:
    return {v.name: v for v in scope.values() if isinstance(v, DynamicDim)}


class ProgramBuilder:
    """Builds one specialized program; shared by every parser of the entry and its helpers."""

    def __init__(self, fn, specs: List[ArgSpec]):
        self.fn = fn
        self.name = fn.__name__
        self.specs = specs
        self.functions: Dict[str, N.Function] = {}
        self.sigs: Dict[str, Signature] = {}
        self.kernel_count = 0
        self.helper_names: Dict[tuple, str] = {}
        self.in_progress: Set[int] = set()
        self.used_names: Set[str] = {self.name}

    def unique(self, base: str) -> str:
        name, k = base, 1
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        return name

    # ------------------------------------------------------------ entry
    def build(self) -> N.Program:
        src = _Source(self.fn)
        item = src.tree.body[0]
        if not isinstance(item, ast.FunctionDef):
            raise CompileError("@pl.jit decorates a plain function", src.loc(item))
        scope = function_scope(self.fn)
        g = dict(scope)
        for s in self.specs:
            if s.kind == "const":
                g[s.name] = s.value
        dyn = dyn_dims_of(scope)
        args = item.args.args
        params = []
        for a, s in zip(args, self.specs):
            if s.kind == "tensor":
                ty = TensorType(tuple(dim_str(d) for d in s.shape), s.dtype)
                params.append(N.Param(s.name, ty, N.Direction(s.direction), src.loc(a)))
            elif s.kind == "scalar":
                params.append(N.Param(s.name, ScalarType(s.dtype), N.Direction.IN, src.loc(a)))
        orch = N.Function(self.name, N.FunctionType.Orchestration, params, [], [], src.loc(item))
        parser = JitParser(self, src, g, dyn, in_kernel=False)
        orch.body = parser.parse_body(item, orch)
        orch.return_types = _return_types(orch.body)
        if not any(f.kind is N.FunctionType.InCore for f in self.functions.values()):
            raise CompileError(f"@pl.jit function {self.name} submits no kernel: put its tile operations in "
                               f"`with pl.at(level=pl.Level.CORE_GROUP):` blocks or call a @pl.jit.incore helper",
                               src.loc(item))
        functions = dict(self.functions)
        functions[self.name] = orch
        return N.Program(self.name, functions, src.file, tuple(sorted(dyn)))

    # ------------------------------------------------------------ pl.at outlining
    def outline(self, parser: "JitParser", s: ast.With, call: ast.Call, as_name: Optional[str]) -> N.Stmt:
        attrs: Dict[str, object] = {}
        level = Level.CORE_GROUP
        name_hint = None
        for kw in call.keywords:
            if kw.arg == "deps":
                if not isinstance(kw.value, (ast.List, ast.Tuple)) or not all(
                        isinstance(d, ast.Name) for d in kw.value.elts):
                    raise parser.err("deps= takes a list of task names bound with `as`", kw.value)
                attrs["deps"] = [d.id for d in kw.value.elts]
            elif kw.arg == "level":
                level = _eval_static(kw.value, parser.src, parser.g, "level")
            elif kw.arg == "name_hint":
                name_hint = _eval_static(kw.value, parser.src, parser.g, "name_hint")
                if not isinstance(name_hint, str) or not name_hint.isidentifier():
                    raise parser.err(f"name_hint must be an identifier string, got {name_hint!r}", kw.value)
            else:
                raise parser.err(f"pl.at has no parameter {kw.arg!r} (parameters: level, name_hint, deps)", kw)
        if call.args:
            if len(call.args) > 1:
                raise parser.err("pl.at takes the level, then keywords name_hint= and deps=", call)
            level = _eval_static(call.args[0], parser.src, parser.g, "level")
        if level != Level.CORE_GROUP:
            raise parser.err(f"pl.at(level={level!r}) is not supported yet; use level=pl.Level.CORE_GROUP", call)
        if not s.body or all(isinstance(b, ast.Pass) for b in s.body):
            raise parser.err("a pl.at block needs a body (the kernel's code)", s)
        if name_hint is not None:
            if name_hint in self.used_names:
                raise parser.err(f"name_hint {name_hint!r} is already the name of another function of this program",
                                 call)
            kname = name_hint
            self.used_names.add(kname)
        else:
            kname = self.unique(f"{self.name}_incore_{self.kernel_count}")
        self.kernel_count += 1

        # free variables of the block, in source order: tensors first, then scalars
        loads = sorted((n for b in s.body for n in ast.walk(b) if isinstance(n, ast.Name)
                        and isinstance(n.ctx, ast.Load) and n.id in parser.env),
                       key=lambda n: (n.lineno, n.col_offset))
        tensors: Dict[str, str] = {}     # outer (alias-resolved) name -> kernel param name
        scalars: Dict[str, str] = {}
        local_alias: Dict[str, str] = {}
        types: Dict[str, object] = {}
        for n in loads:
            t = parser.env[n.id]
            outer = parser.alias.get(n.id, n.id)
            if isinstance(t, TensorType):
                tensors.setdefault(outer, outer)
                local_alias[n.id] = outer
                types[outer] = t
            elif isinstance(t, ScalarType):
                scalars.setdefault(n.id, n.id)
                types[n.id] = t
            else:
                raise parser.err(f"{n.id!r} is a {t} defined outside this pl.at block; tiles live inside one "
                                 f"kernel, so create it inside the block", n)
        # entry parameters first, in their order; then other tensors in order of appearance
        order = [p.name for p in parser.fn.params] if parser.fn is not None else []
        tensors = dict(sorted(tensors.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order),)))
        dims = {v for o in tensors for d in types[o].shape for v in dim_vars(d)}
        scalar_names = [x for x in scalars if x not in dims]
        params = [N.Param(o, types[o], N.Direction.IN, parser.loc(s)) for o in tensors]
        params += [N.Param(x, types[x], N.Direction.IN, parser.loc(s)) for x in scalar_names]
        kfn = N.Function(kname, N.FunctionType.InCore, params, [], [], parser.loc(s))
        kfn.attrs["jit_outlined"] = True
        inner = JitParser(self, parser.src, parser.g, parser.dyn, in_kernel=True)
        inner.fn = kfn
        for p in params:
            inner.env[p.name] = p.type
            if isinstance(p.type, TensorType):
                for d in p.type.shape:
                    for v in dim_vars(d):
                        inner.env.setdefault(v, ScalarType(DType.INDEX))
        for local, outer in local_alias.items():
            inner.env[local] = types[outer]
            if local != outer:
                inner.alias[local] = outer
        body = inner.block(s.body)
        reads, writes = tensor_uses(body, self.functions)
        outs = []
        for i, p in enumerate(params):
            if isinstance(p.type, TensorType):
                if p.name in writes:
                    p.direction = N.Direction.INOUT if p.name in reads else N.Direction.OUT
                    outs.append(i)
        if outs:
            body.append(N.Return([N.Var(params[i].name, type=params[i].type) for i in outs], loc=parser.loc(s)))
        kfn.body = body
        kfn.return_types = [params[i].type for i in outs]
        self.functions[kname] = kfn
        self.sigs[kname] = Signature(kfn, outs)
        args = [N.Var(o, type=types[o], loc=parser.loc(s)) for o in tensors]
        args += [N.Var(x, type=types[x], loc=parser.loc(s)) for x in scalar_names]
        fcall = N.FuncCall(kname, args, loc=parser.loc(s))
        if as_name is not None:
            attrs["name"] = as_name
        return N.Scope("at", [N.ExprStmt(fcall, loc=parser.loc(s))], attrs, loc=parser.loc(s))

    # ------------------------------------------------------------ helpers
    def helper_call(self, parser: "JitParser", helper: JitHelper, e: ast.Call) -> N.Expr:
        kind = helper.kind
        if kind is N.FunctionType.InCore and parser.in_kernel:
            raise parser.err(f"{helper.__name__} is a @pl.jit.incore helper (a kernel of its own): call it from "
                             f"the @pl.jit body outside pl.at blocks; use @pl.jit.inline for code spliced into "
                             f"a kernel", e)
        if e.keywords:
            raise parser.err(f"{helper.__name__} is called with positional arguments only", e)
        args = [parser.expr(a) for a in e.args]
        hsrc = helper.source()
        item = hsrc.tree.body[0]
        if not isinstance(item, ast.FunctionDef):
            raise CompileError(f"@pl.jit.{kind.name.lower()} decorates a plain function", hsrc.loc(item))
        pos = item.args.args
        if len(args) != len(pos):
            raise parser.err(f"{helper.__name__} takes {len(pos)} arguments, but {len(args)} were given", e)
        scope = helper.scope()
        params: List[N.Param] = []
        folded: Dict[str, object] = {}
        call_args: List[N.Expr] = []
        declared_dir: Set[str] = set()
        key: list = [id(helper)]
        for a, node, p in zip(args, e.args, pos):
            annot = _eval_static(p.annotation, hsrc, scope, "annotation") if p.annotation is not None else None
            direction = N.Direction.IN
            if isinstance(annot, DirAnnot):
                direction = N.Direction(annot.direction)
                annot = annot.inner
                declared_dir.add(p.arg)
            what = f"argument {p.arg!r} of {helper.__name__}"
            if annot is Tensor or isinstance(annot, TensorAnnot):
                if not isinstance(a.type, TensorType):
                    raise parser.err(f"{what} must be a tensor, but got {a.type}", node)
                if isinstance(annot, TensorAnnot):
                    from ..language.parser import annot_to_type
                    want, _ = annot_to_type(annot, hsrc.loc(p))
                    if want.dtype != a.type.dtype or len(want.shape) != len(a.type.shape) or any(
                            isinstance(x, int) and isinstance(y, int) and x != y
                            for x, y in zip(want.shape, a.type.shape)):
                        raise parser.err(f"{what} expects {want}, but got {a.type}", node)
                ty = a.type
            elif annot is Tile or isinstance(annot, TileAnnot):
                if not isinstance(a.type, TileType):
                    raise parser.err(f"{what} must be a tile, but got {a.type}", node)
                ty = a.type
            elif annot is Scalar or isinstance(annot, ScalarAnnot):
                if not isinstance(a.type, ScalarType):
                    raise parser.err(f"{what} must be a scalar, but got {a.type}", node)
                ty = ScalarType(annot.dtype) if isinstance(annot, ScalarAnnot) and annot.dtype else a.type
            elif annot is None or annot in (int, float, bool) or isinstance(annot, DType):
                if isinstance(a, N.Const) and isinstance(a.value, (int, float, bool)):
                    v = a.value
                    if isinstance(annot, DType):
                        v = float(v) if annot.is_float else int(v)
                    elif annot in (int, float, bool):
                        v = annot(v)
                    folded[p.arg] = v
                    key.append(("const", p.arg, type(v).__name__, repr(v)))
                    continue
                ty = a.type
                if isinstance(ty, TileType) and kind is N.FunctionType.InCore:
                    raise parser.err(f"{what}: a kernel cannot take a tile argument", node)
            else:
                raise parser.err(f"{what}: unsupported annotation {annot!r}", p.annotation or node)
            params.append(N.Param(p.arg, ty, direction, hsrc.loc(p)))
            call_args.append(a)
            key.append(("param", p.arg, str(ty), repr(getattr(ty, "pad", None)), direction.value))
        key_t = tuple(key)
        name = self.helper_names.get(key_t)
        if name is None:
            if id(helper) in self.in_progress:
                raise parser.err(f"{helper.__name__} calls itself (directly or not); recursion is not supported", e)
            name = self.unique(helper.__name__)
            self.helper_names[key_t] = name
            self.in_progress.add(id(helper))
            try:
                self._parse_helper(helper, name, item, hsrc, scope, folded, params, declared_dir)
            finally:
                self.in_progress.discard(id(helper))
        fcall = N.FuncCall(name, call_args, loc=parser.loc(e))
        callee = self.functions[name]
        if callee.kind is N.FunctionType.Inline and e is not parser.direct_call:
            # used inside an expression: bind its value to a temporary first (the inline pass
            # splices statement-level calls only)
            if len(callee.return_types) != 1:
                raise parser.err(f"{helper.__name__} returns {len(callee.return_types)} values; call it as "
                                 f"`a, b = {helper.__name__}(...)`", e)
            ty = callee.return_types[0]
            tmp = N.Var(f"_inl{len(self.used_names)}_{name}", type=ty, loc=parser.loc(e))
            self.used_names.add(tmp.name)
            parser.env[tmp.name] = ty
            parser.pre.append(N.Assign([tmp], fcall, loc=parser.loc(e)))
            return N.Var(tmp.name, type=ty, loc=parser.loc(e))
        return fcall

    def _parse_helper(self, helper, name, item, hsrc, scope, folded, params, declared_dir):
        g = dict(scope)
        g.update(folded)
        fn = N.Function(name, helper.kind, params, [], [], hsrc.loc(item))
        fn.attrs["jit_helper"] = helper.__qualname__
        hp = JitParser(self, hsrc, g, dyn_dims_of(scope), in_kernel=True)
        fn.body = hp.parse_body(item, fn)
        fn.return_types = _return_types(fn.body)
        reads, writes = tensor_uses(fn.body, self.functions)
        fn.attrs["jit_uses"] = (reads, writes)
        outs = []
        for i, p in enumerate(params):
            if isinstance(p.type, TensorType) and p.name in writes and p.name not in declared_dir:
                p.direction = N.Direction.INOUT if p.name in reads else N.Direction.OUT
            if isinstance(p.type, TensorType) and p.direction is not N.Direction.IN:
                outs.append(i)
        returned = _returned_params(item, fn, hsrc)
        self.functions[name] = fn
        self.sigs[name] = Signature(fn, returned if (returned or helper.kind is N.FunctionType.Inline) else outs)


def tensor_uses(body: List[N.Stmt], functions: Dict[str, N.Function]) -> Tuple[Set[str], Set[str]]:
    """Names of tensor variables loaded from (reads) and stored to (writes) in ``body``."""
    reads: Set[str] = set()
    writes: Set[str] = set()
    for _, sub in N.iter_exprs(body):
        if isinstance(sub, N.OpCall) and sub.op == "load" and isinstance(sub.args[0], N.Var):
            reads.add(sub.args[0].name)
        elif isinstance(sub, N.OpCall) and sub.op == "store" and isinstance(sub.args[1], N.Var):
            writes.add(sub.args[1].name)
        elif isinstance(sub, N.FuncCall) and sub.callee in functions:
            callee = functions[sub.callee]
            r, w = callee.attrs.get("jit_uses", (set(), set()))
            for p, a in zip(callee.params, sub.args):
                if isinstance(a, N.Var) and isinstance(p.type, TensorType):
                    if p.name in r or p.direction is N.Direction.INOUT:
                        reads.add(a.name)
                    if p.name in w or p.direction is not N.Direction.IN:
                        writes.add(a.name)
    return reads, writes


class JitParser(FunctionParser):
    """FunctionParser for ``@pl.jit`` code: orchestration level (``in_kernel=False``) or kernel code."""

    def __init__(self, builder: ProgramBuilder, src, g, dyn, in_kernel: bool):
        super().__init__(src, g, builder.sigs, dyn)
        self.builder = builder
        self.in_kernel = in_kernel
        self.pre: List[N.Stmt] = []          # statements hoisted out of the current statement
        self.direct_call = None              # the call that is the whole value of the current statement

    def stmt(self, s) -> List[N.Stmt]:
        saved = self.pre, self.direct_call
        self.pre = []
        self.direct_call = None
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            self.direct_call = s.value
        elif isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and \
                isinstance(s.targets[0], (ast.Name, ast.Tuple)):
            self.direct_call = s.value
        try:
            out = super().stmt(s)
            return self.pre + out
        finally:
            self.pre, self.direct_call = saved

    # ------------------------------------------------------------ calls
    def call(self, e: ast.Call) -> N.Expr:
        f = e.func
        if isinstance(f, ast.Name) and f.id not in self.env:
            target = self._resolve(f)
            if isinstance(target, JitHelper):
                return self.builder.helper_call(self, target, e)
            if callable(target) and getattr(target, "__pto_op__", None) is None and \
                    getattr(target, "__pto_function__", None) is None and target not in (min, max):
                from .function import JitFunction
                if isinstance(target, JitFunction):
                    raise self.err(f"{f.id} is a @pl.jit entry point; functions called from a @pl.jit body must "
                                   f"be decorated @pl.jit.incore or @pl.jit.inline", f)
                raise self.err(f"{f.id!r} is not a DSL op or a @pl.jit.incore / @pl.jit.inline helper", f)
        return super().call(e)

    def op_call(self, op: str, e: ast.Call) -> N.Expr:
        if not self.in_kernel and op not in _ORCH_OPS:
            raise self.err(f"pl.{op} is kernel code: in a @pl.jit body it must be inside a "
                           f"`with pl.at(level=pl.Level.CORE_GROUP):` block or in a @pl.jit.incore helper", e)
        if self.in_kernel and op in _EW_BINARY | _EW_SCALAR | _EW_UNARY | {"cast"}:
            return self._elementwise(op, e)
        return super().op_call(op, e)

    def _elementwise(self, op: str, e: ast.Call) -> N.Expr:
        b = self._bind(op, e)
        if op in _EW_UNARY or op == "cast":
            v = self._as_tile(self.expr(b["tile"]), b["tile"], op)
            attrs = {}
            if op == "cast":
                attrs["target_type"] = self._static_attr(b["target_type"], DType, "target_type")
                if b.get("mode") is not None:
                    m = self.expr(b["mode"])
                    attrs["mode"] = m.value if isinstance(m, N.Const) else None
            return self._typed_op(op, [v], attrs, e)
        lhs = self._as_tile(self.expr(b["lhs"]), b["lhs"], op)
        rhs = self.expr(b["rhs"])
        od = OPS[op]
        sop = op if op in _EW_SCALAR else (od.scalar_form if isinstance(rhs.type, ScalarType) else None)
        if sop is not None:
            if isinstance(rhs, N.Const) and isinstance(lhs.type, TileType) and lhs.type.dtype.is_float:
                rhs = N.Const(float(rhs.value), type=ScalarType(lhs.type.dtype if lhs.type.dtype is DType.FP32
                                                                else DType.FP32), loc=rhs.loc)
            return self._typed_op(sop, [lhs, rhs], {}, e)
        rhs = self._as_tile(rhs, b["rhs"], op)
        return self._typed_op(op, [lhs, rhs], {}, e)

    def _as_tile(self, v: N.Expr, node, op: str) -> N.Expr:
        """A whole tensor used where a tile is expected: load it as one Vec tile."""
        if not isinstance(v.type, TensorType):
            return v
        shape = v.type.shape
        if not all(isinstance(d, int) for d in shape):
            raise self.err(f"tensor-level pl.{op} needs a tensor of static shape, but {ast.unparse(node)!r} is "
                           f"{v.type}; load tiles with pl.load(tensor, offsets, shapes) instead", node)
        if len(shape) > 2 and any(d != 1 for d in shape[:-2]):
            raise self.err(f"tensor-level pl.{op} works on 1-D or 2-D tensors, but {ast.unparse(node)!r} is "
                           f"{v.type}; load 2-D tiles with pl.load", node)
        rows, cols = (1, shape[0]) if len(shape) == 1 else (shape[-2], shape[-1])
        nbytes = rows * cols * v.type.dtype.size
        if nbytes > MAX_TENSOR_TILE_BYTES:
            raise self.err(f"tensor-level pl.{op} on {ast.unparse(node)!r} ({v.type}, {nbytes} bytes) does not fit "
                           f"in one tile (at most {MAX_TENSOR_TILE_BYTES} bytes); split it with pl.load / pl.store "
                           f"over tiles in a pl.range loop", node)
        zeros = N.ListExpr([self._const(0, node) for _ in shape], loc=self.loc(node))
        attrs = {"shape": list(shape), "target_memory": MemorySpace.Vec}
        return self._typed_op("load", [v, zeros], attrs, node)

    # ------------------------------------------------------------ statements
    def assign(self, s) -> List[N.Stmt]:
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        if isinstance(target, ast.Subscript):
            if not self.in_kernel:
                raise self.err("writing a tensor window (x[...] = expr) is kernel code: in a @pl.jit body it "
                               "must be inside a `with pl.at(level=pl.Level.CORE_GROUP):` block", target)
            return self._window_store(target, s.value, s)
        return super().assign(s)

    def _window_store(self, target: ast.Subscript, value_node, s) -> List[N.Stmt]:
        dst = self.expr(target.value)
        if not isinstance(dst.type, TensorType) or not isinstance(dst, N.Var):
            raise self.err(f"x[...] = expr writes a window of a tensor, but {ast.unparse(target.value)!r} is "
                           f"{dst.type}", target.value)
        ndim = len(dst.type.shape)
        sl = target.slice
        items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if len(items) > ndim:
            raise self.err(f"{len(items)} indices for a {ndim}-D tensor", target)
        offsets: List[N.Expr] = []
        extents: List[Optional[int]] = []
        for it in items:
            if not isinstance(it, ast.Slice) or it.step is not None:
                raise self.err("tensor windows are written with slices such as x[:] or x[a:b, :]", it)
            lo = self.expr(it.lower) if it.lower is not None else self._const(0, it)
            if not isinstance(lo.type, ScalarType) or lo.type.dtype.is_float:
                raise self.err("a window offset must be an integer", it.lower)
            offsets.append(lo)
            ext = None
            if it.upper is not None:
                hi = self.expr(it.upper)
                if isinstance(hi, N.Const) and isinstance(lo, N.Const):
                    ext = hi.value - lo.value
            extents.append(ext)
        while len(offsets) < ndim:
            offsets.append(self._const(0, target))
            extents.append(None)
        value = self._as_tile(self.expr(value_node), value_node, "store")
        if not isinstance(value.type, TileType):
            raise self.err(f"x[...] = expr needs a tile or tensor value, but got {value.type}", value_node)
        tshape = list(value.type.shape)
        ext2 = extents[-2:] if ndim >= 2 else [1] + extents
        for want, got in zip(ext2, tshape):
            if want is not None and want != got:
                raise self.err(f"the window {ast.unparse(target)} is {fmt_shape([e for e in ext2])} but the value is a "
                               f"{fmt_shape(tshape)} tile", target)
        offs = N.ListExpr(offsets, loc=self.loc(target))
        store = self._typed_op("store", [value, dst, offs], {}, s)
        return [N.ExprStmt(store, loc=self.loc(s))]

    def with_block(self, s: ast.With) -> N.Stmt:
        item = s.items[0] if len(s.items) == 1 else None
        call = item.context_expr if item is not None else None
        if isinstance(call, ast.Call) and getattr(self._resolve(call.func), "__pto_marker__", None) == "at":
            if self.in_kernel:
                raise self.err("pl.at blocks cannot be nested (or used inside a helper): each pl.at block is "
                               "already one kernel", s)
            as_name = None
            if item.optional_vars is not None:
                if not isinstance(item.optional_vars, ast.Name):
                    raise self.err("`as` needs a simple name", item.optional_vars)
                as_name = item.optional_vars.id
            return self.builder.outline(self, s, call, as_name)
        return super().with_block(s)


def build_program(fn, specs: List[ArgSpec]) -> N.Program:
    """The (pre-pass) IR program of ``fn`` specialized to ``specs``."""
    return ProgramBuilder(fn, specs).build()
