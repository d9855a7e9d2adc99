"""The real assembler's element-type lists per tile op and architecture (data only).

Read by ``pto/dialect.py`` (the rows that name the ``element_types`` rule) and ``pto/rules.py`` (the
check and its message).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

# The real verifier's element-type lists (PTOAS lib/PTO/IR/PTO.cpp, each op's verify()): op -> (the operand
# whose type is checked, the words naming it, the A2/A3 list, the A5 list; None: no list on that arch).
# A width token (``i16``, ``u64``) takes every integer of that width, signed or not (MLIR's
# ``isInteger(w)``); ``f16``/``bf16``/``f32`` are exact. The message lists the types as the tool does.
_SAME = "src0, src1, and dst element type"
_ARITH_A2, _ARITH_A5 = "i32/i16/f16/f32", "i32/i16/i8/f16/bf16/f32"
# The words are "A2/A3 <op> <words>" in the message, unless the op is in UNTAGGED: there the tool names
# neither the architecture nor the op ("'pto.trowmax' op expects element type to be i16/i32/f16/f32").
ELEMENT_TYPES: Dict[str, Tuple[str, str, Optional[str], Optional[str]]] = {
    "pto.tadd": ("src0", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tadds": ("src", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tsub": ("src0", "element type", _ARITH_A2, "i32/i16/i8/f16/f32"),
    "pto.tsubs": ("src", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tmul": ("src0", "element type", _ARITH_A2, _ARITH_A2),
    "pto.tmuls": ("src", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tdiv": ("src0", "element type", "f16 or f32", _ARITH_A2),
    "pto.tdivs": ("src", "element type", _ARITH_A2, "i32/i16/i8/f16/f32"),
    "pto.tmax": ("src0", "element type", _ARITH_A2, "i32/i16/i8/f16/f32"),
    "pto.tmin": ("src0", "element type", _ARITH_A2, "i32/i16/i8/f16/f32"),
    "pto.tfmod": ("src0", "element type", _ARITH_A2, _ARITH_A2),
    "pto.tfmods": ("src", "element type", _ARITH_A2, _ARITH_A2),
    "pto.trem": ("src0", "element type", "i32/f32", _ARITH_A2),
    "pto.trems": ("src", "element type", "i32/f32", _ARITH_A2),
    "pto.tpartadd": ("src0", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tpartmul": ("src0", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tpartmax": ("src0", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tpartmin": ("src0", "element type", _ARITH_A2, _ARITH_A5),
    "pto.tcmp": ("src0", "input element type", "i32/f16/f32", "i8/i16/i32/f16/bf16/f32"),
    "pto.tcmps": ("src", "input element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tand": ("src0", _SAME, "i8/i16", "i8/i16/i32"),
    "pto.tor": ("src0", _SAME, "i8/i16", "i8/i16/i32"),
    "pto.txor": ("src0", "src0, src1, tmp, and dst element type", "i8/i16", None),
    "pto.tands": ("src", "src, scalar, and dst element type", "i8/i16", "i8/i16/i32"),
    "pto.tors": ("src", "src and dst element type", "i8/i16", "i8/i16/i32"),
    "pto.txors": ("src", "src and dst element type", "i8/i16", "i8/i16/i32"),
    "pto.tnot": ("src", "element type", "i16", "i8/i16/i32"),
    "pto.tshrs": ("src", "src and dst element type", "i16/i32", "i8/i16/i32"),
    "pto.tneg": ("src", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32/bf16"),
    "pto.trelu": ("src", "element type", "i32/f16/f32", "i32/f16/f32"),
    "pto.tlrelu": ("src", "element type", "f16 or f32", "f16 or f32"),
    "pto.tsel": ("src0", _SAME, "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tsels": ("src", "src and dst element type", "i16, i32, f16, or f32", "i8, i16, i32, f16, or f32"),
    "pto.tcolsum": ("src", "element type", "f16/f32/i16/i32", "i8/i16/i32/f16/bf16/f32"),
    "pto.tcolmax": ("src", "element type", "f16/f32/i16/i32", "i8/i16/i32/f16/bf16/f32"),
    "pto.tcolmin": ("src", "element type", "f16/f32/i16/i32", "i8/i16/i32/f16/bf16/f32"),
    "pto.trowprod": ("src", "element type", "i16/i32/f16/f32", "i16/i32/f16/f32"),
    "pto.trowexpandadd": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.trowexpandsub": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.trowexpandmul": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.trowexpandmax": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.trowexpandmin": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tload": ("dst", "dst element type", "i8/i16/i32/i64/u64/f16/bf16/f32", None),
    "pto.trowsum": ("src", "element type", "i16/i32/f16/f32", "i16/i32/f16/f32"),
    "pto.trowmax": ("src", "element type", "i16/i32/f16/f32", "i16/i32/f16/f32"),
    "pto.trowmin": ("src", "element type", "i16/i32/f16/f32", "i16/i32/f16/f32"),
    "pto.tprelu": ("src0", "dst/src0/src1 element type", "f16 or f32", "f16 or f32"),
    "pto.tcolexpanddiv": ("src0", "tcolexpanddiv element type", "f16 or f32", "f16 or f32"),
    "pto.tcolexpandmul": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tcolexpandadd": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tcolexpandsub": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tcolexpandmax": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tcolexpandmin": ("src0", "element type", "i16/i32/f16/f32", "i8/i16/i32/f16/f32"),
    "pto.tcolexpandexpdif": ("src0", "tcolexpandexpdif element type", "f16 or f32", "f16 or f32"),
}
UNTAGGED = frozenset({"pto.trowsum", "pto.trowmax", "pto.trowmin", "pto.tprelu", "pto.tcolexpanddiv",
                      "pto.tcolexpandexpdif"})
