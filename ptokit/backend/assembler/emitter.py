"""Lower a checked AST to C++ against the PTO tile API (docs/tile-api.md)."""
from __future__ import annotations

from typing import Dict, List, Optional

from ...errors import AssemblerError
from ...targets import default_pipe_slots
from ...pto import dialect
from ...pto.ast import Block, Func, Module, Op
from ...pto.cxx_names import cxx_ident
from ...pto.lexer import SourceText
from ...pto.types import SCALARS, PartitionViewType, PtrType, ScalarType, TileBufType, VectorType
from . import events, prefetch
from .calls import tile_call
from .estimate import est_line, fifo_est_line
from .fusion import GmRun, Run, find_gm_run, scan_run, tile_reads
from .sema import ValueInfo, float_literal
from .sync import SyncState

PURE_ARITH = dialect.ARITH_OPS
CUBE_LOCS = {"mat", "left", "right", "acc", "bias"}
LAYOUTS = {"nd": "ND", "dn": "DN", "nz": "NZ", "mx_a_zz": "MX_A_ZZ", "mx_b_nn": "MX_B_NN"}


def _int_lit(v: int) -> str:
    if -(2 ** 31) <= v < 2 ** 31:
        return str(v)
    return f"{v}LL"


def _cxx_scalar(ty) -> str:
    return SCALARS[ty.name][0]


def _fold_int(op: str, a: int, b: int) -> Optional[int]:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%", "floordiv", "ceildiv"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # truncating
        if op == "/":
            return q
        if op == "%":
            return a - q * b
        if op == "floordiv":
            return a // b
        return -((-a) // b)
    if op == "max":
        return max(a, b)
    if op == "min":
        return min(a, b)
    return None


class FuncEmitter:
    def __init__(self, f: Func, src: SourceText, insert_sync: bool, planned: Dict[int, int]):
        self.f = f
        self.src = src
        self.insert_sync = insert_sync
        self.planned = planned
        self.lines: List[str] = []
        self.counter = 0
        self.views: Dict[int, dict] = {}     # id(ValueInfo of a tensor_view) -> metadata
        self.live: set = set()
        self.last_loc = None
        self.sync = SyncState()               # tiles' accesses no other pipe has waited for yet (sync.py)
        self.loop_logs: List[list] = []       # per enclosing loop: the (pipe, reads, writes) its body issued
        self.span: Dict[int, tuple] = {}      # id(tile ValueInfo) -> (memory space, address or None, bytes)
        self.event = 0
        self.reserved: Dict[tuple, int] = {}  # (func, buffer name) -> base, for import_reserved_buffer
        self.pipes: List[dict] = []           # initialized cross-core pipes of this function
        self.alias: Dict[int, ValueInfo] = {}  # id(treshape result) -> its source
        self.arch = "a2a3"                    # --pto-arch: the default slot counts of a pipe
        self.compat: Optional[str] = None     # "0.27": ptoas 0.27's output where it differs
        self.fuse = True                      # fused runs of row-local instructions (fusion.py)
        self.reads = None                     # fusion.tile_reads of the function, when first needed

    # ------------------------------------------------------------------ helpers
    def err(self, message: str, op: Op) -> AssemblerError:
        line, col = op.extra.get("name_tok", (op.line, op.col))
        return self.src.error(message, line, col)

    def new_name(self, vi: ValueInfo) -> str:
        self.counter += 1
        vi.cxx = f"v{self.counter}"
        return vi.cxx

    def ex(self, use_or_vi) -> str:
        vi = getattr(use_or_vi, "value", None) or use_or_vi
        if vi.const is not None:
            c = vi.const
            if isinstance(c, bool):
                return "true" if c else "false"
            if isinstance(c, int):
                return _int_lit(c)
            return float_literal(c, _cxx_scalar(vi.type))
        if not vi.cxx:
            raise AssemblerError(f"internal: value %{vi.name} has no C++ name")
        return vi.cxx

    def const_of(self, use) -> Optional[int]:
        vi = use.value
        return vi.const if isinstance(vi.const, int) and not isinstance(vi.const, bool) else None

    def out(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    # ------------------------------------------------------------------ liveness of pure ops
    def compute_live(self) -> None:
        pure_ops = []

        def walk(block: Block):
            for op in block.ops:
                if op.name in PURE_ARITH or op.name == "pto.partition_view":
                    pure_ops.append(op)
                elif op.name == "pto.make_tensor_view":
                    # lowered through its base pointer and strides; the shape only documents the
                    # view, so values computed for it alone are dead (and would trip -Wunused)
                    shape_uses = {id(u) for u in op.group("shape").uses}
                    for u in op.operands:
                        if id(u) not in shape_uses:
                            self.live.add(id(u.value))
                else:
                    for u in op.operands:
                        self.live.add(id(u.value))
                for r in op.regions:
                    walk(r)

        if self.f.body is not None:
            walk(self.f.body)
        changed = True
        while changed:
            changed = False
            for op in pure_ops:
                if any(id(r) in self.live for r in op.extra.get("result_infos", [])):
                    for u in op.operands:
                        if id(u.value) not in self.live:
                            self.live.add(id(u.value))
                            changed = True

    # ------------------------------------------------------------------ function
    def kernel_kind(self) -> str:
        kk = self.f.attrs.get("pto.kernel_kind")
        if kk is not None and isinstance(kk.value, tuple) and kk.value[1]:
            kind = kk.value[1].strip()
            if kind in ("vector", "cube"):
                return kind
            raise self.src.error(f"unknown kernel kind {kk.text} (expected vector or cube)", self.f.line, self.f.col)
        # not given: a function that touches a cube-side buffer is a cube kernel
        def walk(block: Block) -> bool:
            for op in block.ops:
                for t in op.result_types:
                    if isinstance(t, TileBufType) and t.loc in CUBE_LOCS:
                        return True
                if any(walk(r) for r in op.regions):
                    return True
            return False

        return "cube" if self.f.body is not None and walk(self.f.body) else "vector"

    def emit(self) -> List[str]:
        f = self.f
        params = []
        for a in f.args:
            vi = a.value
            name = self.new_name(vi)
            if isinstance(a.type, PtrType):
                params.append(f"__gm__ {SCALARS[a.type.elem][0]}* {name}")
            else:
                params.append(f"{_cxx_scalar(a.type)} {name}")
        if f.body is None:
            return []
        self.compute_live()
        kind = self.kernel_kind()
        self.lines.append(f"__global__ AICORE void {cxx_ident(f.name)}({', '.join(params)}) {{")
        self.lines.append("#if defined(__DAV_VEC__)" if kind == "vector" else "#if defined(__DAV_CUBE__)")
        # ptoas 0.27 on a5 runs the AIV body of a kernel with a cross-core pipe on subblock 0 only,
        # pipe construction included (docs/mixed-kernels.md, "Which lanes take part")
        lane0 = (self.compat == "0.27" and self.arch == "a5" and kind == "vector"
                 and self._has_op(f.body, {"pto.aiv_initialize_pipe"}))
        depth = 2 if lane0 else 1
        if lane0:
            self.out(1, "if (get_subblockid() == 0) {")
        self.emit_block(f.body, depth)
        if self.insert_sync:
            self.out(depth, "pipe_barrier(PIPE_ALL);")
        if lane0:
            self.out(1, "}")
        self.lines.append("#endif")
        self.lines.append("}")
        return self.lines

    def emit_block(self, block: Block, depth: int) -> None:
        ops = block.ops
        k = 0
        while k < len(ops):
            found = None
            if self.fuse and ops[k].name == "pto.tload":
                if self.reads is None:
                    self.reads = tile_reads(self.f.body, self.planned)
                gm = find_gm_run(ops, k, self.planned, self.reads)
                if gm is not None:
                    run, k = gm
                    self.emit_gm_run(run, depth)
                    continue
            run, end = scan_run(ops, k, self.planned) if self.fuse and ops[k].name.startswith("pto.") \
                else (None, k + 1)
            if run is None:
                for op in ops[k:end]:          # no run starts before ``end`` (fusion.scan_run)
                    self.emit_op(op, depth)
            else:
                self.emit_run(run, depth)
            k = end

    def emit_run(self, run: Run, depth: int) -> None:
        """A fused run (fusion.py): the fused loop over row chunks, and the instructions one after the
        other where the build turns fusion off (-DPTO_CPU_NO_FUSION) or the debug NaN fill is on."""
        tile_ops = [op for op in run.ops if op.name != "pto.alloc_tile" and op.name != "arith.constant"]
        allocs = [op for op in run.ops if op.name == "pto.alloc_tile"]
        self.loc_comment(tile_ops[0], depth)
        pipes = {}
        if self.insert_sync:     # every wait the run's instructions need, before the run
            for op in tile_ops:
                spec = op.extra.get("row") or dialect.PTO_OPS[op.name]
                pipes[id(op)] = pipe = self.op_pipe(op, spec)
                self.sync_before(op, pipe, [u for u in op.group("ins").uses if isinstance(u.value.type, TileBufType)],
                                 depth, [u for u in op.group("outs").uses if isinstance(u.value.type, TileBufType)])
        self.out(depth, f"// fused: {len(tile_ops)} instructions over {run.rows} rows in chunks of {run.chunk}")
        for op in allocs:
            self.emit_alloc(op, depth, assign=False)
        self.out(0, "#if defined(PTO_CPU_FUSION) && !defined(PTO_CPU_NO_FUSION)")
        self.out(depth, "if (pto::cpu::fusion_on()) {")
        for op in allocs:
            self.out(depth + 1, self.alloc_assign(op))
        self.counter += 1
        r0 = f"v{self.counter}"
        self.out(depth + 1, f"for (int {r0} = 0; {r0} < {run.rows}; {r0} += {run.chunk}) {{")
        chunk_names: Dict[int, str] = {}
        for vi in run.row_uses.values():
            if id(vi) not in chunk_names:
                self.counter += 1
                chunk_names[id(vi)] = f"v{self.counter}"
                self.out(depth + 2, f"auto {chunk_names[id(vi)]} = pto::cpu::row_chunk<{run.chunk}>({vi.cxx}, {r0});")

        def ex_chunk(u):
            if id(u) in run.row_uses:
                return chunk_names[id(run.row_uses[id(u)])]
            return self.ex(u)

        for op in tile_ops:
            spec, ins, outs = self._tile_operands(op)
            self.out(depth + 2, tile_call(spec, op, ins, outs, ex_chunk))
        self.out(depth + 1, "}")
        self.out(depth, "} else")
        self.out(0, "#endif")
        self.out(depth, "{")
        for op in run.ops:
            if op.name == "pto.alloc_tile":
                self.out(depth + 1, self.alloc_assign(op))
            elif op.name != "arith.constant":
                spec, ins, outs = self._tile_operands(op)
                self.out(depth + 1, tile_call(spec, op, ins, outs, self.ex))
        self.out(depth, "}")
        self.emit_estimates(tile_ops, depth)
        if self.insert_sync:
            for op in tile_ops:
                self.issued(pipes[id(op)], [u for u in op.group("ins").uses if isinstance(u.value.type, TileBufType)],
                            [u for u in op.group("outs").uses if isinstance(u.value.type, TileBufType)])

    def emit_gm_run(self, run: GmRun, depth: int) -> None:
        """A fused run that absorbed its loads and stores (fusion.GmRun): its scalar ops and views
        first; then, where every window can stand for its tile (pto::cpu::gm_direct) and no written
        window overlaps another, the chunk loop on views of the windows; else the ops in order."""
        for op in run.hoisted:
            self.emit_op(op, depth)
        allocs = [op for op in run.ops if op.name == "pto.alloc_tile"]
        self.loc_comment(run.compute[0], depth)
        self.out(depth, f"// fused: {len(run.compute)} instructions over {run.rows} rows in chunks of "
                        f"{run.chunk}, {len(run.loads)} loads and {len(run.stores)} stores absorbed")
        for op in allocs:
            self.emit_alloc(op, depth, assign=False)
        self.counter += 1
        done = f"v{self.counter}"
        self.out(depth, f"bool {done} = false;")
        self.out(0, "#if defined(PTO_CPU_FUSION) && !defined(PTO_CPU_NO_FUSION)")
        io = [(op, op.group("outs").uses[0], op.group("ins").uses[0], "TLOAD", "false") for op in run.loads] + \
             [(op, op.group("ins").uses[0], op.group("outs").uses[0], "TSTORE", "true") for op in run.stores]
        conds = " && ".join(f"pto::cpu::gm_direct(\"{n}\", {self.ex(t)}, {self.ex(g)}, {w})" for _, t, g, n, w in io)
        self.out(depth, f"if (pto::cpu::fusion_on() && {conds}) {{")
        gm_names: Dict[int, str] = {}
        for op, t, g, _, _ in io:
            self.counter += 1
            gm_names[id(op)] = f"v{self.counter}"
            self.out(depth + 1, f"auto {gm_names[id(op)]} = pto::cpu::gm_tile({self.ex(t)}, {self.ex(g)});")
        spans = [f"pto::cpu::gm_span({gm_names[id(op)]})" for op in run.stores] + \
                [f"pto::cpu::gm_span({gm_names[id(op)]})" for op in run.loads]
        self.out(depth + 1, f"if (pto::cpu::gm_disjoint({{{', '.join(spans)}}}, {len(run.stores)})) {{")
        d = depth + 2
        self.out(d, f"{done} = true;")
        for op in allocs:
            self.out(d, self.alloc_assign(op))
        self.counter += 1
        r0 = f"v{self.counter}"
        self.out(d, f"for (int {r0} = 0; {r0} < {run.rows}; {r0} += {run.chunk}) {{")
        chunk_names: Dict[object, str] = {}

        def chunk_of(u) -> str:
            key = ("gm", id(run.backing[id(u)])) if id(u) in run.backing else ("tile", id(run.row_uses[id(u)]))
            if key not in chunk_names:
                self.counter += 1
                chunk_names[key] = f"v{self.counter}"
                src = gm_names[key[1]] if key[0] == "gm" else run.row_uses[id(u)].cxx
                self.out(d + 1, f"auto {chunk_names[key]} = pto::cpu::row_chunk<{run.chunk}>({src}, {r0});")
            return chunk_names[key]

        calls = []
        for op in run.compute:
            spec, ins, outs = self._tile_operands(op)
            calls.append(tile_call(spec, op, ins, outs,
                                   lambda u: chunk_of(u) if id(u) in run.row_uses else self.ex(u)))
        for c in calls:
            self.out(d + 1, c)
        self.out(d, "}")
        self.out(depth + 1, "}")
        self.out(depth, "}")
        self.out(0, "#endif")
        self.out(depth, f"if (!{done}) {{")
        for op in run.ops:
            if op.name == "pto.alloc_tile":
                self.out(depth + 1, self.alloc_assign(op))
            elif id(op) not in {id(h) for h in run.hoisted}:
                self.emit_tile_op(op, dialect.PTO_OPS[op.name], depth + 1, estimate=False)
        self.out(depth, "}")
        hoisted = {id(h) for h in run.hoisted}
        self.emit_estimates([op for op in run.ops if op.name.startswith("pto.t") and id(op) not in hoisted], depth)

    def emit_estimates(self, ops, depth: int) -> None:
        """The estimate lines of ``ops`` (tile ops, in order; docs/estimate.md): the costs are a2a3's."""
        if self.arch != "a2a3":
            return
        for op in ops:
            if dialect.PTO_OPS[op.name].form != "dps":
                continue
            spec, ins, outs = self._tile_operands(op)
            line = est_line(op, spec, ins, outs, self.op_pipe(op, spec), self.ex)
            if line is not None:
                self.out(depth, line)

    def _tile_operands(self, op: Op):
        spec = op.extra.get("row") or dialect.PTO_OPS[op.name]
        ins = op.group("ins").uses
        if spec.optional and not spec.pass_optional:
            ins = ins[:len(spec.ins) - spec.optional]
        return spec, ins, op.group("outs").uses

    def loc_comment(self, op: Op, depth: int) -> None:
        if op.srcloc and (op.srcloc[0], op.srcloc[1]) != self.last_loc:
            self.last_loc = (op.srcloc[0], op.srcloc[1])
            self.out(depth, f"// {op.srcloc[0]}:{op.srcloc[1]}")

    # ------------------------------------------------------------------ ops
    def emit_op(self, op: Op, depth: int) -> None:
        name = op.name
        if name in dialect.RETURN_OPS or name in ("scf.yield", "scf.condition"):
            return  # yields are emitted by their parent
        results = op.extra.get("result_infos", [])
        if name == "arith.constant" and isinstance(op.result_types[0], VectorType):
            if id(results[0]) in self.live:
                self.emit_vector_constant(op, results[0], depth)
            return
        if name == "arith.constant":
            return  # constants are inlined at their uses
        if name in PURE_ARITH:
            if not any(id(r) in self.live for r in results):
                return
            self.emit_arith(op, depth)
            return
        if name == "pto.make_tensor_view":
            self.views[id(results[0])] = {"op": op}
            return
        if name == "pto.partition_view":
            if id(results[0]) not in self.live:
                return
            self.loc_comment(op, depth)
            self.emit_partition(op, depth)
            return
        self.loc_comment(op, depth)
        spec = dialect.PTO_OPS.get(name)
        if name == "scf.for":
            self.emit_for(op, depth)
        elif name == "scf.if":
            self.emit_if(op, depth)
        elif name == "scf.while":
            self.emit_while(op, depth)
        elif spec is None:  # pragma: no cover - sema accepted only ops of the dialect
            raise self.err(f"cannot lower '{name}'", op)
        elif spec.form == "alloc":
            self.emit_alloc(op, depth)
        elif spec.form == "dps":
            self.emit_tile_op(op, spec, depth)
        elif spec.form == "view":
            self.emit_view(op, spec, depth)
        elif spec.form == "plain":
            uses = [self.ex(u) for u in op.operands]
            self.out(depth, f"{uses[0]}{spec.cxx}({', '.join(uses[1:])});")
        elif spec.form.startswith("array_"):
            self.emit_local_array(op, spec, depth)
        elif spec.form in dialect.ELEMENT_FORMS:
            uses = [self.ex(u) for u in op.operands]
            if spec.form == "store_scalar":       # value, ptr, index -> STORE_SCALAR(ptr, index, value)
                self.out(depth, f"{spec.cxx}({uses[1]}, {uses[2]}, {uses[0]});")
            else:
                res = op.extra["result_infos"][0]
                name = self.new_name(res)
                self.out(depth, f"{_cxx_scalar(op.result_types[0])} {name} = {spec.cxx}({', '.join(uses)});"
                         + ("" if res.uses else f" (void){name};"))
        elif spec.form in dialect.CALL_FORMS:
            uses = [self.ex(u) for u in op.operands]
            if not op.result_types:
                self.out(depth, f"{spec.cxx}({', '.join(uses)});")
            else:
                res = op.extra["result_infos"][0]
                name = self.new_name(res)
                rt = op.result_types[0]
                cty = f"__gm__ {SCALARS[rt.elem][0]}*" if isinstance(rt, PtrType) else _cxx_scalar(rt)
                self.out(depth, f"{cty} {name} = {spec.cxx}({', '.join(uses)});" + ("" if res.uses else f" (void){name};"))
        elif spec.form in dialect.FIFO_FORMS:
            self.emit_cross_core(op, depth)
        elif spec.form == "event":
            events.emit(self, op, depth)
        elif spec.form == "prefetch":
            prefetch.emit(self, op, depth)
        else:  # pragma: no cover
            raise self.err(f"cannot lower '{name}'", op)

    def emit_arith(self, op: Op, depth: int) -> None:
        name = op.name
        res = op.extra["result_infos"][0]
        ty = op.result_types[0]
        cty = _cxx_scalar(ty)
        ops = op.operands
        # constant folding of integer index arithmetic (keeps static shapes static)
        if name in dialect.ARITH_INT_BINARY and all(self.const_of(u) is not None for u in ops) and ty.name != "i1":
            v = _fold_int(dialect.ARITH_INT_BINARY[name], self.const_of(ops[0]), self.const_of(ops[1]))
            if v is not None:
                res.const = v
                return
        if name in ("arith.index_cast", "arith.extsi", "arith.index_castui", "arith.extui", dialect.UNSIGNED_BRIDGE) \
                and self.const_of(ops[0]) is not None:
            res.const = self.const_of(ops[0])
            return
        if name in dialect.ARITH_INT_BINARY or name in dialect.ARITH_FLOAT_BINARY:
            sym = dialect.ARITH_INT_BINARY.get(name) or dialect.ARITH_FLOAT_BINARY[name]
            a, b = self.ex(ops[0]), self.ex(ops[1])
            bpos = self.const_of(ops[1]) is not None and self.const_of(ops[1]) > 0
            if sym == "floordiv" and bpos:
                expr = f"{a} / {b} - ((({a} % {b}) != 0) && ({a} < 0))"
            elif sym == "ceildiv" and bpos:
                expr = f"{a} / {b} + ((({a} % {b}) != 0) && ({a} > 0))"
            elif sym == "floordiv":
                expr = f"{a} / {b} - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0)))"
            elif sym == "ceildiv":
                expr = f"{a} / {b} + ((({a} % {b}) != 0) && (({a} < 0) == ({b} < 0)))"
            elif sym in ("max", "min"):
                cmp = ">" if sym == "max" else "<"
                if name.endswith("ui"):
                    ut = "u" + cty if cty.startswith("int") else cty
                    expr = f"(static_cast<{ut}>({a}) {cmp} static_cast<{ut}>({b}) ? {a} : {b})"
                else:
                    expr = f"({a} {cmp} {b} ? {a} : {b})"
            elif name in ("arith.divui", "arith.remui", "arith.shrui") and cty.startswith("int"):
                ut = "u" + cty
                expr = f"static_cast<{cty}>(static_cast<{ut}>({a}) {sym} static_cast<{ut}>({b}))"
            elif cty in ("half", "bfloat16_t"):
                expr = f"{cty}(static_cast<float>({a}) {sym} static_cast<float>({b}))"
            else:
                expr = f"{a} {sym} {b}"
        elif name == "arith.negf":
            a = self.ex(ops[0])
            expr = f"-{a}" if cty not in ("half", "bfloat16_t") else f"{cty}(-static_cast<float>({a}))"
        elif name in ("arith.cmpi", "arith.cmpf"):
            pred = op.extra["pred"]
            sym = (dialect.CMPI_PREDS if name == "arith.cmpi" else dialect.CMPF_PREDS)[pred]
            a, b = self.ex(ops[0]), self.ex(ops[1])
            if name == "arith.cmpi" and pred.startswith("u"):
                ut = "u" + _cxx_scalar(ops[0].value.type) if _cxx_scalar(ops[0].value.type).startswith("int") \
                    else _cxx_scalar(ops[0].value.type)
                expr = f"static_cast<{ut}>({a}) {sym} static_cast<{ut}>({b})"
            else:
                expr = f"{a} {sym} {b}"
        elif name == "arith.select":
            expr = f"{self.ex(ops[0])} ? {self.ex(ops[1])} : {self.ex(ops[2])}"
        elif name in dialect.ARITH_CASTS:
            expr = f"static_cast<{cty}>({self.ex(ops[0])})"
        else:  # pragma: no cover
            raise self.err(f"cannot lower '{name}'", op)
        self.loc_comment(op, depth)
        self.out(depth, f"{cty} {self.new_name(res)} = {expr};")

    # ------------------------------------------------------------------ views and tiles
    def emit_partition(self, op: Op, depth: int) -> None:
        res = op.extra["result_infos"][0]
        pt: PartitionViewType = op.result_types[0]
        src_use = [c for c in op.clauses if c.kind == "operand"][0].uses[0]
        view = self.views.get(id(src_use.value))
        if view is None:  # pragma: no cover - sema guarantees a tensor_view source
            raise self.err("partition_view source is not a pto.make_tensor_view result", op)
        vop: Op = view["op"]
        base = [c for c in vop.clauses if c.kind == "operand"][0].uses[0]
        vstrides = vop.group("strides").uses
        offsets = op.group("offsets").uses
        sizes = op.group("sizes").uses
        rank = len(pt.shape)
        elem = SCALARS[pt.elem][0]
        layout = "ND"
        la = vop.attrs.get("layout")
        if la is not None and isinstance(la.value, tuple) and la.value[1]:
            layout = LAYOUTS.get(la.value[1].strip(), None)
            if layout is None:
                raise self.err(f"unknown tensor layout {la.text}", vop)
        # extents and strides: (static int | None, runtime expression)
        ext = []
        for k in range(rank):
            if pt.shape[k] is not None:
                ext.append((pt.shape[k], str(pt.shape[k])))
            elif self.const_of(sizes[k]) is not None:
                ext.append((self.const_of(sizes[k]), str(self.const_of(sizes[k]))))
            else:
                ext.append((None, self.ex(sizes[k])))
        strd = []
        for k in range(rank):
            c = self.const_of(vstrides[k])
            strd.append((c, str(c)) if c is not None else (None, self.ex(vstrides[k])))
        npad = 5 - rank
        if npad:
            statics = [e[0] * s[0] if e[0] is not None and s[0] is not None else None for e, s in zip(ext, strd)]
            if all(x is not None for x in statics):
                outer = (max(statics), str(max(statics)))
            else:
                outer = (None, f"{ext[0][1]} * {strd[0][1]}")
            ext = [(1, "1")] * npad + ext
            strd = [outer] * npad + strd
        shape_t = "pto::Shape<" + ", ".join("-1" if e[0] is None else str(e[0]) for e in ext) + ">"
        stride_t = "pto::Stride<" + ", ".join("-1" if s[0] is None else str(s[0]) for s in strd) + ">"
        shape_args = "" if all(e[0] is not None for e in ext) else ", ".join(e[1] for e in ext)
        stride_args = "" if all(s[0] is not None for s in strd) else ", ".join(s[1] for s in strd)
        # element offset of the partition origin
        terms = []
        const_off = 0
        if layout in ("MX_A_ZZ", "MX_B_NN"):
            # MX scales in boxes (tile library, GmView): a window starts on a box, at
            # (row box) * 16G + (col box) * 32 for ZZ, (col box) * 16G + (row box) * 32 for NN
            oc = [self.const_of(o) for o in offsets]
            sc = strd[npad][0]
            if rank != 2 or None in oc or sc is None:
                raise self.err("a partition of an MX scale view needs constant offsets and a 2-D static view", op)
            if layout == "MX_A_ZZ":
                const_off = (oc[0] // 16) * sc + (oc[1] // 2) * 32
            else:
                const_off = (oc[1] // 16) * sc + (oc[0] // 2) * 32
            offsets = []
        for k in range(len(offsets)):
            oc, sc = self.const_of(offsets[k]), strd[npad + k][0]
            if oc is not None and sc is not None:
                const_off += oc * sc
            elif oc == 0:
                continue
            else:
                o = self.ex(offsets[k]) if oc is None else str(oc)
                s = strd[npad + k][1]
                terms.append(o if s == "1" else f"{o} * {s}")
        if const_off:
            terms.append(_int_lit(const_off))
        ptr = self.ex(base)
        ptr_expr = ptr if not terms else f"{ptr} + ({' + '.join(terms)})" if len(terms) > 1 else f"{ptr} + {terms[0]}"
        shape_v = f"v{self.counter + 1}"
        self.counter += 1
        stride_v = f"v{self.counter + 1}"
        self.counter += 1
        self.out(depth, f"{shape_t} {shape_v} = {shape_t}({shape_args});")
        self.out(depth, f"{stride_t} {stride_v} = {stride_t}({stride_args});")
        gt = f"GlobalTensor<{elem}, {shape_t}, {stride_t}, pto::Layout::{layout}>"
        name = self.new_name(res)
        self.out(depth, f"{gt} {name} =")
        self.out(depth + 2, f"{gt}({ptr_expr}, {shape_v}, {stride_v});")
        self.emit_gm_origin(name, base, depth)

    def emit_gm_origin(self, gt_name: str, base, depth: int) -> None:
        """CPU simulator only: record which kernel parameter the view derives from, so TLOAD/TSTORE
        check its accesses against that tensor argument's bounds (docs/simulator.md)."""
        if not any(a.value is base.value for a in self.f.args):
            return
        self.lines.append("#if defined(PTO_CPU_GM_ORIGIN)")
        self.out(depth, f"{gt_name}.origin_ = {self.ex(base)};")
        self.lines.append("#endif")

    def emit_alloc(self, op: Op, depth: int, assign: bool = True) -> None:
        res = op.extra["result_infos"][0]
        tt: TileBufType = op.result_types[0]
        t = tt.cxx()
        name = self.new_name(res)
        vr = op.group("valid_row")
        vc = op.group("valid_col")
        dyn = []
        if tt.v_row is None:
            dyn.append(self.ex(vr.uses[0]))
        if tt.v_col is None:
            dyn.append(self.ex(vc.uses[0]))
        self.out(depth, f"{t} {name} =")
        self.out(depth + 2, f"{t}({', '.join(dyn)});")
        addr = op.group("addr")
        at = addr.uses[0].value.const if addr is not None else self.planned.get(id(op))
        self.span[id(res)] = (tt.loc, at if isinstance(at, int) and not isinstance(at, bool) else None, tt.nbytes)
        if assign:
            self.out(depth, self.alloc_assign(op))

    def alloc_assign(self, op: Op) -> str:
        """``TASSIGN(tile, addr);`` of a ``pto.alloc_tile`` whose tile is declared."""
        addr = op.group("addr")
        if addr is not None:
            a = self.ex(addr.uses[0])
        else:
            a = _int_lit(self.planned[id(op)])
        return f"TASSIGN({op.extra['result_infos'][0].cxx}, {a});"

    # ------------------------------------------------------------------ tile ops and sync
    def op_pipe(self, op: Op, spec: dialect.OpSpec) -> str:
        ins = op.group("ins").uses
        outs = op.group("outs").uses
        if op.name == "pto.tstore" and ins[0].value.type.loc == "acc":
            return "FIX"
        if op.name in ("pto.tmov", "pto.textract"):
            src_loc, dst_loc = ins[0].value.type.loc, outs[0].value.type.loc
            if src_loc == "acc":
                return "FIX"
            if src_loc == "vec" and dst_loc == "vec":
                return "V"
            return "MTE1"
        return spec.pipe

    def root(self, vi: ValueInfo) -> ValueInfo:
        """The tile whose bytes a value names (a pto.treshape result names its source's)."""
        while id(vi) in self.alias:
            vi = self.alias[id(vi)]
        return vi

    def overlaps(self, a: int, b: int) -> bool:
        """Tiles ``a`` and ``b`` (ids of root values) may share bytes: the same tile, or two at known
        addresses of one memory space whose byte ranges meet."""
        if a == b:
            return True
        sa, sb = self.span.get(a), self.span.get(b)
        if sa is None or sb is None or sa[0] != sb[0] or sa[1] is None or sb[1] is None:
            return False
        return sa[1] < sb[1] + sb[2] and sb[1] < sa[1] + sa[2]

    def sync_before(self, op: Op, pipe: str, reads, depth: int, writes=()) -> None:
        """The flags ``op`` on ``pipe`` needs first: a tile it reads that another pipe wrote (RAW), and
        a tile it writes whose bytes another pipe still reads (WAR: the planner reuses a buffer once
        its last reader is issued) or writes (WAW); each pipe pair that needs ordering gets its flag,
        a flag already making another one unneeded (sync.py)."""
        self.flags_for(pipe, [id(self.root(u.value)) for u in reads], [id(self.root(u.value)) for u in writes],
                       depth)

    def flags_for(self, pipe: str, r_ids, w_ids, depth: int) -> None:
        """Emit (and record) the flags an access by ``pipe`` of these tiles (ids) needs now."""
        for src in self.sync.flags_needed(pipe, r_ids, w_ids, self.overlaps):
            self.emit_flag(src, pipe, depth)

    def emit_flag(self, src: str, pipe: str, depth: int) -> None:
        """``set_flag`` + ``wait_flag`` from ``src`` to ``pipe`` (already recorded in ``self.sync``)."""
        for log in self.loop_logs:
            log.append(("flag", src, pipe))
        ev = f"EVENT_ID{self.event % 8}"
        self.event += 1
        self.out(depth, f"set_flag(PIPE_{src}, PIPE_{pipe}, {ev});")
        self.out(depth, f"wait_flag(PIPE_{src}, PIPE_{pipe}, {ev});")

    def issued(self, pipe: str, reads, writes) -> None:
        """Record what an instruction on ``pipe`` read and wrote, for the flags of later ones."""
        r_ids = tuple(id(self.root(u.value)) for u in reads)
        w_ids = tuple(id(self.root(u.value)) for u in writes)
        self.sync.issued(pipe, r_ids, w_ids)
        for log in self.loop_logs:
            log.append(("op", pipe, r_ids, w_ids))

    def emit_view(self, op: Op, spec: dialect.OpSpec, depth: int) -> None:
        """``%d = pto.treshape %s : T1 -> T2``: a tile of type T2 over the same bytes (no pipe, no copy)."""
        res = op.extra["result_infos"][0]
        src = op.operands[0]
        t = op.result_types[0].cxx()
        name = self.new_name(res)
        self.alias[id(res)] = src.value
        self.out(depth, f"{t} {name};")
        self.out(depth, f"{spec.cxx}({name}, {self.ex(src)});")

    def emit_vector_constant(self, op: Op, res: ValueInfo, depth: int) -> None:
        """``dense<0> : vector<4xi16>``: tmrgsort's executed counts, a variable the op writes."""
        ty = op.result_types[0]
        if (ty.shape, ty.elem) != ((4,), "i16") or op.extra["literal"] != "dense<0>":
            raise self.err(f"the built-in assembler lowers only the tmrgsort executed-count vector "
                           f"(dense<0> : vector<4xi16>), not {op.extra['literal']} : {ty}", op)
        self.loc_comment(op, depth)
        self.out(depth, f"MrgSortExecutedNumList {self.new_name(res)}{{}};")

    def emit_tile_op(self, op: Op, spec: dialect.OpSpec, depth: int, estimate: bool = True) -> None:
        spec = op.extra.get("row", spec)   # the variant sema matched (pto.tgather's mask form, ...)
        ins = op.group("ins").uses
        if spec.optional and not spec.pass_optional:
            ins = ins[:len(spec.ins) - spec.optional]
        outs = op.group("outs").uses
        pipe = self.op_pipe(op, spec)
        reads = [u for u in list(ins) + (list(outs) if op.name.endswith(".acc") else [])
                 if isinstance(u.value.type, TileBufType)]
        writes = [u for u in outs if isinstance(u.value.type, TileBufType)]
        if self.insert_sync:
            self.sync_before(op, pipe, reads, depth, writes)
        self.out(depth, tile_call(spec, op, ins, outs, self.ex))
        if estimate:
            self.emit_estimates([op], depth)
        if self.insert_sync:
            self.issued(pipe, reads, writes)

    # ------------------------------------------------------------------ cross-core FIFO
    _FIFO_DIR = {  # op -> (direction bit, kernel kind that may use it)
        "pto.tpush_to_aiv": (1, "cube"), "pto.tpop_from_aic": (1, "vector"), "pto.tfree_from_aic": (1, "vector"),
        "pto.tpush_to_aic": (2, "vector"), "pto.tpop_from_aiv": (2, "cube"), "pto.tfree_from_aiv": (2, "cube"),
    }
    _SPLIT = {0: "TileSplitAxis::TILE_NO_SPLIT", 1: "TileSplitAxis::TILE_UP_DOWN", 2: "TileSplitAxis::TILE_LEFT_RIGHT"}
    _DIRS = {1: "Direction::DIR_C2V", 2: "Direction::DIR_V2C", 3: "Direction::DIR_BOTH"}

    def lane_name(self) -> Optional[str]:
        for a in self.f.args:
            if a.name == "__pypto_spmd_subblock_idx":
                return a.value.cxx
        return None

    def _has_untracked(self, block: Block) -> bool:
        """The block holds an op whose tile accesses the flag state does not record: the cross-core FIFO
        and event ops, which order the pipes they use themselves."""
        for op in block.ops:
            spec = dialect.PTO_OPS.get(op.name)
            if spec is not None and (spec.form in dialect.FIFO_FORMS or spec.form == "event"):
                return True
            if any(self._has_untracked(r) for r in op.regions):
                return True
        return False

    def _has_op(self, block: Block, names) -> bool:
        for op in block.ops:
            if op.name in names or any(self._has_op(r, names) for r in op.regions):
                return True
        return False

    def emit_cross_core(self, op: Op, depth: int) -> None:
        name = op.name
        kind = self.kernel_kind()
        res = op.extra.get("result_infos", [])
        if name == "pto.reserve_buffer":
            res[0].const = int(op.attrs["base"].value)
            self.reserved[(self.f.name, op.attrs["name"].value)] = res[0].const
            return
        if name == "pto.import_reserved_buffer":
            peer = op.attrs["peer_func"].value[1]
            key = (peer, op.attrs["name"].value)
            if key not in self.reserved:
                raise self.err(f"no pto.reserve_buffer named \"{key[1]}\" in function @{peer} of this module", op)
            res[0].const = self.reserved[key]
            return
        if name.endswith("_initialize_pipe"):
            want = "cube" if name == "pto.aic_initialize_pipe" else "vector"
            if kind != want:
                raise self.err(f"'{name}' belongs in a {want} function, but @{self.f.name} is a {kind} kernel", op)
            mask = op.attrs["dir_mask"].value
            size = op.attrs["slot_size"].value
            # no slot_num: the assembler chooses (8 one way, 4 per direction; a5 keeps 2 locally)
            num, local = default_pipe_slots(self.arch, mask)
            if "slot_num" in op.attrs:
                num = local = op.attrs["slot_num"].value
            if "local_slot_num" in op.attrs:
                local = op.attrs["local_slot_num"].value
            # the FlagID: the pipe's id (hand-written pipes), else the pipes' order in the function
            flag = op.attrs["id"].value if "id" in op.attrs else len(self.pipes)
            if any(p["id"] == flag for p in self.pipes):
                raise self.err(f"'{name}': pipe id {flag} is initialized twice in @{self.f.name}", op)
            g = [c for c in op.clauses if c.kind == "group"][0]
            ops = dict(zip(g.keys, g.uses))
            gm = f"(__gm__ void*){self.ex(ops['gm_slot_buffer'])}" if "gm_slot_buffer" in ops else "nullptr"
            ptype = f"TPipe<{flag}, {self._DIRS[mask]}, {size}, {num}, {local}, true>"
            self.counter += 1
            pv = f"v{self.counter}"
            self.out(depth, f"{ptype} {pv}({gm}, static_cast<uint32_t>({self.ex(ops['c2v_consumer_buf'])}), "
                            f"static_cast<uint32_t>({self.ex(ops['v2c_consumer_buf'])}));")
            self.out(depth, f"(void){pv};")
            pipe = {"mask": mask, "var": pv, "size": size, "num": local, "slot": None, "id": flag,
                    "c2v": self.ex(ops["c2v_consumer_buf"]), "v2c": self.ex(ops["v2c_consumer_buf"])}
            pops = {"pto.tpop_from_aic"} if kind == "vector" else {"pto.tpop_from_aiv"}
            if self.f.body is not None and self._has_op(self.f.body, pops) and mask & (1 if kind == "vector" else 2):
                pipe["slot"] = f"{pv}_slot"
                self.out(depth, f"uint32_t {pipe['slot']} = 0;")
            self.pipes.append(pipe)
            return
        bit, want = self._FIFO_DIR[name]
        if kind != want:
            raise self.err(f"'{name}' belongs in a {want} function, but @{self.f.name} is a {kind} kernel", op)
        want_id = op.attrs["id"].value if "id" in op.attrs else None
        pipe = next((p for p in self.pipes if p["mask"] & bit and want_id in (None, p["id"])), None)
        if pipe is None:
            d = "C2V" if bit == 1 else "V2C"
            which = f" and id = {want_id}" if want_id is not None else ""
            raise self.err(f"'{name}' needs a {d} pipe: no pto.{'aic' if kind == 'cube' else 'aiv'}_initialize_pipe "
                           f"with dir_mask {bit} or 3{which} comes before it", op)
        split = self._SPLIT[op.attrs["split"].value]
        p = pipe["var"]
        lane = self.lane_name() if kind == "vector" else None
        if name.startswith("pto.tfree"):
            self.out(depth, f"TFREE<decltype({p}), {split}>({p});")
            return
        if name.startswith("pto.tpush"):
            t = self.ex(op.operands[0])
            est = fifo_est_line("push", op.operands[0].value.type, t, self.arch)
            if est is not None:
                self.out(depth, est)
            self._lane_call(depth, f"TPUSH<decltype({p}), decltype({t}), {split}>({p}, {t}", lane)
            return
        # pop: the tile lives in the consumer's slot buffer, slots taken round-robin
        tt: TileBufType = op.arrow_types[0]
        tn = self.new_name(res[0])
        dyn = []
        given = [self.ex(u) for c in op.clauses if c.kind == "group" for u in c.uses]   # run-time valid sizes
        if tt.v_row is None:
            dyn.append(given[0] if given else str(tt.rows))
        if tt.v_col is None:
            dyn.append(given[-1] if given else str(tt.cols))
        base = pipe["c2v"] if bit == 1 else pipe["v2c"]
        self.out(depth, f"{tt.cxx()} {tn} =")
        self.out(depth + 2, f"{tt.cxx()}({', '.join(dyn)});")
        slot = pipe["slot"]
        self.out(depth, f"TASSIGN({tn}, {base} + {slot} * {pipe['size']}u);")
        self.out(depth, f"{slot} = ({slot} + 1u) % {pipe['num']}u;")
        self._lane_call(depth, f"TPOP<decltype({p}), decltype({tn}), {split}>({p}, {tn}", lane)
        est = fifo_est_line("pop", tt, tn, self.arch)
        if est is not None:
            self.out(depth, est)

    def _lane_call(self, depth: int, head: str, lane: Optional[str]) -> None:
        """Split-endpoint rule: device builds pass the lane, __CPU_SIM keeps the two-argument form."""
        if lane is None:
            self.out(depth, head + ");")
            return
        self.out(0, "#if defined(__CPU_SIM) || defined(__COSTMODEL)")
        self.out(depth, head + ");")
        self.out(0, "#else")
        self.out(depth, head + f", {lane});")
        self.out(0, "#endif")

    # ------------------------------------------------------------------ control flow
    def emit_for(self, op: Op, depth: int) -> None:
        lo, hi, st = op.operands[:3]
        iv: ValueInfo = op.extra["iv_info"]
        ivt = _cxx_scalar(iv.type)
        iters: List[ValueInfo] = op.extra["iter_infos"]
        results: List[ValueInfo] = op.extra["result_infos"]
        for it, init in zip(iters, op.operands[3:]):
            self.declare_mutable(it, self.ex(init), depth)
        for r, it in zip(results, iters):
            r.cxx = it.cxx
        ivn = self.new_name(iv)
        step = self.ex(st)
        inc = f"++{ivn}" if step == "1" else f"{ivn} += {step}"
        self.out(depth, f"for ({ivt} {ivn} = {self.ex(lo)}; {ivn} < {self.ex(hi)}; {inc}) {{")
        saved = self.sync.copy()
        self.loop_logs.append([])
        body = op.regions[0]
        self.emit_block(body, depth + 1)
        if body.ops and body.ops[-1].name == "scf.yield":
            self.emit_yield(body.ops[-1], iters, depth + 1)
        self.loop_carried(self.loop_logs.pop(), depth + 1, [body])
        if not self._runs_once(lo, hi):       # a loop that may run no iteration leaves saved pending
            self.sync.merge(saved)
        self.out(depth, "}")
        for it, r in zip(iters, results):
            if it.uses == 0 and r.uses == 0:
                self.out(depth, f"(void){it.cxx};")

    def _runs_once(self, lo, hi) -> bool:
        """The loop's bounds are constants and it runs at least once."""
        a, b = self.const_of(lo), self.const_of(hi)
        return a is not None and b is not None and a < b

    def loop_carried(self, log: list, depth: int, regions) -> None:
        """The flags at the end of a loop body that the next iteration needs. The body's own flags were
        found from the state before the loop; the next iteration starts from what this one left
        pending instead. Its accesses and flags (``log``) are replayed on a copy of that state, and
        each flag an access still needs there is emitted here, at the end of the body, and recorded.
        No ``pipe_barrier(PIPE_ALL)``: pipes stay free to overlap across iterations where nothing is
        shared, as with the real tool's loop-carried flags."""
        if not self.insert_sync or not log:
            return
        if any(self._has_untracked(r) for r in regions):
            # the cross-core FIFO and event ops order the pipes they use themselves, outside what this
            # state records: such a body keeps the full barrier
            self.out(depth, "pipe_barrier(PIPE_ALL);")
            self.sync.clear()
            return
        nxt = self.sync.copy()
        for entry in log:
            if entry[0] == "flag":
                nxt.flag(entry[1], entry[2])
                continue
            _, pipe, r_ids, w_ids = entry
            for src in nxt.flags_needed(pipe, r_ids, w_ids, self.overlaps):
                self.sync.flag(src, pipe)
                self.emit_flag(src, pipe, depth)
            nxt.issued(pipe, r_ids, w_ids)

    def emit_while(self, op: Op, depth: int) -> None:
        """``while (true) { condition region; if (!c) break; body }``: the values the condition passes
        on are the loop's results and the body's arguments."""
        iters: List[ValueInfo] = op.extra["iter_infos"]
        after_args: List[ValueInfo] = op.extra["after_infos"]
        results: List[ValueInfo] = op.extra["result_infos"]
        before, after = op.regions
        cond = before.ops[-1]
        passed = cond.operands[1:]
        for it, init in zip(iters, op.operands):
            self.declare_mutable(it, self.ex(init), depth)
        same = len(passed) == len(iters) and all(u.value is it for u, it in zip(passed, iters))
        for r, it in zip(results, iters):
            if same:
                r.cxx = it.cxx
            else:
                self.declare_mutable(r, None, depth)
        for a, r in zip(after_args, results):
            a.cxx = r.cxx
        self.out(depth, "while (true) {")
        self.loop_logs.append([])
        self.emit_block(before, depth + 1)
        if not same:
            self.emit_yield(cond, results, depth + 1, first=1)
        self.out(depth + 1, f"if (!({self.ex(cond.operands[0])})) break;")
        at_exit = self.sync.copy()          # the loop leaves here, after the condition region
        self.emit_block(after, depth + 1)
        if after.ops and after.ops[-1].name == "scf.yield":
            self.emit_yield(after.ops[-1], iters, depth + 1)
        self.loop_carried(self.loop_logs.pop(), depth + 1, [before, after])
        # the loop leaves after a condition region: in the first iteration (at_exit) or after a body
        at_exit.merge(self.sync)
        self.sync = at_exit
        self.out(depth, "}")
        for it, r, a in zip(iters, results, after_args):
            if it.uses == 0 and r.uses == 0 and a.uses == 0:
                self.out(depth, f"(void){it.cxx};")

    def emit_local_array(self, op: Op, spec, depth: int) -> None:
        """``T a[N] = {};``, ``T v = a[slot];``, ``a[slot] = v;`` with the index checked (LOCAL_ARRAY_SLOT)."""
        if spec.form == "array_declare":
            res = op.extra["result_infos"][0]
            t = op.result_types[0]
            name = self.new_name(res)
            self.out(depth, f"{_cxx_scalar(ScalarType(t.elem))} {name}[{t.extent}] = {{}};"
                     + ("" if res.uses else f" (void){name};"))
            return
        arr, idx = op.operands[0], op.operands[1]
        slot = f"{self.ex(arr)}[pto::cpu::{spec.cxx}({self.ex(idx)}, {arr.value.type.extent})]"
        if spec.form == "array_get":
            res = op.extra["result_infos"][0]
            name = self.new_name(res)
            self.out(depth, f"{_cxx_scalar(op.result_types[0])} {name} = {slot};"
                     + ("" if res.uses else f" (void){name};"))
        else:
            self.out(depth, f"{slot} = {self.ex(op.operands[2])};")

    def _has_tile_ops(self, block: Block) -> bool:
        for op in block.ops:
            spec = dialect.PTO_OPS.get(op.name)
            if spec is not None and spec.form in ("dps", "view"):
                return True
            if any(self._has_tile_ops(r) for r in op.regions):
                return True
        return False

    def declare_mutable(self, vi: ValueInfo, init: Optional[str], depth: int) -> None:
        name = self.new_name(vi)
        ty = vi.type
        if isinstance(ty, ScalarType):
            self.out(depth, f"{_cxx_scalar(ty)} {name} = {init if init is not None else '{}'};")
        elif isinstance(ty, TileBufType):
            if init is None:
                raise AssemblerError("scf.if results of tile type are not supported by the built-in assembler")
            self.out(depth, f"{ty.cxx()} {name} = {init};")
        else:
            raise AssemblerError(f"loop-carried values of type {ty} are not supported by the built-in assembler")

    def emit_yield(self, op: Op, targets: List[ValueInfo], depth: int, first: int = 0) -> None:
        vals = [self.ex(u) for u in op.operands[first:]]
        pairs = [(t, v) for t, v in zip(targets, vals) if t.cxx != v]
        if len(pairs) > 1:
            # parallel assignment: read every yielded value before writing any target
            tmps = []
            for t, v in pairs:
                self.counter += 1
                tmp = f"v{self.counter}"
                tmps.append(tmp)
                self.out(depth, f"auto {tmp} = {v};")
            for (t, _), tmp in zip(pairs, tmps):
                self.out(depth, f"{t.cxx} = {tmp};")
        else:
            for t, v in pairs:
                self.out(depth, f"{t.cxx} = {v};")

    def emit_if(self, op: Op, depth: int) -> None:
        results: List[ValueInfo] = op.extra["result_infos"]
        for r in results:
            self.declare_mutable(r, None, depth)
        self.out(depth, f"if ({self.ex(op.operands[0])}) {{")
        saved = self.sync.copy()
        for i, region in enumerate(op.regions):
            if i:
                self.out(depth, "} else {")
                branch = self.sync
                self.sync = saved.copy()
            self.emit_block(region, depth + 1)
            if region.ops and region.ops[-1].name == "scf.yield":
                self.emit_yield(region.ops[-1], results, depth + 1)
            if i:
                self.sync.merge(branch)
        if len(op.regions) == 1:         # the arm may not run: what was unsynced before still is
            self.sync.merge(saved)
        self.out(depth, "}")
        for r in results:
            if r.uses == 0:
                self.out(depth, f"(void){r.cxx};")


def emit_module(mod: Module, src: SourceText, insert_sync: bool, plans: Dict[str, Dict[int, int]],
                arch: str = "a2a3", compat: Optional[str] = None, fuse: bool = True) -> str:
    out = ['#include "pto/pto-inst.hpp"', "using namespace pto;", ""]
    reserved = _reserved_buffers(mod)
    for f in mod.funcs:
        fe = FuncEmitter(f, src, insert_sync, plans.get(f.name, {}))
        fe.reserved = reserved
        fe.arch, fe.compat, fe.fuse = arch, compat, fuse
        lines = fe.emit()
        if lines:
            out.extend(lines)
            out.append("")
    if any("PTO_EST(" in line for line in out):   # a tile library without estimates (the vendor's) skips them
        out[3:3] = ["#ifndef PTO_EST  // estimated device time (docs/estimate.md)", "#define PTO_EST(...)", "#endif",
                    ""]
    return "\n".join(out)


def _reserved_buffers(mod: Module) -> Dict[tuple, int]:
    """(function, name) -> base of every pto.reserve_buffer in the module (import_reserved_buffer looks here)."""
    found: Dict[tuple, int] = {}

    def walk(fname: str, block: Block):
        for op in block.ops:
            if op.name == "pto.reserve_buffer" and "base" in op.attrs and "name" in op.attrs:
                found[(fname, op.attrs["name"].value)] = int(op.attrs["base"].value)
            for r in op.regions:
                walk(fname, r)

    for f in mod.funcs:
        if f.body is not None:
            walk(f.name, f.body)
    return found
