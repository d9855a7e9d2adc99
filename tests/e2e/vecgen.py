"""Test kernels made from a table of ops: one kernel loads three input tiles (with a partial valid
region), applies every op of the table to them and stores each result in its own output tensor, so
one build checks many ops against numpy.

In an op's expression ``a``, ``b``, ``c`` are the input tiles, ``d`` is ``b`` loaded with the smaller
valid region SMALL (for the partial ops), ``t`` a scratch tile shaped like them and ``m8`` a UINT8
[1, 32] scratch tile; the kernel source is written to a file (a DSL program is
parsed from its source) named after its text, so equal tables share one build through the cache.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import ml_dtypes
import numpy as np
import pytest

import ptokit
from ptokit.errors import BuildError, CompileError, RuntimeFailure

ROWS, COLS = 16, 64
VALID = (13, 45)                # the inputs' valid region
SMALL = (8, 30)                 # d's valid region
MASK_COLS = 32                  # roundup(ceil(64 / 8), 32)
NP = {"FP32": np.float32, "FP16": np.float16, "BF16": ml_dtypes.bfloat16, "INT8": np.int8, "INT16": np.int16,
      "INT32": np.int32, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32}
SENTINEL = 77                   # what the outputs hold where a kernel must not write


@dataclass(frozen=True)
class Op:
    """One output: ``expr`` stored whole, compared with ``ref(a, b, c)`` on its valid region."""

    name: str
    expr: str
    ref: Callable
    kind: str = "same"          # same [R, C] | mask [R, 32] UINT8 bits | row [R, 1] | col [1, C]
    dtype: Optional[str] = None  # output dtype (default: the inputs')


def _shape(op: Op):
    return {"same": (ROWS, COLS), "mask": (ROWS, MASK_COLS), "row": (ROWS, 1), "col": (1, COLS)}[op.kind]


def _valid(op: Op):
    vr, vc = VALID
    return {"same": (vr, vc), "mask": (vr, (vc + 7) // 8), "row": (vr, 1), "col": (1, vc)}[op.kind]


def _out_dtype(op: Op, dtype: str) -> str:
    return op.dtype or ("UINT8" if op.kind == "mask" else dtype)


def source(name: str, dtype: str, ops: Sequence[Op], scratch: str = "") -> str:
    ten = f"pl.Tensor[[{ROWS}, {COLS}], pl.{dtype}]"
    outs = [(f"y{i}", f"pl.Tensor[[{_shape(op)[0]}, {_shape(op)[1]}], pl.{_out_dtype(op, dtype)}]")
            for i, op in enumerate(ops)]
    params = ", ".join([f"a: {ten}", f"b: {ten}", f"c: {ten}"] + [f"{n}: pl.Out[{t}]" for n, t in outs])
    names = ", ".join(n for n, _ in outs)
    vr, vc = VALID
    body = [f"ta = pl.load(a, [0, 0], [{ROWS}, {COLS}], valid_shape=[{vr}, {vc}])",
            f"tb = pl.load(b, [0, 0], [{ROWS}, {COLS}], valid_shape=[{vr}, {vc}])",
            f"tc = pl.load(c, [0, 0], [{ROWS}, {COLS}], valid_shape=[{vr}, {vc}])",
            f"td = pl.load(b, [0, 0], [{ROWS}, {COLS}], valid_shape=[{SMALL[0]}, {SMALL[1]}])",
            f"t = pl.tile.create_tile([{ROWS}, {COLS}], dtype=pl.{scratch or dtype})",
            "m8 = pl.tile.create_tile([1, 32], dtype=pl.UINT8)"]
    for (n, _), op in zip(outs, ops):
        body.append(f"{n} = pl.store({_tiles(op.expr)}, [0, 0], {n})    # {op.name}")
    body.append(f"return {names}")
    text = ["import math", "", "import ptokit.language as pl", "", "", "@pl.program", f"class {name}:",
            "    @pl.function(type=pl.FunctionType.InCore)", f"    def k(self, {params}):"]
    text += [f"        {line}" for line in body]
    text += ["", "    @pl.function(type=pl.FunctionType.Orchestration)", f"    def main(self, {params}):",
             f"        {names} = self.k(a, b, c, {names})", f"        return {names}", ""]
    return "\n".join(text)


def _tiles(expr: str) -> str:
    """``a``/``b``/``c`` of an expression name the loaded tiles ``ta``/``tb``/``tc``."""
    return re.sub(r"\b([abcd])\b", r"t\1", expr)


def program(tmp_dir: Path, name: str, dtype: str, ops: Sequence[Op], scratch: str = ""):
    text = source(name, dtype, ops, scratch)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = Path(tmp_dir) / f"{name.lower()}_{digest}.py"
    if not path.exists():
        path.write_text(text)
    mod_name = f"vecgen_{name}_{digest}"
    if mod_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(mod_name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = mod
        spec.loader.exec_module(mod)
    return getattr(sys.modules[mod_name], name)


def run(tmp_dir: Path, name: str, dtype: str, ops: Sequence[Op], a, b, c, scratch: str = "", runtime=None):
    """Build and run the kernel of ``ops``; returns the outputs (numpy), in ops order."""
    prog = program(tmp_dir, name, dtype, ops, scratch)
    outs = [np.full(_shape(op), SENTINEL, dtype=NP[_out_dtype(op, dtype)]) for op in ops]
    kw = {"runtime": runtime} if runtime else {}
    try:
        compiled = ptokit.compile(prog, output_dir=Path(tmp_dir) / f"out_{name}", **kw)
    except CompileError as exc:
        # an element type the device's vector unit lacks on a2a3 (the real assembler's rule, pto/element_types.py)
        # is refused at the DSL line; the same ops run on a5, which takes more types
        assert "op expects A2/A3" in exc.message and exc.loc is not None, exc.message
        compiled = ptokit.compile(prog, output_dir=Path(tmp_dir) / f"out_{name}_a5", platform="a5sim", **kw)
    compiled(a, b, c, *outs)
    return outs


def expected_mask(pred: np.ndarray) -> np.ndarray:
    """The packed mask of a boolean [R, C] predicate over the valid region (ptokit's encoding)."""
    vr, vc = VALID
    bits = np.packbits(pred[:vr, :vc].astype(np.uint8), axis=1, bitorder="little")
    return bits


def check(ops: Sequence[Op], outs, a, b, c, dtype: str, exact: bool = True, rtol: float = 0.0, atol: float = 0.0):
    """Each output equals its reference on its valid region and the sentinel elsewhere."""
    for op, got in zip(ops, outs):
        vr, vc = _valid(op)
        want = np.asarray(op.ref(a, b, c))
        if op.kind == "mask":
            want = expected_mask(want)
        want = want[:vr, :vc]
        region = got[:vr, :vc]
        if exact:
            same = np.array_equal(region.astype(np.float64), want.astype(np.float64), equal_nan=True) \
                if np.issubdtype(region.dtype, np.floating) or region.dtype == NP["BF16"] \
                else np.array_equal(region, want.astype(region.dtype))
            assert same, f"{dtype} {op.name}: got\n{region}\nwant\n{want}"
        else:
            np.testing.assert_allclose(region.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=f"{dtype} {op.name}")
        outside = got.copy()
        outside[:vr, :vc] = SENTINEL
        assert np.all(outside == SENTINEL), f"{dtype} {op.name} wrote outside its valid region"


# Where the tree is built against pto-isa (--real-tools with PTO_ISA_ROOT), a case on which pto-isa's CPU
# library is known to do otherwise than ptokit's (docs/decisions.md, "35": which side follows the device,
# per op) is an expected failure of that kind; strict, so a pto-isa that changes is noticed.
PTO_ISA_KINDS = {"build": BuildError, "crash": RuntimeFailure, "numbers": AssertionError}


def pto_isa_differs(kind: str, why: str):
    return pytest.mark.xfail(bool(os.environ.get("PTO_ISA_ROOT")), raises=PTO_ISA_KINDS[kind], strict=True,
                             reason=f"pto-isa {kind}: {why} (docs/decisions.md, 35)")


def params(values, marks):
    """``values`` as pytest params, each with the marks ``marks`` gives it (a dict value -> mark)."""
    return [pytest.param(v, marks=marks[v]) if v in marks else v for v in values]
