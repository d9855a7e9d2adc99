"""`ptokit run --trace`, `ptokit trace summarize`, the printed summary, and build progress."""
from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

import ptokit
from ptokit.cli import run as cli_run, trace as cli_trace
from ptokit.runtime import progress
from ptokit.runtime.config import RunConfig
from ptokit.runtime.progress import BuildProgress, progress_enabled
from ptokit.runtime.trace import read_trace

import programs


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return ptokit.compile(programs.Graphs, output_dir=tmp_path_factory.mktemp("cli") / "graphs")


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(progress.ENV_VAR, raising=False)


def test_run_prints_summary_and_writes_trace(tree, tmp_path, capsys, no_env):
    path = tmp_path / "sub" / "run.json"
    assert cli_run.run_main([str(tree.output_dir), "--trace", str(path), "--clusters", "2", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "ran 9 task(s), 9 block(s)" in out
    assert "run summary: 9 task(s), 9 block(s), 7 dependency edge(s)" in out
    assert "longest chain: 4 task(s): accumulate#4 -> accumulate#5 -> accumulate#7 -> expk#8" in out
    assert "slowest kernels by total:" in out and "slowest kernels by max:" in out
    assert f"trace written to {path}" in out
    back = read_trace(path)
    assert back.tasks == 9 and back.clusters == 2
    # `ptokit trace summarize` prints the summary the run printed
    live = out[out.index("run summary:"):out.index("trace written")].rstrip("\n")
    assert cli_trace.trace_main(["summarize", str(path), "--top", "3"]) == 0
    assert capsys.readouterr().out.rstrip("\n") == live
    assert cli_trace.trace_main(["summarize", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["tasks"] == 9 and d["critical_path_by_count"] == [4, 5, 7, 8] and len(d["cores"]) == 6
    assert cli_run.run_main([str(tree.output_dir), "--no-summary", "--clusters", "2"]) == 0
    assert "run summary" not in capsys.readouterr().out


def test_trace_summarize_errors(tmp_path, capsys):
    assert cli_trace.trace_main(["summarize", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"traceEvents": [{"name": "x", "ph": "i", "ts": 0, "pid": 1, "tid": 1}]}))
    assert cli_trace.trace_main(["summarize", str(bad)]) == 2
    assert "not a ptokit run trace" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_trace.trace_main([])


def test_progress_on_a_terminal_only(no_env, monkeypatch):
    tty = FakeTTY()
    p = BuildProgress("building t", stream=tty, delay=0.0)
    for i in range(1, 4):
        p(i, 3)
    p.close()
    text = tty.getvalue()
    assert "building t: [1/3] built" in text and "building t: [3/3] built" in text
    assert text.count("\r") == 3 and text.endswith("\n") and " s" in text
    # not a terminal, or asked to be quiet: nothing
    plain = io.StringIO()
    p = BuildProgress("b", stream=plain, delay=0.0)
    p(1, 1)
    p.close()
    assert plain.getvalue() == ""
    tty = FakeTTY()
    with BuildProgress("b", stream=tty, quiet=True, delay=0.0) as p:
        p(1, 1)
    assert tty.getvalue() == ""
    monkeypatch.setenv(progress.ENV_VAR, "0")
    assert not progress_enabled(FakeTTY())
    monkeypatch.setenv(progress.ENV_VAR, "1")
    assert progress_enabled(io.StringIO())


def test_progress_waits_for_a_long_build(no_env):
    tty = FakeTTY()
    with BuildProgress("b", stream=tty, delay=60.0) as p:   # a fast (cached) build stays silent
        p(1, 2)
        p(2, 2)
    assert tty.getvalue() == ""


def test_build_command_progress(tree, monkeypatch, capsys, no_env):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert cli_run.build_main([str(tree.output_dir)]) == 0
    n = 1 + len(tree.config.kernels)
    assert f"[{n}/{n}] built" in tty.getvalue()
    assert "orchestration" in capsys.readouterr().out
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert cli_run.build_main([str(tree.output_dir), "--quiet"]) == 0
    assert tty.getvalue() == ""
    monkeypatch.setenv(progress.ENV_VAR, "0")
    assert cli_run.build_main([str(tree.output_dir)]) == 0
    assert tty.getvalue() == ""
    monkeypatch.delenv(progress.ENV_VAR)
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    assert cli_run.build_main([str(tree.output_dir)]) == 0
    assert plain.getvalue() == ""


def test_run_tree_shows_build_progress(tree, monkeypatch, no_env):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((programs.R, programs.N)).astype(np.float32) for _ in range(2)]
    args += [np.zeros((programs.R, programs.N), np.float32) for _ in range(4)]
    monkeypatch.setattr(progress, "DEFAULT_DELAY", 0.0)   # the cache is warm: show it anyway
    from ptokit.runtime import launcher
    monkeypatch.setattr(launcher, "_prepared", {})        # not prepared in this process yet: a build check
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    tree(*args, config=RunConfig(clusters=2))
    n = 1 + len(tree.config.kernels)
    assert f"building {tree.output_dir.name}: [{n}/{n}] built" in tty.getvalue()
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    tree(*args, config=RunConfig(clusters=2))
    assert plain.getvalue() == ""
