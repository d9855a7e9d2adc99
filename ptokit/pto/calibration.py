"""ptokit's per-instruction estimates (ptokit.pto.costs) next to the hardware figures of
``costdata/a2a3_measured.csv``: one row per measurement, with the precision the estimate reaches
(``1 - |measured - estimate| / measured``) and the accuracy that measurement demands.  Used by
``bench/estimate_calibration.py`` (the docs table) and the calibration tests."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from . import costs, dialect
from .types import PartitionViewType, TileBufType

# measurements ptokit does not compare against, and why
EXCLUDED = {
    "tdivs/case3_tile_scalar_int32_31x128": "a2a3 has no integer division: the measured 4 cycles are an empty kernel",
    "tdivs/case4_tile_scalar_int16_15x192": "a2a3 has no integer division: the measured 4 cycles are an empty kernel",
}


@dataclass(frozen=True)
class Calibration:
    test: str
    op: str
    shape: str
    measured: float
    accuracy: float
    estimate: Optional[int]
    excluded: str = ""

    @property
    def precision(self) -> float:
        if self.estimate is None:
            return 0.0
        return max(0.0, 1.0 - abs(self.measured - self.estimate) / self.measured)

    @property
    def ok(self) -> bool:
        return bool(self.excluded) or (self.estimate is not None and self.precision >= self.accuracy - 1e-9)


def _int(text: str) -> int:
    return int(text) if text else 0


def _operands(rec: dict):
    """(ins, outs, tiles by role) of one measured instruction."""
    op, dt = rec["op"], rec["dtype"]
    if op.startswith("pto.tmatmul"):
        m, k, n = _int(rec["m"]), _int(rec["k"]), _int(rec["n"])
        lhs = TileBufType.of("left", dt, m, k)
        rhs = TileBufType.of("right", dt, k, n)
        acc = TileBufType.of("acc", "i32" if dt == "i8" else "f32", m, n)
        return [lhs, rhs], [acc], {"lhs": lhs, "rhs": rhs}
    rows, cols, vr, vc = (_int(rec[k]) for k in ("rows", "cols", "valid_rows", "valid_cols"))
    dst = TileBufType.of("vec", dt, rows, cols, v_row=vr, v_col=vc)
    if op == "pto.tload":
        blocks = _int(rec["blocks"]) or 1
        view = PartitionViewType((blocks, 1, 1, vr // blocks, vc), dt)
        return [view], [dst], {"dst": dst}
    src = TileBufType.of("vec", rec["src_dtype"] or dt, rows, cols, v_row=vr, v_col=vc)
    return [src, src], [dst], {"src": src, "dst": dst}


def calibration_rows() -> List[Calibration]:
    path = Path(__file__).with_name("costdata") / "a2a3_measured.csv"
    out = []
    with open(path, newline="") as f:
        for rec in csv.DictReader(line for line in f if not line.startswith("#")):
            ins, outs, tiles = _operands(rec)
            cost = dialect.cost_of(rec["op"])
            est = costs.estimate(rec["op"], cost, ins, outs, tiles) if cost is not None else None
            if rec["op"].startswith("pto.tmatmul"):
                shape = f"{rec['m']}x{rec['k']}x{rec['n']} {rec['dtype']}"
            else:
                shape = f"{rec['valid_rows']}x{rec['valid_cols']} {rec['dtype']}"
                if rec["src_dtype"]:
                    shape += f" from {rec['src_dtype']}"
                if rec["blocks"] and rec["blocks"] != "1":
                    shape += f", {rec['blocks']} GM blocks"
            out.append(Calibration(rec["test"], rec["op"], shape, float(rec["measured"]), float(rec["accuracy"]),
                                   est, EXCLUDED.get(rec["test"], "")))
    return out
