"""Host collectives: ``pld.tensor.allreduce(...)`` and friends called in a host function.

Each call becomes ``rt.collective(op, windows, {"chip": ..., "scalars": [...]})`` in host_orch.py:
the builtin chip program of that op and shape (``distributed/builtins.py``, written in the DSL,
compiled into ``next_levels/__builtin_<op>_<key>/``) dispatched to every rank after its earlier
dispatches.  The arguments are windows; the signal is an INT32 ``[W, 1]`` window whose row
count is checked against the world size when the call runs.  An omitted signal is a private window
sized for the compile's world size (``rt.private_signal``).  ``core_num > 1`` is a located "not
supported yet" error.
"""
from __future__ import annotations

import ast
from typing import Dict, List

from ..ir.comm import ReduceOp
from ..ir.types import DType
from .binder import Given, bind_call, parameter
from .host import Value
from .parser import parse_program

# op -> (positional parameter names, keyword-only parameters with defaults)
_SIGS = {
    "barrier": (("signal",), {}),
    "allreduce": (("target", "signal"), {"op": ReduceOp.Sum, "mode": "mesh", "core_num": 1}),
    "allgather": (("local", "target", "signal"), {}),
    "all_to_all": (("input", "target", "signal"), {}),
    "reduce_scatter": (("target", "signal"), {"op": ReduceOp.Sum}),
    "broadcast": (("target", "signal"), {"root": None}),
}
_FLOATS = (DType.FP32, DType.FP16)
# pypto's host-only short forms (pld.all_reduce, ...): the collective with its signal omitted (a
# private one), except pld.barrier, which takes its signal; all_reduce's nranks= is the ring's W
_SHORT = {
    "pld.all_reduce": ("allreduce", (("target",), {"op": ReduceOp.Sum, "mode": "mesh", "nranks": None})),
    "pld.all_gather": ("allgather", (("local", "target"), {})),
    "pld.all_to_all": ("all_to_all", (("input", "target"), {})),
    "pld.reduce_scatter": ("reduce_scatter", (("target",), {"op": ReduceOp.Sum})),
    "pld.broadcast": ("broadcast", (("target",), {"root": None})),
    "pld.barrier": ("barrier", (("signal",), {})),
}
SHORT_NAMES = tuple(_SHORT)


def _bind(reader, op: str, call: ast.Call, sig=None, name=None) -> Dict[str, ast.expr]:
    """The arguments written (the one binder's rules); one left out is absent, its default applied
    by the caller."""
    pos, kw = sig or _SIGS[op]
    params = [parameter(n, None) for n in pos] + [parameter(n, d, keyword_only=True) for n, d in kw.items()]
    bound = bind_call(name or f"pld.tensor.{op}", params, call, reader.err)
    return {k: v for k, v in bound.items() if not isinstance(v, Given)}


def _bind_short(reader, full: str, call: ast.Call) -> tuple:
    """(op, bound arguments) of a short form; nranks= checked against the ring mode and the world size."""
    op, sig = _SHORT[full]
    bound = _bind(reader, op, call, sig, full)
    if op == "barrier" and bound.get("signal") is None:
        raise reader.err("pld.barrier takes the signal window to synchronise on (pld.barrier(signal))", call)
    if op == "allreduce":
        ring = _static(reader, bound, "mode", "mesh") == "ring"
        node = bound.pop("nranks", None)
        if node is None and ring:
            raise reader.err("pld.all_reduce(mode='ring') needs nranks=, the static world size", call)
        if node is not None:
            n = reader._static(node, "nranks")
            if not ring:
                raise reader.err("pld.all_reduce nranks= is only used with mode='ring'", node)
            if not isinstance(n, int) or isinstance(n, bool) or n < 1 \
                    or (reader.world_size is not None and n != reader.world_size):
                raise reader.err(f"pld.all_reduce nranks= is the static world size"
                                 + (f" ({reader.world_size})" if reader.world_size is not None else "")
                                 + f", got {n!r}", node)
    return op, bound


def _window(reader, bound, name: str, op: str, call):
    node = bound.get(name)
    if node is None:
        raise reader.err(f"pld.tensor.{op}: its {name!r} argument is missing", call)
    v = reader.expr(node)
    if v.kind != "window":
        raise reader.err(f"pld.tensor.{op} {name} must be a window (pld.window(...)); a host tensor lives on one "
                         f"side only, got a {v.kind}", node)
    return v, node


def _private_signal(reader, op: str, ring: bool, call) -> tuple:
    """An omitted signal: a private window that ptokit allocates when the call runs (``rt.private_signal``:
    zero-filled, one per call site, reused by every run of that site in one host call), sized for the W
    of the compile's DistributedConfig -- [W, 1] (mesh), [2(W-1)+1, W] (ring)."""
    w = reader.world_size
    if w is None:
        raise reader.err(f"pld.tensor.{op}: an omitted signal is sized for the world size, which this host "
                         f"function is read without; pass an INT32 [W, 1] signal window", call)
    if ring and w < 2:
        raise reader.err("pld.tensor.allreduce mode='ring' needs W >= 2 ranks", call)
    shape = (2 * (w - 1) + 1, w) if ring else (w, 1)
    site = sum(1 for line in reader.lines if "rt.private_signal(" in line)
    name = f"_signal{site}"
    reader.emit(f"{name} = rt.private_signal({site}, {list(shape)!r})")
    return Value(name, "window", shape, DType.INT32), w


def _signal(reader, bound, op, call) -> tuple:
    """The signal window and the world size it is made for (its rows; a ring signal's columns)."""
    ring = op == "allreduce" and _static(reader, bound, "mode", "mesh") == "ring"
    if bound.get("signal") is None:
        return _private_signal(reader, op, ring, call)
    v, node = _window(reader, bound, "signal", op, call)
    if ring:
        w = v.shape[1] if len(v.shape) == 2 else None
        if v.dtype is not DType.INT32 or w is None or w < 2 or v.shape[0] != 2 * (w - 1) + 1:
            raise reader.err(f"pld.tensor.allreduce mode='ring' signal must be an INT32 [2(W-1)+1, W] window "
                             f"(W >= 2), got {v.dtype.name} {list(v.shape)}", node)
        return v, w
    if v.dtype is not DType.INT32 or len(v.shape) not in (1, 2) or v.shape[1:] not in ((), (1,)):
        raise reader.err(f"pld.tensor.{op} signal must be an INT32 [W, 1] (or [W]) window, got {v.dtype.name} "
                         f"{list(v.shape)}", node)
    if len(v.shape) == 1:                      # a [W] signal: the builtin chips take the [W, 1] view of its slot
        name = f"{v.text}_2d"
        reader.emit(f"{name} = rt.window({v.text}.slot, [{v.shape[0]}, 1], 'INT32')")
        v = Value(name, "window", (v.shape[0], 1), DType.INT32)
    return v, v.shape[0]


def _data(reader, v, node, op, rows_one: bool):
    if len(v.shape) != 2 or (rows_one and v.shape[0] != 1):
        raise reader.err(f"pld.tensor.{op} needs a {'[1, n]' if rows_one else '[W, n]'} window, got "
                         f"{list(v.shape)}", node)


def _static(reader, bound, name, default):
    node = bound.get(name)
    return default if node is None else reader._static(node, name)


def collective_call(reader, full: str, call: ast.Call):
    """Emit one host collective and give the window it returns (its target; barrier's signal); None when
    ``full`` is not one (``full``: a marker's name, or the op-table name ``tensor.<op>`` of a collective that
    kernels can use too)."""
    if full in _SHORT:
        op, bound = _bind_short(reader, full, call)
    else:
        if full.startswith("tensor."):
            full = "pld." + full
        if not full.startswith("pld.tensor."):
            return None
        op = full[len("pld.tensor."):]
        if op not in _SIGS:
            return None
        bound = _bind(reader, op, call)
    sig, rows = _signal(reader, bound, op, call)
    spec: dict = {"rows": rows}
    args: List[str] = []
    scalars: List[str] = []
    if op == "barrier":
        args = [sig.text]
    elif op in ("allreduce", "reduce_scatter", "broadcast"):
        t, node = _window(reader, bound, "target", op, call)
        _data(reader, t, node, op, rows_one=op != "reduce_scatter")
        spec.update(n=t.shape[1], dtype=t.dtype, t_rows=t.shape[0])
        args = [t.text, sig.text]
        if op != "broadcast":
            rop = _static(reader, bound, "op", ReduceOp.Sum)
            if not isinstance(rop, ReduceOp):
                raise reader.err(f"pld.tensor.{op} op must be a pld.ReduceOp, got {rop!r}", bound["op"])
            if op == "reduce_scatter" and rop is not ReduceOp.Sum:
                raise reader.err("pld.tensor.reduce_scatter reduces with ReduceOp.Sum only", bound["op"])
            if op == "allreduce":
                if t.dtype not in _FLOATS:
                    raise reader.err(f"pld.tensor.allreduce reduces FP32 or FP16, got {t.dtype.name}", node)
                mode = _static(reader, bound, "mode", "mesh")
                if mode not in ("mesh", "ring"):
                    raise reader.err(f"pld.tensor.allreduce mode must be 'mesh' or 'ring', got {mode!r}",
                                     bound["mode"])
                if mode == "ring":
                    if rop is not ReduceOp.Sum or t.dtype is not DType.FP32:
                        raise reader.err("pld.tensor.allreduce mode='ring' reduces FP32 with ReduceOp.Sum only",
                                         bound.get("op", node))
                    if t.shape[1] % rows:
                        raise reader.err(f"pld.tensor.allreduce mode='ring' splits the data into W = {rows} equal "
                                         f"chunks: {t.shape[1]} elements do not", node)
                    spec["mode"] = "ring"
                cores = _static(reader, bound, "core_num", 1)
                if cores != 1:
                    raise reader.err(f"pld.tensor.allreduce core_num={cores!r} is not supported yet", bound["core_num"])
            spec["op"] = rop.name
        else:
            if bound.get("root") is None:
                raise reader.err("pld.tensor.broadcast needs root= (the rank whose slice every rank gets)", call)
            root = reader.expr(bound["root"])
            if root.kind != "scalar":
                raise reader.err(f"pld.tensor.broadcast root is a rank number, got a {root.kind}", bound["root"])
            reader.emit(f"if not 0 <= {root.text} < world_size:")
            reader.emit(f"    raise ValueError('pld.tensor.broadcast root=%r is out of range: the program runs on "
                        f"%d rank(s)' % ({root.text}, world_size))")
            scalars = [root.text]
    else:                                       # allgather, all_to_all
        first = "local" if op == "allgather" else "input"
        a, anode = _window(reader, bound, first, op, call)
        t, tnode = _window(reader, bound, "target", op, call)
        _data(reader, a, anode, op, rows_one=op == "allgather")
        _data(reader, t, tnode, op, rows_one=False)
        if a.text == t.text:
            raise reader.err(f"pld.tensor.{op} needs distinct buffers for {first} and target", tnode)
        if a.dtype != t.dtype or a.shape[1] != t.shape[1] or (op == "all_to_all" and a.shape != t.shape):
            raise reader.err(f"pld.tensor.{op}: {first} {list(a.shape)} {a.dtype.name} does not match target "
                             f"{list(t.shape)} {t.dtype.name}", tnode)
        spec.update(n=t.shape[1], dtype=t.dtype, t_rows=t.shape[0])
        args = [a.text, t.text, sig.text]
        reader.emit(f"if {t.shape[0]} != world_size:")
        reader.emit(f"    raise ValueError('pld.tensor.{op}: target has {t.shape[0]} rows, but the program runs on "
                    f"%d rank(s)' % world_size)")
    reader.emit(f"if {rows} != world_size:")
    reader.emit(f"    raise ValueError('pld.tensor.{op}: the signal is made for {rows} ranks, but the program runs "
                f"on %d rank(s)' % world_size)")
    key = "_".join(str(x) for x in ([spec.get("dtype").name.lower()] if "dtype" in spec else [])
                   + ([f"{spec['t_rows']}x{spec['n']}"] if "n" in spec else [])
                   + ([spec["op"].lower()] if "op" in spec else []) + ([spec["mode"]] if "mode" in spec else [])
                   + [f"s{rows}"])
    chip = f"__builtin_{op}_{key}"
    spec["key"] = key
    if all(c[1] != chip for c in reader.collectives):
        reader.collectives.append((op, chip, spec))
    text = f"{{'chip': {chip!r}" + (f", 'scalars': [{', '.join(scalars)}]" if scalars else "") + "}"
    reader.emit(f"rt.collective({op!r}, [{', '.join(args)}], {text})")
    if op != "barrier":
        return t
    return sig if bound.get("signal") is None else reader.expr(bound["signal"])   # as written ([W] too)


def builtin_program(op: str, spec: dict):
    """The IR program of the builtin chip of ``op`` for ``spec`` (shape, dtype, op, signal rows)."""
    from .distributed import builtins as B      # lazy: DSL code of ptokit.language (imports this package)
    rows = spec["rows"]
    if op == "barrier":
        cls = B.barrier_program(rows)
    elif op == "allreduce":
        cls = B.allreduce_program(spec["n"], spec["dtype"], spec["op"], rows, spec.get("mode", "mesh"))
    elif op == "allgather":
        cls = B.allgather_program(spec["n"], spec["dtype"], rows, spec["t_rows"])
    elif op == "broadcast":
        cls = B.broadcast_program(spec["n"], spec["dtype"], rows)
    elif op == "reduce_scatter":
        cls = B.reduce_scatter_program(spec["n"], spec["dtype"], rows, spec["t_rows"])
    else:
        cls = B.all_to_all_program(spec["n"], spec["dtype"], rows, spec["t_rows"])
    return parse_program(cls)


def collective_entries(collectives) -> List[dict]:
    """DISTRIBUTED["collectives"] rows for the builtin chips of a host program."""
    return [{"op": op, "key": spec["key"], "chip": chip} for op, chip, spec in collectives]


__all__ = ["collective_call", "builtin_program", "collective_entries"]
