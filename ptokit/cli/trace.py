"""``ptokit trace summarize FILE``: the run summary of a trace written by ``ptokit run --trace``."""
from __future__ import annotations

import argparse
import json
import sys

from ..runtime.trace import TraceFormatError, read_trace
from .args import count


def trace_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit trace", description="read back a run trace written by "
                                 "`ptokit run --trace FILE` or RunConfig(trace=FILE)")
    sub = ap.add_subparsers(dest="action", required=True)
    sm = sub.add_parser("summarize", help="print the run summary of a trace")
    sm.add_argument("file")
    sm.add_argument("--top", type=count(0), default=5, help="kernels/cores listed (default 5)")
    sm.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = ap.parse_args(argv)
    try:
        result = read_trace(a.file)
    except OSError as exc:
        print(f"ptokit trace: cannot read {a.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except TraceFormatError as exc:
        print(f"ptokit trace: {exc}", file=sys.stderr)
        return 2
    summary = result.summary()
    if a.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        print(summary.format(top=a.top))
    return 0
