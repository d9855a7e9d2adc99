"""Every op the built-in assembler knows, and how tile ops lower to the C++ API."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TileOpSpec:
    """A DPS tile op ``pto.X ins(...) outs(...)`` lowering to ``CXX(outs..., ins...)``.

    Operand kinds: T tile, S scalar, I integer/index scalar, G partition view.
    ``optional`` trailing ins may be omitted (and are not passed to C++).
    """

    cxx: str
    ins: str
    outs: str = "T"
    optional: int = 0
    pipe: str = "V"          # pipe that executes it (for --enable-insert-sync)


TILE_OPS = {
    "pto.tload": TileOpSpec("TLOAD", "G", "T", pipe="MTE2"),
    "pto.tstore": TileOpSpec("TSTORE", "T", "G", pipe="MTE3"),
    "pto.tmov": TileOpSpec("TMOV", "T", pipe="MTE1"),
    "pto.tmatmul": TileOpSpec("TMATMUL", "TT", pipe="M"),
    "pto.tmatmul.acc": TileOpSpec("TMATMUL_ACC", "TTT", pipe="M"),
    "pto.treshape": TileOpSpec("TRESHAPE", "T"),
    "pto.subview": TileOpSpec("TEXTRACT", "TII"),
    "pto.textract": TileOpSpec("TEXTRACT", "TII"),
    "pto.tinsert": TileOpSpec("TINSERT", "TII"),
    "pto.tconcat": TileOpSpec("TCONCAT", "TT"),
    "pto.tfillpad": TileOpSpec("TFILLPAD", "T"),
    "pto.tcvt": TileOpSpec("TCVT", "T"),
}
for _n in ("add", "sub", "mul", "div", "max", "min"):
    TILE_OPS[f"pto.t{_n}"] = TileOpSpec(f"T{_n.upper()}", "TT")
    TILE_OPS[f"pto.t{_n}s"] = TileOpSpec(f"T{_n.upper()}S", "TS")
for _n in ("exp", "log", "sqrt", "rsqrt", "recip", "neg", "abs", "relu"):
    TILE_OPS[f"pto.t{_n}"] = TileOpSpec(f"T{_n.upper()}", "T")
for _n in ("sum", "max", "min"):
    TILE_OPS[f"pto.trow{_n}"] = TileOpSpec(f"TROW{_n.upper()}", "TT")
    # the CPU API takes no tmp for column reductions; a tmp operand is accepted and dropped
    TILE_OPS[f"pto.tcol{_n}"] = TileOpSpec(f"TCOL{_n.upper()}", "TT", optional=1)
TILE_OPS["pto.trowexpand"] = TileOpSpec("TROWEXPAND", "T")
TILE_OPS["pto.tcolexpand"] = TileOpSpec("TCOLEXPAND", "T")
for _n in ("add", "sub", "mul", "div"):
    TILE_OPS[f"pto.trowexpand{_n}"] = TileOpSpec(f"TROWEXPAND{_n.upper()}", "TT")
    TILE_OPS[f"pto.tcolexpand{_n}"] = TileOpSpec(f"TCOLEXPAND{_n.upper()}", "TT")

# pto ops with their own syntax (generic clause form, checked in sema)
PTO_SPECIAL = {
    "pto.make_tensor_view",
    "pto.partition_view",
    "pto.alloc_tile",
}
# cross-core FIFO ops: parsed and checked, lowered when the tile API declares them
PTO_CROSS_CORE = {
    "pto.reserve_buffer",
    "pto.import_reserved_buffer",
    "pto.aic_initialize_pipe",
    "pto.aiv_initialize_pipe",
    "pto.tpush_to_aiv",
    "pto.tpush_to_aic",
    "pto.tpop_from_aic",
    "pto.tpop_from_aiv",
    "pto.tfree_from_aic",
    "pto.tfree_from_aiv",
}

ARITH_INT_BINARY = {
    "arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/", "arith.divui": "/",
    "arith.remsi": "%", "arith.remui": "%", "arith.andi": "&", "arith.ori": "|", "arith.xori": "^",
    "arith.shli": "<<", "arith.shrsi": ">>", "arith.shrui": ">>",
    "arith.floordivsi": "floordiv", "arith.ceildivsi": "ceildiv",
    "arith.maxsi": "max", "arith.minsi": "min", "arith.maxui": "max", "arith.minui": "min",
}
ARITH_FLOAT_BINARY = {
    "arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/",
    "arith.maximumf": "max", "arith.minimumf": "min", "arith.maxnumf": "max", "arith.minnumf": "min",
}
ARITH_UNARY = {"arith.negf": "-"}
ARITH_CASTS = {
    "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
    "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf",
}
CMPI_PREDS = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
              "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
CMPF_PREDS = {"oeq": "==", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=",
              "ueq": "==", "une": "!=", "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}

ARITH_OPS = (set(ARITH_INT_BINARY) | set(ARITH_FLOAT_BINARY) | set(ARITH_UNARY) | ARITH_CASTS
             | {"arith.constant", "arith.cmpi", "arith.cmpf", "arith.select"})
SCF_OPS = {"scf.for", "scf.if", "scf.yield"}
RETURN_OPS = {"return", "func.return"}

KNOWN_OPS = set(TILE_OPS) | PTO_SPECIAL | PTO_CROSS_CORE | ARITH_OPS | SCF_OPS | RETURN_OPS
