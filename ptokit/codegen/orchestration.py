"""IR Orchestration function -> ``orchestration/<orch>.cpp`` (artifacts.md).

Each kernel call becomes one task: a ``CoreTaskArgs`` with tensors (inputs,
existing outputs, inouts, runtime-created intermediates) before scalars, then
``rt_submit_aiv_task`` / ``rt_submit_aic_task`` with the kernel's func_id.  The
same code serves both runtime kinds.

Task options come from the ``at`` scope around a call (``deps``: task ids and TASK_ID arrays,
``predicate``) and from the call itself (``no_dep`` / ``dumps`` argument positions).  Task ids,
``pl.array`` values and host reads are C++ values of the orchestration function: loop-carried
and ``if``-merged ones included (``PTO2TaskId``, ``std::array``, ``rt_tensor_read``).
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass, replace
from typing import Dict, List, Optional

from ..errors import CompileError, InternalError
from ..ir import nodes as N
from ..ir.access import allocates
from ..ir.ops import SCALAR_OPERATORS
from ..ir.types import DATATYPE_CPP, ArrayType, DType, ScalarType, TensorType
from ..pto.cxx_names import cxx_ident as cx

_CPP_SCALAR = {DType.FP32: "float", DType.FP16: "uint16_t", DType.BF16: "uint16_t", DType.INT8: "int8_t",
               DType.INT16: "int16_t", DType.INT32: "int32_t", DType.INT64: "int64_t", DType.UINT8: "uint8_t",
               DType.UINT16: "uint16_t", DType.UINT32: "uint32_t", DType.UINT64: "uint64_t",
               DType.BOOL: "bool", DType.INDEX: "int64_t", DType.TASK_ID: "PTO2TaskId"}
# operators whose C++ spelling means what the Python one does (floordiv, mod, min, max are spelled out)
_CPP_OP = {name: o.cxx for name, o in SCALAR_OPERATORS.items() if o.cxx is not None}
# dispatch predicates: comparison -> PTO2CmpOp (pto_orchestration_api.h)
_CMP = {"==": "PTO2_CMP_EQ", "!=": "PTO2_CMP_NE", "<": "PTO2_CMP_LT", "<=": "PTO2_CMP_LE", ">": "PTO2_CMP_GT",
        ">=": "PTO2_CMP_GE"}


def ctype(t) -> str:
    """The C++ type of an orchestration value (a scalar, a task id, a pl.array)."""
    if isinstance(t, ArrayType):
        return f"std::array<{_CPP_SCALAR[t.dtype]}, {t.extent}>"
    if isinstance(t, ScalarType):
        return _CPP_SCALAR[t.dtype]
    raise InternalError(f"orchestration: no C++ type for {t}")


def _is_value(t) -> bool:
    return isinstance(t, (ScalarType, ArrayType))


@dataclass(frozen=True)
class _Task:
    """What the enclosing scopes say about the tasks submitted inside them."""
    block_num: Optional[str] = None
    deps: tuple = ()                   # IR exprs: task ids, TASK_ID arrays
    predicate: Optional[N.Expr] = None
    name_tasks: Optional[list] = None  # an `at` scope that binds a task id: (task number, depth) of its tasks
    at_depth: int = 0


class _Orch:
    def __init__(self, prog: N.Program, fn: N.Function, kernel_ids: Dict[str, int]):
        self.prog = prog
        self.fn = fn
        self.kernel_ids = kernel_ids
        self.lines: List[str] = []
        self.tensors: Dict[str, str] = {}     # IR tensor var -> C++ expression
        self.scalars: Dict[str, str] = {}
        self.dims_read: set = set()     # dynamic dimensions of the parameters the generated code reads
        self.pending: Dict[str, N.OpCall] = {}   # created tensors not yet written
        self.task = 0
        self.sync_start = False
        self.expired: Dict[str, object] = {}   # tensors created in a pl.scope that has ended
        self.declared: set = set()             # values declared before the pl.scope that assigns them
        self.arg_names: Dict[str, List[str]] = {}   # kernel -> tensor arg names (argument dump file names)
        self.sites: List[dict] = []            # submission sites (set_site numbers), see site()

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    # ------------------------------------------------------------ expressions
    def scalar(self, e: N.Expr) -> str:
        if isinstance(e, N.Const):
            if isinstance(e.value, bool):
                return "true" if e.value else "false"
            if isinstance(e.value, float):
                if math.isnan(e.value):
                    return '__builtin_nanf("")'
                if math.isinf(e.value):
                    return "__builtin_inff()" if e.value > 0 else "(-__builtin_inff())"
                return f"{e.value!r}f"
            if isinstance(e.value, int) and not -2 ** 63 <= e.value < 2 ** 63:
                raise CompileError(f"the integer {e.value} does not fit a 64-bit orchestration scalar "
                                   f"({-2 ** 63} .. {2 ** 63 - 1})", e.loc)
            return str(e.value)
        if isinstance(e, N.Var):
            if e.name not in self.scalars:
                raise InternalError(f"orchestration: scalar {e.name!r} undefined")
            self.dims_read.add(e.name)
            return self.scalars[e.name]
        if isinstance(e, N.OpCall) and e.op in _CPP_OP:
            a, b = self.scalar(e.args[0]), self.scalar(e.args[1])
            cxx = _CPP_OP[e.op]
            return cxx.format(a=a, b=b) if "{a}" in cxx else f"({a} {cxx} {b})"
        if isinstance(e, N.OpCall) and e.op == "scalar.neg":
            return f"(-{self.scalar(e.args[0])})"
        if isinstance(e, N.OpCall) and e.op == "scalar.cast":
            return f"static_cast<{_CPP_SCALAR[e.type.dtype]}>({self.scalar(e.args[0])})"
        if isinstance(e, N.OpCall) and e.op == "system.task_invalid":
            return "PTO2_INVALID_TASK_ID"
        if isinstance(e, N.OpCall) and e.op in ("system.available_cluster_count", "system.available_aiv_count"):
            return f"rt_{e.op.split('.')[1]}()"
        if isinstance(e, N.OpCall) and e.op == "array.create":
            t = e.type
            fill = "PTO2_INVALID_TASK_ID" if t.dtype is DType.TASK_ID else "0"
            return f"rt_array_new<{_CPP_SCALAR[t.dtype]}, {t.extent}>({fill})"
        if isinstance(e, N.OpCall) and e.op == "array.get_element":
            return f"rt_array_get({self.scalar(e.args[0])}, {self.scalar(e.args[1])})"
        if isinstance(e, N.OpCall) and e.op == "array.update_element":
            return f"rt_array_set({self.scalar(e.args[0])}, {self.scalar(e.args[1])}, {self.scalar(e.args[2])})"
        if isinstance(e, N.OpCall) and e.op == "read":
            # a host read of the tensor's current contents (waits for its writers)
            return f"rt_tensor_read<{_CPP_SCALAR[e.type.dtype]}>({self.host_tensor(e.args[0], e)}, {self.indices(e.args[1])})"
        raise CompileError(f"expression not supported in orchestration code: {e!r}", e.loc)

    def indices(self, lst: N.ListExpr) -> str:
        return "{" + ", ".join(f"static_cast<int64_t>({self.scalar(i)})" for i in lst.items) + "}"

    def host_tensor(self, t: N.Expr, at: N.Expr) -> str:
        """The C++ tensor a host access or a predicate reads: a tensor some task has written."""
        if not isinstance(t, N.Var):
            raise InternalError("orchestration: host access to a non-variable tensor")
        if t.name in self.pending:
            raise CompileError(f"tensor {t.name!r} is created by pl.create_tensor and no task has written it yet (the "
                               f"runtime allocates it for its first writer): it has no contents to access", at.loc)
        self._check_alive(t.name, at)
        return self.tensors[t.name]

    def declare(self, depth, t, name: str, value: str) -> None:
        """``T name = value;``, or ``name = value;`` for a value declared before its pl.scope."""
        c = self.scalars[name] = cx(name)
        if name in self.declared:
            self.emit(depth, f"{c} = {value};")
        else:
            unused = "" if name in self.used else f" (void){c};"
            self.emit(depth, f"{ctype(t)} {c} = {value};{unused}")

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
            self.dims_read.add(node.id)
            return self.scalars[node.id]
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Mod: "%"}[type(node.op)]
            return f"({self._dim_ast(node.left)} {op} {self._dim_ast(node.right)})"
        raise CompileError(f"unsupported dimension {ast.unparse(node)!r}", self.fn.loc)

    # ------------------------------------------------------------ statements
    def body(self, stmts, depth, ctx: _Task):
        for s in stmts:
            self.stmt(s, depth, ctx)

    def stmt(self, s, depth, ctx: _Task):
        if isinstance(s, N.Assign):
            v = s.value
            tgt = s.targets[0]
            if isinstance(v, N.OpCall) and v.op == "tensor_view":
                # a created tensor pl.assemble made a window of its target (passes/fuse_assemble.py)
                self.tensors[tgt.name] = self.tensor_arg(v, f"view_{tgt.name}", depth, s)
                return
            if allocates(v):
                if v.attrs.get("zero_alloc"):     # read before written: zero-filled here (passes/directions.py)
                    self.create_info(tgt.name, v, depth)
                    self.emit(depth, f"TaskOutputTensors alloc_{tgt.name} = alloc_tensors({tgt.name}_ci);")
                    self.emit(depth, f"const ChipTensor& {tgt.name} = alloc_{tgt.name}.get_ref(0);")
                    self.tensors[tgt.name] = tgt.name
                else:
                    self.pending[tgt.name] = v
                return
            if isinstance(v, N.OpCall) and v.op == "system.task_id":
                self.bind_task_id(tgt, ctx, depth, s)
                return
            if isinstance(v, N.OpCall) and v.op == "system.task_dummy":
                t = self.task
                self.task += 1
                p = f"params_t{t}"
                self.emit(depth, f"CoreTaskArgs {p};   // pl.system.task_dummy")
                self.add_deps(p, v.args[0].items, depth, v)
                self.declare(depth, tgt.type, tgt.name, f"rt_submit_dummy_task({p}).task_id()")
                return
            if _is_value(tgt.type):
                self.declare(depth, tgt.type, tgt.name, self.scalar(v))
                return
            if isinstance(tgt.type, TensorType) and isinstance(v, N.Var) and v.name in self.tensors:
                self.tensors[tgt.name] = self.tensors[v.name]     # another name for the same tensor
                return
            raise CompileError(f"unsupported statement in orchestration: {tgt.name} = ...", s.loc)
        if isinstance(s, N.ExprStmt):
            if isinstance(s.expr, N.FuncCall):
                self.submit(s.expr, depth, ctx)
                return
            if isinstance(s.expr, N.OpCall) and s.expr.op == "write":
                t, idx, val = s.expr.args
                c = _CPP_SCALAR[t.type.dtype]
                self.emit(depth, f"rt_tensor_write<{c}>({self.host_tensor(t, s.expr)}, {self.indices(idx)}, "
                                 f"static_cast<{c}>({self.scalar(val)}));")
                return
            raise CompileError("an orchestration statement must submit a task (call a kernel)", s.loc)
        if isinstance(s, N.Return):
            for v in s.values:          # `return k(x, y)`: the kernel call is a task like any other
                if isinstance(v, N.FuncCall):
                    self.submit(v, depth, ctx)
            return
        if isinstance(s, (N.For, N.While)):
            self.check_values([r for r in s.results if not isinstance(r.type, TensorType)], "loop-carried values", s)
            for (p, init), r in zip(s.iter_args, s.results):   # the result variable carries the value
                if isinstance(r.type, TensorType):
                    # a tensor carried from one iteration to the next (`cur = nxt`): a handle the
                    # iterations reassign, the last one after the loop (pypto's rebind carry)
                    c = cx(r.name)
                    self.emit(depth, f"ChipTensor {c} = {self.tensor_arg(init, f'{c}_init', depth, s)}; (void){c};")
                    self.tensors[p.name] = self.tensors[r.name] = c
                    continue
                if p.name in self.used:
                    self.used.add(r.name)
                self.declare(depth, r.type, r.name, self.scalar(init))
                self.scalars[p.name] = cx(r.name)
            if isinstance(s, N.For):
                v = self.scalars[s.var.name] = cx(s.var.name)
                lo, hi, st = self.scalar(s.start), self.scalar(s.stop), self.scalar(s.step)
                self.emit(depth, f"for (int64_t {v} = {lo}; {v} < {hi}; {v} += {st}) {{")
                self.body(s.body, depth + 1, ctx)
            else:        # the test first, every round; after the loop the results hold what it saw last
                pre, cond, post = s.split()
                self.emit(depth, "while (true) {")
                self.body(pre, depth + 1, ctx)
                self.emit(depth + 1, f"if (!({self.scalar(cond.cond)})) break;")
                self.body(post, depth + 1, ctx)
            self.carry(depth + 1, s.results, s.yields)
            self.emit(depth, "}")
            return
        if isinstance(s, N.If):
            self.check_values(s.results, "values merged across an if", s)
            for r in s.results:
                c = cx(r.name)
                if r.name not in self.declared:
                    self.emit(depth, f"{ctype(r.type)} {c}{{}};" + ("" if r.name in self.used else f" (void){c};"))
                self.scalars[r.name] = c
            self.emit(depth, f"if ({self.scalar(s.cond)}) {{")
            self.body(s.then_body, depth + 1, ctx)
            self.carry(depth + 1, s.results, s.then_yields)
            if s.else_body or s.results:
                self.emit(depth, "} else {")
                self.body(s.else_body, depth + 1, ctx)
                self.carry(depth + 1, s.results, s.else_yields)
            self.emit(depth, "}")
            return
        if isinstance(s, N.Scope):
            if s.kind == "spmd":
                bn = self.scalar(s.attrs["block_num"])
                self.sync_start = bool(s.attrs.get("sync_start"))
                self.body(s.body, depth, replace(ctx, block_num=bn))
                self.sync_start = False
            elif s.kind == "scope":
                # a runtime scope: its tasks are released when it ends
                mode = s.attrs.get("mode", "auto")
                for v in _scope_values(s.body):      # values used after the scope: declared before its braces
                    if v.name not in self.declared:
                        self.declared.add(v.name)
                        init = " = PTO2_INVALID_TASK_ID" if v.type == ScalarType(DType.TASK_ID) else "{}"
                        c = cx(v.name)
                        unused = "" if v.name in self.used else f" (void){c};"
                        self.emit(depth, f"{ctype(v.type)} {c}{init};{unused}")
                # MANUAL: the runtime orders the scope's tasks among themselves by deps= only
                macro = "PTO2_SCOPE_MANUAL" if mode == "manual" else "PTO2_SCOPE"
                self.emit(depth, f"{macro}() {{   // pl.scope(mode={mode.upper()})")
                before = set(self.tensors)
                self.body(s.body, depth + 1, ctx)
                self.emit(depth, "}")
                for n in set(self.tensors) - before:   # the scope released them: they may not be used after
                    del self.tensors[n]
                    self.expired[n] = s.loc
            elif s.kind == "cluster":
                self.emit(depth, "// pl.cluster(): the tasks below are co-scheduled")
                self.body(s.body, depth, ctx)
            else:
                deps = s.attrs.get("deps")
                binds = any(isinstance(x, N.Assign) and isinstance(x.value, N.OpCall) and x.value.op == "system.task_id"
                            for x in s.body)
                inner = replace(ctx, deps=tuple(deps.items) if deps is not None else (),
                                predicate=s.attrs.get("predicate"), name_tasks=[] if binds else None, at_depth=depth)
                self.body(s.body, depth, inner)
            return
        raise CompileError(f"{type(s).__name__} is not supported in orchestration", s.loc)

    def check_values(self, results, what, s) -> None:
        for r in results:
            if not _is_value(r.type):
                raise CompileError(f"{what} are not supported in orchestration for {r.type} ({r.name!r}); scalars, "
                                   f"task ids and pl.array values are", s.loc)

    def carry(self, depth, results, yields) -> None:
        """The values a loop iteration or an if arm hands on: into the result variables (through
        temporaries, so that swapped values stay right).  A carried tensor hands on its handle."""
        def value(r, y):
            return self.tensors[y.name] if isinstance(r.type, TensorType) else self.scalar(y)

        def same(r, y):
            table = self.tensors if isinstance(r.type, TensorType) else self.scalars
            return isinstance(y, N.Var) and table.get(y.name) == cx(r.name)

        pairs = [(r, y) for r, y in zip(results, yields) if not same(r, y)]
        if not pairs:
            return
        if len(pairs) == 1:
            r, y = pairs[0]
            self.emit(depth, f"{cx(r.name)} = {value(r, y)};")
            return
        tmps = []
        for k, (r, y) in enumerate(pairs):
            tmps.append(f"{cx(r.name)}_next")
            kind = "ChipTensor" if isinstance(r.type, TensorType) else ctype(r.type)
            self.emit(depth, f"{kind} {tmps[-1]} = {value(r, y)};")
        for (r, _), tmp in zip(pairs, tmps):
            self.emit(depth, f"{cx(r.name)} = {tmp};")

    def bind_task_id(self, tgt: N.Var, ctx: _Task, depth, s) -> None:
        """``with pl.at(...) as tid`` / ``out, tid = pl.submit(...)``: the id of the block's task; a
        block of several tasks gets a dummy task joining them."""
        tasks = ctx.name_tasks
        if not tasks:
            raise CompileError(f"{tgt.name!r} names the task of a block that submits no task", s.loc)
        if any(d != ctx.at_depth for _, d in tasks):
            raise CompileError(f"{tgt.name!r} names the task of a block whose tasks are submitted in a loop or "
                               f"branch inside it; bind the task ids there (pl.submit, or a pl.at block per task)",
                               s.loc)
        if len(tasks) == 1:
            self.declare(depth, tgt.type, tgt.name, f"outs_t{tasks[0][0]}.task_id()")
            return
        t = self.task
        self.task += 1
        p = f"params_t{t}"
        self.emit(depth, f"CoreTaskArgs {p};   // the block's {len(tasks)} tasks, joined")
        for k, _ in tasks:
            self.emit(depth, f"{p}.add_dep(outs_t{k}.task_id());")
        self.declare(depth, tgt.type, tgt.name, f"rt_submit_dummy_task({p}).task_id()")

    def add_deps(self, p: str, deps, depth, at) -> None:
        """Explicit edges: each task id, and every element of each TASK_ID array (empty ids add none)."""
        for d in deps:
            if isinstance(d.type, ArrayType):
                self.emit(depth, f"{p}.add_deps({self.scalar(d)});")
            else:
                self.emit(depth, f"{p}.add_dep({self.scalar(d)});")

    def create_info(self, name: str, info: N.OpCall, depth) -> None:
        """``<name>_ci``: the TensorCreateInfo of a ``pl.create_tensor``."""
        shape = info.type.shape
        dims = ", ".join(self.dim(d) if isinstance(d, int) else f"static_cast<uint32_t>({self.dim(d)})"
                         for d in shape)
        self.emit(depth, f"uint32_t {name}_shapes[{len(shape)}] = {{{dims}}};")
        manual = ", true" if info.attrs.get("manual_dep") else ""   # pl.create_tensor(manual_dep=True)
        self.emit(depth, f"TensorCreateInfo {name}_ci({name}_shapes, {len(shape)}, "
                         f"DataType::{DATATYPE_CPP[info.type.dtype]}{manual});")

    def submit(self, call: N.FuncCall, depth, ctx: _Task):
        callee = self.prog.functions[call.callee]
        kinds = call.attrs["arg_kinds"]
        no_dep, dumps = set(call.attrs.get("no_dep", ())), set(call.attrs.get("dumps", ()))
        block_num = ctx.block_num
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
                self.create_info(a.name, info, depth)
        self.emit(depth, f"CoreTaskArgs {p};")
        tensor_index = {}
        for j, k in enumerate(kinds):
            if k != "scalar":
                tensor_index[j] = len(tensor_index)
        for j, (a, k) in enumerate(zip(call.args, kinds)):
            if j in no_dep:   # pl.no_dep: not tracked for this task (read-only ones say so: the race checker)
                ro = ", true" if k == "input" else ""
                self.emit(depth, f"{p}.add_no_dep({targs[j]}{ro});")
            elif k == "input":
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
        for j in sorted(dumps):
            if j in tensor_index:
                self.emit(depth, f"{p}.mark_dump({tensor_index[j]});")   # dumps= / pl.dump_tag
        names = [q.name for q, k in zip(callee.params, kinds) if k != "scalar"]
        if fifo and fifo.get("gm_pipe"):
            names.append("gm_pipe")
        self.arg_names.setdefault(call.callee, names)
        self.emit(depth, f"{p}.set_arg_names(argnames_{call.callee});")
        self.emit(depth, f"{p}.set_site({self.site(call, kinds, fifo)});")
        for a, k in zip(call.args, kinds):
            if k == "scalar":
                self.emit(depth, f"{p}.add_scalar(to_u64({self._scalar_arg(a, callee, call)}));")
        if block_num is not None:
            self.emit(depth, f"{p}.launch_spec.set_block_num({block_num});")
            if self.sync_start:
                self.emit(depth, f"{p}.launch_spec.set_sync_start(true);")
        self.add_deps(p, ctx.deps, depth, call)
        if ctx.predicate is not None:
            # run the task only when t[idx] OP literal holds when it becomes ready
            read, lit = ctx.predicate.args
            sym = SCALAR_OPERATORS[ctx.predicate.op].symbol
            self.emit(depth, f"{p}.set_predicate({self.host_tensor(read.args[0], ctx.predicate)}, "
                             f"{self.indices(read.args[1])}, {_CMP[sym]}, {lit.value});")
        needs_outs = bool(created) or ctx.name_tasks is not None
        prefix = f"TaskOutputTensors outs_t{t} = " if needs_outs else ""
        if callee.kind is N.FunctionType.Group:
            # a mixed AIC+AIV group: one task on a whole cluster, both AIV lanes run the AIV kernel
            aic, aiv = self.kernel_ids[callee.attrs["aic"]], self.kernel_ids[callee.attrs["aiv"]]
            # a hand-written group without dual_aiv_dispatch runs its AIV function on AIV0 only
            lane1 = aiv if (fifo or callee.attrs.get("fifo", {})).get("aiv_lanes", 2) == 2 else "INVALID_KERNEL_ID"
            self.emit(depth, f"MixedKernels mk_t{t} = {{{aic}, {aiv}, {lane1}}};")
            self.emit(depth, f"{prefix}rt_submit_task(mk_t{t}, {p});")
        elif callee.attrs.get("core_type") != "aic" and (callee.attrs.get("dual_lanes") or callee.attrs.get("split")):
            # a vector-only kernel with pl.split_aiv regions (pypto's dual_aiv_dispatch): both AIV
            # lanes of a cluster run it, each reading its own lane from get_subblock_idx()
            fid = self.kernel_ids[call.callee]
            self.emit(depth, f"MixedKernels mk_t{t} = {{INVALID_KERNEL_ID, {fid}, {fid}}};")
            self.emit(depth, f"{prefix}rt_submit_task(mk_t{t}, {p});")
        else:
            fid = self.kernel_ids[call.callee]
            submit = "rt_submit_aic_task" if callee.attrs.get("core_type") == "aic" else "rt_submit_aiv_task"
            self.emit(depth, f"{prefix}{submit}({fid}, {p});")
        for i, n in enumerate(created):
            self.emit(depth, f"const ChipTensor& {n} = outs_t{t}.get_ref({i});")
            self.tensors[n] = n
        if ctx.name_tasks is not None:
            ctx.name_tasks.append((t, depth))

    def site(self, call: N.FuncCall, kinds, fifo) -> int:
        """A new entry of the site table (``<orch>.sites.json``): where the DSL submits this task
        and the DSL names of its tensor arguments, for the race checker's reports."""
        loc = call.loc
        names = [_arg_text(a) for a, k in zip(call.args, kinds) if k != "scalar"]
        if fifo and fifo.get("gm_pipe"):
            names.append("gm_pipe")
        self.sites.append({"file": getattr(loc, "file", None), "line": getattr(loc, "line", 0),
                           "col": getattr(loc, "col", 0), "source_line": getattr(loc, "source_line", None),
                           "kernel": call.callee, "args": names})
        return len(self.sites) - 1

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
        n = len(a.attrs["shape"])
        # a dimension the window takes whole is the base tensor's own size (each tensor has its own sizes)
        dims = ", ".join(f"{self.tensors[base.name]}.shapes[{i}]" if isinstance(d, str) and d == bd
                         and isinstance(o, N.Const) and o.value == 0 else self._dims_text([d])
                         for i, (d, bd, o) in enumerate(zip(a.attrs["shape"], base.type.shape, offs.items)))
        starts = ", ".join(f"{o.value}u" if isinstance(o, N.Const) else f"static_cast<uint32_t>({self.scalar(o)})"
                           for o in offs.items)
        self.emit(depth, f"uint32_t {vname}_shapes[{n}] = {{{dims}}};")
        self.emit(depth, f"uint32_t {vname}_offs[{n}] = {{{starts}}};")
        self.emit(depth, f"ChipTensor {vname} = make_tensor_view({self.tensors[base.name]}, {vname}_shapes, "
                         f"{vname}_offs, {n});")
        if a.attrs.get("check_contiguous"):     # sizes known only now: a kernel reads its tensors row-major
            where = f"{a.loc.file.rsplit('/', 1)[-1]}:{a.loc.line}" if a.loc else self.fn.name
            self.emit(depth, f"rt_require_contiguous({vname}, \"the window of {base.name} at {where} is not "
                             f"contiguous at run time: it may only cut the leading dimension(s) and must keep every "
                             f"trailing dimension whole\");")
        for k, step in enumerate(a.attrs.get("then", ())):
            # pl.reshape / pl.transpose of the tensor in orchestration code: a view of the view
            prev, vname = vname, f"{vname}_v{k}"
            if step[0] == "reshape":
                self.emit(depth, f"uint32_t {vname}_shapes[{len(step[1])}] = {{{self._dims_text(step[1])}}};")
                where = f"{a.loc.file.rsplit('/', 1)[-1]}:{a.loc.line}" if a.loc else self.fn.name
                self.emit(depth, f"ChipTensor {vname} = make_tensor_reshape({prev}, {vname}_shapes, {len(step[1])}, "
                                 f"\"the reshaped view at {where}\");")
            else:
                self.emit(depth, f"ChipTensor {vname} = make_tensor_transpose({prev}, {step[1]}u, {step[2]}u);")
        return vname

    def _dims_text(self, shape) -> str:
        return ", ".join(f"{d}u" if isinstance(d, int) else f"static_cast<uint32_t>({self.dim(d)})" for d in shape)

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
        read = _names_read(fn.body)       # a parameter the body never reads (a window only declared) is (void)
        for i, p in enumerate(tensors):
            body.append(f"    const ChipTensor& ext_{p.name} = orch_args.tensor({i}).ref();")
            self.tensors[p.name] = f"ext_{p.name}"
            if p.name not in read:
                body.append(f"    (void)ext_{p.name};")
        for j, p in enumerate(scalars):
            ctype = _CPP_SCALAR[p.type.dtype]
            c = self.scalars[p.name] = cx(p.name)
            body.append(f"    {ctype} {c} = from_u64<{ctype}>(orch_args.scalar({j}));")
            if p.name not in read:
                body.append(f"    (void){c};")
        homes: Dict[str, list] = {}      # a dynamic dimension: the (tensor, axis) pairs that carry it
        for p in tensors:
            for d, dim in enumerate(p.type.shape):
                if isinstance(dim, str) and dim.isidentifier():
                    if dim not in homes:
                        c = self.scalars[dim] = cx(dim)
                        body.append(f"    int64_t {c} = static_cast<int64_t>(ext_{p.name}.shapes[{d}]);")
                        body.append(f"    (void){c};")
                    homes.setdefault(dim, []).append((p.name, d))
        self.used = _names_read(fn.body)
        self.body(fn.body, 2, _Task())
        for dim, where in homes.items():
            # each tensor has its own sizes (as in pypto); a dimension the code reads as a value is bound
            # from the first tensor carrying it, so the others must then agree
            (p0, d0), rest = where[0], where[1:]
            for pn, d in rest if dim in self.dims_read else ():
                body.append(f"    if (ext_{pn}.shapes[{d}] != ext_{p0}.shapes[{d0}]) rt_dim_mismatch(\"{dim}\", "
                            f"\"{p0}\", ext_{p0}.shapes[{d0}], \"{pn}\", ext_{pn}.shapes[{d}]);")
        out = [
            "// Orchestration generated by ptokit: one task per kernel call.",
            "#include <stdint.h>",
            '#include "pto_orchestration_api.h"',
            "",
            'extern "C" {',
            "",
        ]
        for k, names in self.arg_names.items():
            quoted = ", ".join(f'"{n}"' for n in names) or "nullptr"
            out.append(f"static const char* const argnames_{k}[] = {{{quoted}}};   // argument dump file names")
        if self.arg_names:
            out.append("")
        out += [
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


def _names_read(body) -> set:
    names = {e.name for _, e in N.iter_exprs(body) if isinstance(e, N.Var)}
    for s in N.walk_stmts(body):
        for y in (s.yields if isinstance(s, (N.For, N.While)) else s.then_yields + s.else_yields
                  if isinstance(s, N.If) else []):
            names.update(e.name for e in N.walk_expr(y) if isinstance(e, N.Var))
    return names


def _scope_values(body):
    """Values (scalars, task ids, arrays) a pl.scope's body assigns outside its loops and branches:
    C++ declarations inside the scope's braces would end with them."""
    for s in body:
        if isinstance(s, N.Assign) and _is_value(s.targets[0].type) and not (
                allocates(s.value)):
            yield s.targets[0]
        elif isinstance(s, (N.For, N.While, N.If)):
            yield from s.results
        elif isinstance(s, N.Scope):
            yield from _scope_values(s.body)


def _arg_text(a: N.Expr) -> str:
    """How a task's tensor argument reads in the DSL: ``x``, or ``x[0:32, 0:64]`` for a window
    with constant offsets (``x[...]`` otherwise)."""
    if isinstance(a, N.Var):
        return a.name
    if isinstance(a, N.OpCall) and a.op == "tensor_view" and isinstance(a.args[0], N.Var):
        base, offs = a.args
        parts = []
        if a.attrs.get("then"):
            return f"{base.name}[...]"
        for o, d in zip(offs.items, a.attrs["shape"]):
            if isinstance(o, N.Const) and isinstance(d, int):
                parts.append(f"{o.value}:{o.value + d}")
            else:
                return f"{base.name}[...]"
        return f"{base.name}[{', '.join(parts)}]"
    return ""


def emit_orchestration(prog: N.Program, fn: N.Function) -> str:
    return _Orch(prog, fn, fn.attrs["kernel_ids"]).generate()


def emit_orchestration_sites(prog: N.Program, fn: N.Function):
    """The orchestration C++ and its site table (a list, written as ``<orch>.sites.json``)."""
    o = _Orch(prog, fn, fn.attrs["kernel_ids"])
    return o.generate(), o.sites
