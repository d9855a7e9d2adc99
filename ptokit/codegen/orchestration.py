"""IR Orchestration function -> ``orchestration/<orch>.cpp`` (artifacts.md).

Each kernel call becomes one task: a ``CoreTaskArgs`` with tensors (inputs,
existing outputs, inouts, runtime-created intermediates) before scalars, then
``rt_submit_aiv_task`` / ``rt_submit_aic_task`` with the kernel's func_id.  The
same code serves both runtime kinds.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Set

from ..errors import CompileError, InternalError
from ..ir import nodes as N
from ..ir.ops import SCALAR_OPERATORS
from ..ir.types import DATATYPE_CPP, DType, ScalarType, TensorType

_CPP_SCALAR = {DType.FP32: "float", DType.FP16: "uint16_t", DType.BF16: "uint16_t", DType.INT8: "int8_t",
               DType.INT16: "int16_t", DType.INT32: "int32_t", DType.INT64: "int64_t", DType.UINT8: "uint8_t",
               DType.UINT16: "uint16_t", DType.UINT32: "uint32_t", DType.UINT64: "uint64_t",
               DType.BOOL: "bool", DType.INDEX: "int64_t"}
# operators whose C++ spelling means what the Python one does (floordiv, mod, min, max are spelled out)
_CPP_OP = {name: o.cxx for name, o in SCALAR_OPERATORS.items() if o.cxx is not None}


def _live_scalars(body) -> Set[str]:
    """Names whose value is read by something that matters: a task argument, a loop bound or test,
    an ``if`` test, a tensor expression, or (transitively) another live value.  Dead scalars --
    e.g. the flags of a ``continue`` nobody tests again -- are not emitted (they would be set but
    never used)."""
    deps: Dict[str, Set[str]] = {}
    roots: Set[str] = set()

    def reads(e) -> Set[str]:
        return {x.name for x in N.walk_expr(e) if isinstance(x, N.Var)}

    def walk(stmts):
        for s in stmts:
            if isinstance(s, N.Assign) and all(isinstance(t.type, ScalarType) for t in s.targets):
                for t in s.targets:
                    deps.setdefault(t.name, set()).update(reads(s.value))
            elif isinstance(s, (N.For, N.While)):
                if isinstance(s, N.For):
                    roots.update(*(reads(e) for e in (s.start, s.stop, s.step)))
                for (p, init), y, r in zip(s.iter_args, s.yields, s.results):
                    group = reads(init) | reads(y) | {p.name, r.name}
                    deps.setdefault(p.name, set()).update(group)
                    deps.setdefault(r.name, set()).update(group)
                walk(s.body)
            elif isinstance(s, N.If):
                roots.update(reads(s.cond))
                for r, a, b in zip(s.results, s.then_yields, s.else_yields):
                    deps.setdefault(r.name, set()).update(reads(a) | reads(b))
                walk(s.then_body)
                walk(s.else_body)
            else:
                for e in N.stmt_exprs(s):
                    roots.update(reads(e))
                for sub in N.child_bodies(s):
                    walk(sub)

    walk(body)
    live: Set[str] = set()
    todo = list(roots)
    while todo:
        n = todo.pop()
        if n in live:
            continue
        live.add(n)
        todo.extend(deps.get(n, ()))
    return live


class _Orch:
    def __init__(self, prog: N.Program, fn: N.Function, kernel_ids: Dict[str, int]):
        self.prog = prog
        self.fn = fn
        self.kernel_ids = kernel_ids
        self.lines: List[str] = []
        self.tensors: Dict[str, str] = {}     # IR tensor var -> C++ expression
        self.scalars: Dict[str, str] = {}
        self.pending: Dict[str, N.OpCall] = {}   # created tensors not yet written
        self.task = 0
        self.task_ids: Dict[str, str] = {}
        self.sync_start = False
        self.expired: Dict[str, object] = {}   # tensors created in a pl.scope that has ended
        self.live = _live_scalars(fn.body)      # scalars whose value something reads

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    # ------------------------------------------------------------ expressions
    def scalar(self, e: N.Expr) -> str:
        if isinstance(e, N.Const):
            if isinstance(e.value, bool):
                return "true" if e.value else "false"
            if isinstance(e.value, float):
                return f"{e.value!r}f"
            return str(e.value)
        if isinstance(e, N.Var):
            if e.name not in self.scalars:
                raise InternalError(f"orchestration: scalar {e.name!r} undefined")
            return self.scalars[e.name]
        if isinstance(e, N.OpCall) and e.op in _CPP_OP:
            return f"({self.scalar(e.args[0])} {_CPP_OP[e.op]} {self.scalar(e.args[1])})"
        if isinstance(e, N.OpCall) and e.op in ("scalar.floordiv", "scalar.mod"):
            # Python semantics: floor division, result of % takes the divisor's sign
            a, b = self.scalar(e.args[0]), self.scalar(e.args[1])
            adjust = f"((({a}) % ({b}) != 0) && ((({a}) < 0) != (({b}) < 0)))"
            if e.op == "scalar.floordiv":
                return f"(({a}) / ({b}) - {adjust})"
            return f"(({a}) % ({b}) + ({adjust} ? ({b}) : 0))"
        if isinstance(e, N.OpCall) and e.op in ("scalar.min", "scalar.max"):
            a, b = self.scalar(e.args[0]), self.scalar(e.args[1])
            cmp = "<" if e.op == "scalar.min" else ">"
            return f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"
        if isinstance(e, N.OpCall) and e.op == "scalar.neg":
            return f"(-{self.scalar(e.args[0])})"
        if isinstance(e, N.OpCall) and e.op == "scalar.cast":
            return f"static_cast<{_CPP_SCALAR[e.type.dtype]}>({self.scalar(e.args[0])})"
        raise CompileError(f"expression not supported in orchestration code: {e!r}", e.loc)

    def dim(self, d) -> str:
        if isinstance(d, int):
            return str(d)
        tree = ast.parse(str(d), mode="eval").body
        return self._dim_ast(tree)

    def _dim_ast(self, node) -> str:
        if isinstance(node, ast.Constant):
            return str(node.value)
        if isinstance(node, ast.Name):
            if node.id not in self.scalars:
                raise CompileError(f"dynamic dimension {node.id!r} is not known in {self.fn.name}", self.fn.loc)
            return self.scalars[node.id]
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Mod: "%"}[type(node.op)]
            return f"({self._dim_ast(node.left)} {op} {self._dim_ast(node.right)})"
        raise CompileError(f"unsupported dimension {ast.unparse(node)!r}", self.fn.loc)

    # ------------------------------------------------------------ statements
    def body(self, stmts, depth, block_num=None, name=None, deps=None):
        for s in stmts:
            self.stmt(s, depth, block_num, name, deps)

    def stmt(self, s, depth, block_num, name, deps):
        if isinstance(s, N.Assign):
            v = s.value
            tgt = s.targets[0]
            if isinstance(v, N.OpCall) and v.op == "create_tensor":
                self.pending[tgt.name] = v
                return
            if isinstance(tgt.type, ScalarType):
                if tgt.name not in self.live:
                    return
                ctype = _CPP_SCALAR[tgt.type.dtype]
                self.emit(depth, f"{ctype} {tgt.name} = {self.scalar(v)};")
                self.scalars[tgt.name] = tgt.name
                return
            raise CompileError(f"unsupported statement in orchestration: {tgt.name} = ...", s.loc)
        if isinstance(s, N.ExprStmt):
            if isinstance(s.expr, N.FuncCall):
                self.submit(s.expr, depth, block_num, name, deps)
                return
            raise CompileError("an orchestration statement must submit a task (call a kernel)", s.loc)
        if isinstance(s, N.Return):
            return
        if isinstance(s, N.For):
            self.carry_before(s, depth)
            v = s.var.name
            self.scalars[v] = v
            lo, hi, st = self.scalar(s.start), self.scalar(s.stop), self.scalar(s.step)
            self.emit(depth, f"for (int64_t {v} = {lo}; {v} < {hi}; {v} += {st}) {{")
            self.carry_in(s, depth + 1)
            self.body(s.body, depth + 1, block_num, name, deps)
            self.assign_results(s.results, s.yields, depth + 1)
            self.emit(depth, "}")
            return
        if isinstance(s, N.While):
            self.carry_before(s, depth)
            pre, cond, post = s.split()
            self.emit(depth, "while (true) {")
            self.carry_in(s, depth + 1)
            self.body(pre, depth + 1, block_num, name, deps)
            self.emit(depth + 1, f"if (!({self.scalar(cond.cond)})) break;")
            self.body(post, depth + 1, block_num, name, deps)
            self.assign_results(s.results, s.yields, depth + 1)
            self.emit(depth, "}")
            return
        if isinstance(s, N.If):
            for r in s.results:
                if r.name in self.live:
                    self.declare_carried(r, None, depth, s)
            self.emit(depth, f"if ({self.scalar(s.cond)}) {{")
            self.body(s.then_body, depth + 1, block_num, name, deps)
            self.assign_results(s.results, s.then_yields, depth + 1)
            if s.else_body or s.results:
                self.emit(depth, "} else {")
                self.body(s.else_body, depth + 1, block_num, name, deps)
                self.assign_results(s.results, s.else_yields, depth + 1)
            self.emit(depth, "}")
            return
        if isinstance(s, N.Scope):
            if s.kind == "spmd":
                bn = self.scalar(s.attrs["block_num"])
                self.sync_start = bool(s.attrs.get("sync_start"))
                self.body(s.body, depth, bn, name, deps)
                self.sync_start = False
            elif s.kind == "scope":
                # a runtime scope: its tasks are released when it ends; MANUAL scopes order their
                # tasks by deps= (ptokit's runtime also keeps tracking tensors there: a superset of
                # edges, so a race-free program computes the same numbers)
                mode = s.attrs.get("mode", "auto")
                self.emit(depth, f"PTO2_SCOPE() {{   // pl.scope(mode={mode.upper()})")
                before = set(self.tensors)
                self.body(s.body, depth + 1, block_num, name, deps)
                self.emit(depth, "}")
                for n in set(self.tensors) - before:   # the scope released them: they may not be used after
                    del self.tensors[n]
                    self.expired[n] = s.loc
            elif s.kind == "cluster":
                self.emit(depth, "// pl.cluster(): the tasks below are co-scheduled")
                self.body(s.body, depth, block_num, name, deps)
            else:
                self.body(s.body, depth, block_num, s.attrs.get("name"), s.attrs.get("deps"))
            return
        raise CompileError(f"{type(s).__name__} is not supported in orchestration", s.loc)

    # loop-carried and merged scalars: each result is a C++ variable that holds the current value;
    # a loop copies it into the iteration's own variable at the top and writes the yields back at
    # the bottom, so after the loop it holds the last value (a while loop: what the test last saw)
    def declare_carried(self, r: N.Var, init, depth, s):
        if not isinstance(r.type, ScalarType):
            raise CompileError(f"{r.name!r}: only scalars may be carried through loops or merged across an if in "
                               f"orchestration, not {r.type}", s.loc)
        init_text = self.scalar(init) if init is not None else "{}"
        self.emit(depth, f"{_CPP_SCALAR[r.type.dtype]} {r.name} = {init_text};")
        self.scalars[r.name] = r.name

    def carry_before(self, s, depth):
        for (p, init), r in zip(s.iter_args, s.results):
            if r.name in self.live:
                self.declare_carried(r, init, depth, s)

    def carry_in(self, s, depth):
        read = {e.name for _, e in N.iter_exprs(s.body) if isinstance(e, N.Var)}
        read |= {e.name for y in s.yields for e in N.walk_expr(y) if isinstance(e, N.Var)}
        for (p, _), r in zip(s.iter_args, s.results):
            if p.name not in read or r.name not in self.live:
                continue
            self.emit(depth, f"{_CPP_SCALAR[p.type.dtype]} {p.name} = {r.name};")
            self.scalars[p.name] = p.name

    def assign_results(self, results, values, depth):
        for r, v in zip(results, values):
            if r.name not in self.live:
                continue
            text = self.scalar(v)
            if text != r.name:
                self.emit(depth, f"{r.name} = {text};")

    def submit(self, call: N.FuncCall, depth, block_num, name, deps):
        callee = self.prog.functions[call.callee]
        kinds = call.attrs["arg_kinds"]
        t = self.task
        self.task += 1
        p = f"params_t{t}"
        created = []
        targs: Dict[int, str] = {}      # argument index -> C++ tensor expression
        for j, (a, k) in enumerate(zip(call.args, kinds)):
            if k == "scalar" or k == "output_new":
                continue
            targs[j] = self.tensor_arg(a, f"win_t{t}_{j}", depth, call)
        for a, k in zip(call.args, kinds):
            if k == "output_new":
                info = self.pending.pop(a.name, None)
                if info is None:
                    raise CompileError(f"tensor {a.name!r} is created inside a loop or branch and written "
                                       f"more than once as a new output", call.loc)
                shape = info.type.shape
                dims = ", ".join(self.dim(d) if isinstance(d, int) else f"static_cast<uint32_t>({self.dim(d)})"
                                 for d in shape)
                self.emit(depth, f"uint32_t {a.name}_shapes[{len(shape)}] = {{{dims}}};")
                self.emit(depth, f"TensorCreateInfo {a.name}_ci({a.name}_shapes, {len(shape)}, "
                                 f"DataType::{DATATYPE_CPP[info.type.dtype]});")
        self.emit(depth, f"CoreTaskArgs {p};")
        for j, (a, k) in enumerate(zip(call.args, kinds)):
            if k == "input":
                self.emit(depth, f"{p}.add_input({targs[j]});")
            elif k == "output":
                self.emit(depth, f"{p}.add_output({targs[j]});")
            elif k == "inout":
                self.emit(depth, f"{p}.add_inout({targs[j]});")
            elif k == "output_new":
                self.emit(depth, f"{p}.add_output({a.name}_ci);")
                created.append(a.name)
        fifo = callee.attrs.get("fifo") if callee.kind is N.FunctionType.Group else None
        if fifo and fifo.get("gm_pipe"):
            # the group's GM pipe buffer: a runtime-created intermediate, one shard per SPMD block,
            # passed right after the user's tensors (docs/mixed-kernels.md)
            per_block = fifo.get("gm_bytes", fifo["slot_size"] * fifo["slot_num"])   # both directions when dir_mask is 3
            nblk = f" * static_cast<uint32_t>({block_num})" if block_num is not None else ""
            self.emit(depth, f"uint32_t gm_pipe_t{t}_shapes[1] = {{{per_block}u{nblk}}};")
            self.emit(depth, f"TensorCreateInfo gm_pipe_t{t}_ci(gm_pipe_t{t}_shapes, 1, DataType::UINT8);")
            self.emit(depth, f"{p}.add_output(gm_pipe_t{t}_ci);")
        for a, k in zip(call.args, kinds):
            if k == "scalar":
                self.emit(depth, f"{p}.add_scalar(to_u64({self._scalar_arg(a, callee, call)}));")
        if block_num is not None:
            self.emit(depth, f"{p}.launch_spec.set_block_num({block_num});")
            if self.sync_start:
                self.emit(depth, f"{p}.launch_spec.set_sync_start(true);")
        for d in deps or []:
            if d not in self.task_ids:
                raise CompileError(f"deps= names {d!r}, which is not a task named earlier with `as`", call.loc)
            self.emit(depth, f"{p}.add_dep({self.task_ids[d]});")
        needs_outs = bool(created) or name is not None
        prefix = f"TaskOutputTensors outs_t{t} = " if needs_outs else ""
        if callee.kind is N.FunctionType.Group:
            # a mixed AIC+AIV group: one task on a whole cluster, both AIV lanes run the AIV kernel
            aic, aiv = self.kernel_ids[callee.attrs["aic"]], self.kernel_ids[callee.attrs["aiv"]]
            self.emit(depth, f"MixedKernels mk_t{t} = {{{aic}, {aiv}, {aiv}}};")
            self.emit(depth, f"{prefix}rt_submit_task(mk_t{t}, {p});")
        else:
            fid = self.kernel_ids[call.callee]
            submit = "rt_submit_aic_task" if callee.attrs.get("core_type") == "aic" else "rt_submit_aiv_task"
            self.emit(depth, f"{prefix}{submit}({fid}, {p});")
        for i, n in enumerate(created):
            self.emit(depth, f"const ChipTensor& {n} = outs_t{t}.get_ref({i});")
            self.tensors[n] = n
        if name is not None:
            self.emit(depth, f"PTO2TaskId {name} = outs_t{t}.task_id();")
            self.emit(depth, f"(void){name};   // named with `as`; used only if a later deps= names it")
            self.task_ids[name] = name

    def tensor_arg(self, a: N.Expr, vname: str, depth, call) -> str:
        """The C++ tensor for a task argument; a window ``x[a:b, :]`` becomes a
        ``make_tensor_view`` of its base declared just before the task."""
        if isinstance(a, N.Var):
            self._check_alive(a.name, call)
            return self.tensors[a.name]
        if not (isinstance(a, N.OpCall) and a.op == "tensor_view"):
            raise CompileError("a task's tensor argument must be a tensor variable or a window of one", call.loc)
        base, offs = a.args
        self._check_alive(base.name, call)
        n = len(a.type.shape)
        dims = ", ".join(f"{d}u" if isinstance(d, int) else f"static_cast<uint32_t>({self.dim(d)})"
                         for d in a.type.shape)
        starts = ", ".join(f"{o.value}u" if isinstance(o, N.Const) else f"static_cast<uint32_t>({self.scalar(o)})"
                           for o in offs.items)
        self.emit(depth, f"uint32_t {vname}_shapes[{n}] = {{{dims}}};")
        self.emit(depth, f"uint32_t {vname}_offs[{n}] = {{{starts}}};")
        self.emit(depth, f"ChipTensor {vname} = make_tensor_view({self.tensors[base.name]}, {vname}_shapes, "
                         f"{vname}_offs, {n});")
        return vname

    def _check_alive(self, name: str, call) -> None:
        if name in self.expired:      # DeriveArgDirections reports this to the user first
            raise InternalError(f"orchestration: tensor {name!r} used after the pl.scope that created it")
        if name not in self.tensors:
            raise InternalError(f"orchestration: tensor {name!r} undefined")

    def _scalar_arg(self, a: N.Expr, callee: N.Function, call) -> str:
        idx = call.args.index(a)
        pt = callee.params[idx].type
        ctype = _CPP_SCALAR[pt.dtype]
        return f"static_cast<{ctype}>({self.scalar(a)})"

    # ------------------------------------------------------------ function
    def generate(self) -> str:
        fn = self.fn
        tensors = [p for p in fn.params if isinstance(p.type, TensorType)]
        scalars = [p for p in fn.params if isinstance(p.type, ScalarType)]
        body: List[str] = []
        for i, p in enumerate(tensors):
            body.append(f"    const ChipTensor& ext_{p.name} = orch_args.tensor({i}).ref();")
            self.tensors[p.name] = f"ext_{p.name}"
        for j, p in enumerate(scalars):
            ctype = _CPP_SCALAR[p.type.dtype]
            body.append(f"    {ctype} {p.name} = from_u64<{ctype}>(orch_args.scalar({j}));")
            self.scalars[p.name] = p.name
        seen = set()
        for p in tensors:
            for d, dim in enumerate(p.type.shape):
                if isinstance(dim, str) and dim.isidentifier() and dim not in seen:
                    seen.add(dim)
                    body.append(f"    int64_t {dim} = static_cast<int64_t>(ext_{p.name}.shapes[{d}]);")
                    body.append(f"    (void){dim};")
                    self.scalars[dim] = dim
        self.body(fn.body, 2)
        out = [
            "// Orchestration generated by ptokit: one task per kernel call.",
            "#include <stdint.h>",
            '#include "pto_orchestration_api.h"',
            "",
            'extern "C" {',
            "",
            '__attribute__((visibility("default")))',
            "PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {",
            "    (void)orch_args;",
            f"    return PTO2OrchestrationConfig{{ .expected_arg_count = {len(tensors) + len(scalars)} }};",
            "}",
            "",
            '__attribute__((visibility("default")))',
            "void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {",
        ]
        if not tensors and not scalars:
            out.append("    (void)orch_args;")
        out += body
        out.append("    PTO2_SCOPE() {")
        out += self.lines
        out += ["    }", "}", "", '}  // extern "C"', ""]
        return "\n".join(out)


def emit_orchestration(prog: N.Program, fn: N.Function) -> str:
    return _Orch(prog, fn, fn.attrs["kernel_ids"]).generate()
