"""Front end of ``@pl.jit``: a specialized Python function -> ``ir.Program``.

The entry function becomes the Orchestration function.  Each
``with pl.at(level=pl.Level.CORE_GROUP, name_hint=..., deps=[...]) as tid:`` block is outlined
into an InCore kernel (``ptokit.language.outline``).  Helpers decorated ``@pl.jit.incore`` /
``@pl.jit.inline`` are looked up by name in the caller's scope and specialized from the
argument types at each call site.

Inside kernel code, element-wise ops on whole tensors (``pl.add(a, b)``, ``c[:] = pl.exp(a)``)
are lowered to load / tile op / store when the tensor fits in one tile.

Everything else is the one front end (``ptokit.language.parser.FunctionParser``); this module
only adds specialization and outlining through the parser's hooks.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, OpDef
from ..ir.types import DType, ScalarType, TensorType, TileType, dim_str
from ..language.annotations import evaluated, read_annotation
from ..language.binder import Given, bind_call, header_args
from ..language.outline import Outliner, tensor_uses
from ..language.parser import FunctionParser, dyn_dims_of
from ..language.scopes import AtSpec
from ..language.signatures import Signature, arg_problem, return_types
from ..language.source import Source, eval_static
from ..language.units import parsed_returns
from .helpers import JitHelper, function_scope
from .specialize import ArgSpec
from ..ir.comm import ctx_name
from ..language.dist_front import add_ctx_params, is_window



class ProgramBuilder:
    """Builds one specialized program; shared by every parser of the entry and its helpers."""

    def __init__(self, fn, specs: List[ArgSpec]):
        self.fn = fn
        self.name = fn.__name__
        self.specs = specs
        self.functions: Dict[str, N.Function] = {}
        self.sigs: Dict[str, Signature] = {}
        self.helper_names: Dict[tuple, str] = {}
        self.in_progress: Set[int] = set()
        self.outliner = Outliner(self.name, {self.name})

    # ------------------------------------------------------------ entry
    def build(self) -> N.Program:
        src = Source(self.fn)
        item = src.tree.body[0]
        if not isinstance(item, ast.FunctionDef):
            raise CompileError("@pl.jit decorates a plain function", src.loc(item))
        scope = function_scope(self.fn)
        g = dict(scope)
        for s in self.specs:
            if s.kind == "const":
                g[s.name] = s.value
        dyn = dyn_dims_of(scope)
        args = item.args.posonlyargs + item.args.args + item.args.kwonlyargs     # the specs' order
        params = []
        for a, s in zip(args, self.specs):
            if s.kind == "tensor":
                ty = TensorType(tuple(dim_str(d) for d in s.shape), s.dtype, window=s.window)
                params.append(N.Param(s.name, ty, N.Direction("INOUT" if s.window else s.direction), src.loc(a)))
            elif s.kind == "scalar":
                params.append(N.Param(s.name, ScalarType(s.dtype), N.Direction.IN, src.loc(a)))
        orch = N.Function(self.name, N.FunctionType.Orchestration, params, [], [], src.loc(item))
        add_ctx_params(orch)        # windows' hidden CommContext scalars (language/dist_front.py)
        parser = JitParser(self, src, g, dyn, in_kernel=False)
        orch.body = parser.parse_body(item, orch)
        orch.return_types = return_types(orch.body)
        blocks = any(isinstance(s, N.Scope) and s.kind == "incore"          # kernels outlined by the passes
                     for f in [*self.functions.values(), orch] for s in N.walk_stmts(f.body))
        if not blocks and not any(f.kind is N.FunctionType.InCore for f in self.functions.values()):
            raise CompileError(f"@pl.jit function {self.name} submits no kernel: put its tile operations in "
                               f"`with pl.at(level=pl.Level.CORE_GROUP):` blocks or call a @pl.jit.incore helper",
                               src.loc(item))
        functions = dict(self.functions)
        functions[self.name] = orch
        return N.Program(self.name, functions, src.file, tuple(sorted(dyn)))

    # ------------------------------------------------------------ helpers
    def helper_call(self, parser: "JitParser", helper: JitHelper, e: ast.Call) -> N.Expr:
        kind = self._helper_kind(helper)
        if helper.kind is N.FunctionType.Opaque and kind is N.FunctionType.Inline and parser.in_kernel:
            raise parser.err(f"{helper.__name__} is a @pl.jit.opaque helper that submits work (pl.at blocks or "
                             f"kernel calls): call it from the @pl.jit body outside pl.at blocks", e)
        if kind is N.FunctionType.InCore and parser.in_kernel:
            raise parser.err(f"{helper.__name__} is a @pl.jit.incore helper (a kernel of its own): call it from "
                             f"the @pl.jit body outside pl.at blocks; use @pl.jit.inline for code spliced into "
                             f"a kernel", e)
        hsrc = helper.source()
        item = hsrc.tree.body[0]
        if not isinstance(item, ast.FunctionDef):
            raise CompileError(f"@pl.jit.{kind.name.lower()} decorates a plain function", hsrc.loc(item))
        scope = helper.scope()
        header = header_args(item, hsrc, scope, method=False)
        bound = bind_call(helper.__name__, [sp for _, sp in header], e, parser.err)
        params: List[N.Param] = []
        folded: Dict[str, object] = {}
        call_args: List[N.Expr] = []
        declared_dir: Set[str] = set()
        key: list = [id(helper)]
        no_dep = []
        for p, sp in header:
            loc = hsrc.loc(p.annotation or p)
            ann = read_annotation(evaluated(p, hsrc, scope, helper.fn.__annotations__), loc, p.arg)
            node = bound[p.arg]
            if isinstance(node, Given):
                if not isinstance(node.value, (bool, int, float)):
                    raise CompileError(f"parameter {p.arg!r} of {helper.__name__}: a default value is a number, got "
                                       f"{node.value!r}", hsrc.loc(p))
                a, node = parser._const(node.value, e), e
            else:
                inner = parser.no_dep_arg(node)      # pl.no_dep(x) arguments (language/tasks.py)
                if inner is not None:
                    node = inner
                    no_dep.append(len(call_args))
                a = parser.expr(node)
            if ann.writes:
                declared_dir.add(p.arg)
            if ann.kind in ("tensor", "tile", "scalar"):
                want = ann.kind if ann.bare or ann.kind == "scalar" else ann.ir_type(loc)[0]
                problem = arg_problem(a.type, want, p.arg, helper.__name__)
                if problem:
                    raise parser.err(problem, node)
                ty = ScalarType(ann.dtype) if ann.kind == "scalar" and ann.dtype else a.type
            else:                                     # a number (folded when constant) or unannotated
                if isinstance(a, N.Const) and isinstance(a.value, (int, float, bool)):
                    v = a.value
                    if ann.dtype is not None:
                        v = float(v) if ann.dtype.is_float else int(v)
                    elif ann.py_type is not None:
                        v = ann.py_type(v)
                    folded[p.arg] = v
                    key.append(("const", p.arg, type(v).__name__, repr(v)))
                    continue
                ty = a.type
                if isinstance(ty, TileType) and kind is N.FunctionType.InCore:
                    raise parser.err(f"argument {p.arg!r} of {helper.__name__}: a kernel cannot take a tile argument",
                                     node)
            direction = N.Direction(ann.direction)
            params.append(N.Param(p.arg, ty, direction, hsrc.loc(p)))
            call_args.append(a)
            key.append(("param", p.arg, str(ty), repr(getattr(ty, "pad", None)), direction.value))
        # an inline helper is code of its caller's level: kernel code, or orchestration whose
        # pl.at blocks become kernels of their own; an incore helper is always a kernel
        in_kernel = kind is not N.FunctionType.Inline or parser.in_kernel
        key.append(("kernel code", in_kernel))
        key_t = tuple(key)
        name = self.helper_names.get(key_t)
        if name is None:
            if id(helper) in self.in_progress:
                raise parser.err(f"{helper.__name__} calls itself (directly or not); recursion is not supported", e)
            name = self.outliner.unique(helper.__name__)
            self.helper_names[key_t] = name
            self.in_progress.add(id(helper))
            try:
                self._parse_helper(helper, kind, name, item, hsrc, scope, folded, params, declared_dir, in_kernel)
            finally:
                self.in_progress.discard(id(helper))
        call_args = call_args + [N.Var(ctx_name(a.name), type=ScalarType(DType.INT64), loc=a.loc)
                                 for p, a in zip(params, call_args) if is_window(p.type)]
        fcall = parser.task_call_attrs(N.FuncCall(name, call_args, loc=parser.loc(e)), no_dep)
        return parser.inline_value(self.functions[name], fcall, e, helper.__name__)

    def _helper_kind(self, helper: JitHelper) -> N.FunctionType:
        """InCore or Inline; an ``@pl.jit.opaque`` helper is orchestration code (spliced like an
        inline helper, its pl.at blocks kernels) when it submits work, a kernel otherwise."""
        if helper.kind is not N.FunctionType.Opaque:
            return helper.kind
        hsrc, scope = helper.source(), helper.scope()
        for node in ast.walk(hsrc.tree.body[0]):
            heads = [i.context_expr for i in node.items] if isinstance(node, ast.With) else \
                [node.iter] if isinstance(node, ast.For) else [node] if isinstance(node, ast.Call) else []
            for h in heads:
                if not isinstance(h, ast.Call):
                    continue
                try:
                    target = eval_static(h.func, hsrc, scope, "callee")
                except CompileError:
                    continue
                if getattr(target, "__pto_marker__", None) in ("at", "spmd", "submit", "spmd_submit") or \
                        (isinstance(target, JitHelper) and target.kind is N.FunctionType.InCore):
                    return N.FunctionType.Inline
        return N.FunctionType.InCore

    def _parse_helper(self, helper, kind, name, item, hsrc, scope, folded, params, declared_dir, in_kernel):
        g = dict(scope)
        g.update(folded)
        fn = N.Function(name, kind, list(params), [], [], hsrc.loc(item))
        add_ctx_params(fn)
        fn.attrs["jit_helper"] = helper.__qualname__
        hp = JitParser(self, hsrc, g, dyn_dims_of(scope), in_kernel=in_kernel)
        fn.body = hp.parse_body(item, fn)
        fn.return_types = return_types(fn.body)
        reads, writes = tensor_uses(fn.body, self.functions)
        fn.attrs["jit_uses"] = (reads, writes)
        outs = []
        for i, p in enumerate(params):
            if isinstance(p.type, TensorType) and p.type.window:
                p.direction = N.Direction.INOUT      # peers change windows unseen
            elif isinstance(p.type, TensorType) and p.name in writes and p.name not in declared_dir:
                p.direction = N.Direction.INOUT if p.name in reads else N.Direction.OUT
            if isinstance(p.type, TensorType) and p.direction is not N.Direction.IN:
                outs.append(i)
        returned = parsed_returns(fn) or []      # the parameter each return is (as for program functions)
        self.functions[name] = fn
        self.sigs[name] = Signature(fn, returned if (returned or kind is N.FunctionType.Inline) else outs)


class JitParser(FunctionParser):
    """FunctionParser for ``@pl.jit`` code: orchestration level (``in_kernel=False``) or kernel code."""

    def __init__(self, builder: ProgramBuilder, src, g, dyn, in_kernel: bool):
        super().__init__(src, g, builder.sigs, dyn)
        self.builder = builder
        self.in_kernel = in_kernel
        self.outliner = builder.outliner

    @property
    def in_orchestration(self) -> bool:
        return not self.in_kernel

    # ------------------------------------------------------------ hooks
    def call_hook(self, target, e: ast.Call) -> Optional[N.Expr]:
        if isinstance(target, JitHelper):
            return self.builder.helper_call(self, target, e)
        op = getattr(target, "__pto_op__", None)
        if not self.in_kernel and op is not None and OPS[op].front == "front_slice":
            return self.front_slice(OPS[op], e)      # a window of a tensor (past this parser's kernel-op check)
        if callable(target) and getattr(target, "__pto_op__", None) is None and \
                getattr(target, "__pto_function__", None) is None and target not in (min, max) and \
                getattr(target, "__pto_marker__", None) is None:     # markers (pl.tensor.dim, pl.const): the parser's
            name = ast.unparse(e.func)
            if getattr(target, "__pto_jit__", False):
                raise self.err(f"{name} is a @pl.jit entry point; functions called from a @pl.jit body must "
                               f"be decorated @pl.jit.incore or @pl.jit.inline", e.func)
            raise self.err(f"{name!r} is not a DSL op or a @pl.jit.incore / @pl.jit.inline helper", e.func)
        return None

    def check_op_allowed(self, op: OpDef, e: ast.Call) -> None:
        if not self.in_kernel and not op.has("orchestration"):
            raise self.err(f"pl.{op.name} is kernel code: in a @pl.jit body it must be inside a "
                           f"`with pl.at(level=pl.Level.CORE_GROUP):` block or in a @pl.jit.incore helper", e)

    def at_block(self, s: ast.With, spec: AtSpec) -> N.Stmt:
        if self.in_kernel:
            raise self.err("pl.at blocks cannot be nested (or used inside a helper): each pl.at block is "
                           "already one kernel", s)
        return super().at_block(s, spec)

    def _kernel_parser(self, kfn: N.Function) -> "JitParser":
        return JitParser(self.builder, self.src, self.g, self.dyn, in_kernel=True)


def build_program(fn, specs: List[ArgSpec]) -> N.Program:
    """The (pre-pass) IR program of ``fn`` specialized to ``specs``."""
    return ProgramBuilder(fn, specs).build()
