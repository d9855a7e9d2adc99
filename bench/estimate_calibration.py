"""ptokit's per-instruction device-cycle estimates against the a2a3 hardware figures (docs/estimate.md).

    python bench/estimate_calibration.py            # the calibration table and the op table, as markdown
    python bench/estimate_calibration.py --ops      # only the table of every dialect op and its estimate

The hardware figures are ptokit/pto/costdata/a2a3_measured.csv (transcribed from the vendor's cost-model
tests, with the accuracy each test demands); the estimates are ptokit.pto.costs with the dialect rows'
costs. Exit status 1 when an estimate misses its measurement's accuracy.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ptokit.pto import costs, dialect  # noqa: E402
from ptokit.pto.calibration import calibration_rows  # noqa: E402


def calibration_table() -> tuple:
    rows = calibration_rows()
    out = ["| measurement (pto-isa test) | op | shape | measured | estimate | precision | required | |",
           "|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        est = "—" if r.estimate is None else str(r.estimate)
        verdict = f"excluded: {r.excluded}" if r.excluded else ("ok" if r.ok else "MISSED")
        out.append(f"| {r.test} | `{r.op}` | {r.shape} | {r.measured:g} | {est} | {r.precision:.3f} | "
                   f"{r.accuracy:.3f} | {verdict} |")
    compared = [r for r in rows if not r.excluded]
    good = sum(r.ok for r in compared)
    mean = sum(r.precision for r in compared) / max(1, len(compared))
    out.append("")
    out.append(f"{good} of {len(compared)} measurements within their accuracy (mean precision {mean:.3f}); "
               f"{len(rows) - len(compared)} excluded.")
    return "\n".join(out), good == len(compared)


def op_table() -> str:
    out = ["| op | pipe | estimate | numbers from |", "|---|---|---|---|"]
    missing = []
    for name, spec in sorted(dialect.PTO_OPS.items()):
        if spec.cost is None:
            missing.append(name)
            continue
        pipe = "by its spaces" if isinstance(spec.cost, costs.Transfer) else (spec.pipe or "S")
        out.append(f"| `{name}` | {pipe} | {costs.describe(spec.cost)} | {spec.cost.source} |")
    out.append("")
    out.append("No row cost (they take no device time in the model; the ordering ops order it, and the FIFO "
               "pushes and pops are costed as their copy through GM, `ptokit.pto.costs.fifo_transfer`): "
               + ", ".join(f"`{n}`" for n in missing) + ".")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", action="store_true", help="only the op table")
    a = ap.parse_args(argv)
    if a.ops:
        print(op_table())
        return 0
    table, ok = calibration_table()
    print(table)
    print()
    print(op_table())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
