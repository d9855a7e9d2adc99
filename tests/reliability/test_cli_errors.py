"""Every ``ptokit`` command reports every error as one message and a non-zero exit, never a
Python traceback: a user's mistake is ``ptokit CMD: error: ...`` and exit 1 (or the command's
documented code), a ptokit bug is one line naming the log file with the traceback, exit 70."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
from ptokit import cli
from ptokit.artifacts.kernel_config import read_kernel_config
from ptokit.cli import report
from ptokit.errors import ConfigError, UserError, source_loc_from_file

import programs

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return ptokit.compile(programs.ScalarOperand, output_dir=tmp_path_factory.mktemp("cli_errors") / "t").output_dir


def _variant(tree, tmp_path, old, new, name="v"):
    dst = tmp_path / name
    shutil.copytree(tree, dst)
    cfg = dst / "kernel_config.py"
    text = cfg.read_text()
    assert old in text, old
    cfg.write_text(text.replace(old, new, 1))
    return dst


def _run(capsys, *argv):
    rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def _user_error(capsys, *argv, rc=1):
    got, out, err = _run(capsys, *argv)
    assert got == rc, (got, out, err)
    first = err.strip().splitlines()[0] if err.strip() else ""
    assert first.startswith(f"ptokit {argv[0]}: "), err
    assert "internal error" not in err
    return err


# ------------------------------------------------------------------ kernel_config.py problems

@pytest.mark.parametrize("command", ["build", "run"])
def test_func_id_out_of_int32_range(tree, tmp_path, capsys, command):
    bad = _variant(tree, tmp_path, '"func_id": 0,', '"func_id": 99999999999,')
    err = _user_error(capsys, command, bad, "-q")
    assert "KERNELS[0]['func_id']: 99999999999 is out of range: a func_id is an int32 (at most 2147483647)" in err
    assert str(bad / "kernel_config.py") in err


@pytest.mark.parametrize("command", ["build", "run"])
def test_runtime_name_typo(tree, tmp_path, capsys, command):
    bad = _variant(tree, tmp_path, '"tensormap_and_ringbuffer"', '"tensormap_and_ringbufer"')
    err = _user_error(capsys, command, bad, "-q")
    assert "RUNTIME_CONFIG['runtime']: unknown runtime kind 'tensormap_and_ringbufer'" in err
    assert "'tensormap_and_ringbuffer', 'host_build_graph'" in err


def test_runtime_name_typo_is_a_user_error_and_still_a_value_error(tree, tmp_path):
    bad = _variant(tree, tmp_path, '"tensormap_and_ringbuffer"', '"fast"')
    with pytest.raises(ConfigError) as info:
        read_kernel_config(bad)
    assert isinstance(info.value, UserError) and isinstance(info.value, ValueError)


def test_negative_and_malformed_param_shapes(tree, tmp_path, capsys):
    neg = _variant(tree, tmp_path, '"shape": [64, 64], "direction": "OUT"', '"shape": [-64, 64], "direction": "OUT"',
                   "neg")
    # refused when the tree is read (issue 31), naming the file and the key
    err = _user_error(capsys, "run", neg, "-q")
    assert "ORCHESTRATION['params'][2]['shape'][0]: expected a non-negative int or a dimension name" in err, err
    assert str(neg / "kernel_config.py") in err
    text = _variant(tree, tmp_path, '"shape": [64, 64], "direction": "OUT"', '"shape": "64", "direction": "OUT"',
                    "str")
    err = _user_error(capsys, "run", text, "-q")
    assert "ORCHESTRATION['params'][2]['shape']: expected a list of dimensions such as [64, 64]" in err, err


def test_missing_source_and_missing_tree(tree, tmp_path, capsys):
    dst = tmp_path / "nocpp"
    shutil.copytree(tree, dst)
    (dst / "kernels" / "aiv" / "axpb.cpp").unlink()
    err = _user_error(capsys, "build", dst, "-q")
    assert "axpb.cpp does not exist" in err
    err = _user_error(capsys, "run", tmp_path / "nowhere", "-q")
    assert "no kernel_config.py there" in err


# ------------------------------------------------------------------ run inputs and options

def test_run_input_files(tree, tmp_path, capsys):
    err = _user_error(capsys, "run", tree, "-q", "--inputs", tmp_path / "missing.npy")
    assert "--inputs" in err and "missing.npy: cannot read it: No such file or directory" in err
    junk = tmp_path / "junk.npy"
    junk.write_bytes(b"not an array")
    assert "not a .npy array file" in _user_error(capsys, "run", tree, "-q", "--inputs", junk)
    np.save(tmp_path / "x3.npy", np.ones((2, 3, 4), np.float32))
    err = _user_error(capsys, "run", tree, "-q", "--inputs", tmp_path / "x3.npy")
    assert "x3.npy: shape [2, 3, 4], parameter 'x' expects [64, 64]" in err


def test_run_option_values(tree, capsys):
    assert "--scalar alpha=abc: not a number (the parameter is float32)" in \
        _user_error(capsys, "run", tree, "-q", "--scalar", "alpha=abc")
    assert "--dim N=abc: not an integer" in _user_error(capsys, "run", tree, "-q", "--dim", "N=abc")
    assert "unknown platform 'a9'" in _user_error(capsys, "run", tree, "-q", "--platform", "a9")
    assert "unknown runtime kind 'fast'" in _user_error(capsys, "run", tree, "-q", "--runtime", "fast")
    # counts are checked by the argument parser (usage error, exit 2) instead of being ignored
    for argv in (["--seed", "-1"], ["--top", "-2"]):
        rc, _, err = _run(capsys, "run", tree, "-q", *argv)
        assert rc == 2 and "must be at least 0" in err
    rc, _, err = _run(capsys, "build", tree, "-j", "0")
    assert rc == 2 and "must be at least 1, got 0" in err


def test_trace_into_a_folder(tree, tmp_path, capsys):
    err = _user_error(capsys, "run", tree, "-q", "--no-summary", "--trace", tmp_path)
    assert f"cannot write the trace to {tmp_path}: it is a folder" in err


def test_save_outputs_folder_checked_before_the_run(tree, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    rc, out, err = _run(capsys, "run", tree, "-q", "--no-summary", "--save-outputs", blocker / "out")
    assert rc == 1 and "ran " not in out, out
    assert re.search(r"^ptokit run: error: .*file/out: Not a directory", err), err


# ------------------------------------------------------------------ compile

@pytest.mark.parametrize("name, source, expect", [
    ("syntax.py", "import ptokit.language as pl\ndef f(:\n    pass\n", r"syntax\.py:2:7: error: invalid syntax"),
    ("raises.py", "x = 1\nraise RuntimeError('boom')\n",
     r"error: importing .*raises\.py raised RuntimeError: boom\n    at .*raises\.py:2: raise RuntimeError"),
    ("exits.py", "import sys\nsys.exit(3)\n", r"error: importing .*exits\.py called sys\.exit\(3\)"),
    ("latin1.py", b"x = '\xff'\n", r"latin1\.py:1:\d+: error: \(unicode error\)"),
    ("prog.txt", "x = 1\n", r"error: .*prog\.txt: not a Python source file"),
    ("decorates.py", "import ptokit.language as pl\n@pl.program\ndef f():\n    pass\n",
     r"error: importing .*decorates\.py raised ArgumentError: @pl.program decorates a class"),
])
def test_compile_reports_a_broken_program_file(tmp_path, capsys, name, source, expect):
    f = tmp_path / name
    f.write_bytes(source if isinstance(source, bytes) else source.encode())
    err = _user_error(capsys, "compile", f"{f}:P")
    assert re.search(expect, err), err


def test_compile_output_folder_not_writable(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    err = _user_error(capsys, "compile", f"{REPO / 'tests' / 'programs.py'}:ScalarOperand", "-o", blocker / "sub")
    assert re.search(r"error: .*file/sub: Not a directory", err), err


def test_located_error_reading_a_non_utf8_source(tmp_path):
    f = tmp_path / "x.py"
    f.write_bytes(b"a = 1\nb = '\xff'\n")
    assert source_loc_from_file(str(f), 2, 5).source_line.startswith("b = '")


# ------------------------------------------------------------------ trace summarize

@pytest.mark.parametrize("content, expect", [
    (b"\x89\xfe\x00binary", "not a JSON trace"),
    ({"traceEvents": [], "otherData": {"format": "ptokit-trace", "version": "abc"}}, "otherData.version is 'abc'"),
    ({"traceEvents": [5], "otherData": {"format": "ptokit-trace", "version": 1}}, "damaged trace event"),
    ({"traceEvents": [], "otherData": {"format": "ptokit-trace", "version": 1, "tasks": "x"}}, "damaged trace"),
    ({"traceEvents": [], "otherData": {"format": "ptokit-trace", "version": 1, "kernel_names": [1]}}, "damaged trace"),
])
def test_trace_summarize_damaged_file(tmp_path, capsys, content, expect):
    f = tmp_path / "t.json"
    f.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    rc, _, err = _run(capsys, "trace", "summarize", f)
    assert rc == 2 and err.startswith("ptokit trace: ") and expect in err, err


# ------------------------------------------------------------------ internal errors

def _crash(*_a, **_k):
    raise ZeroDivisionError("a bug")


def test_internal_error_is_one_line_and_the_traceback_is_logged(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("ptokit.cli.trace.read_trace", _crash)
    rc, out, err = _run(capsys, "trace", "summarize", "whatever.json")
    assert rc == report.INTERNAL_ERROR_EXIT == 70
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ptokit trace: internal error (a ptokit bug, please report it): "
                               "ZeroDivisionError: a bug -- the full traceback is in ")
    log = Path(lines[0].rsplit(" ", 1)[1])
    assert log.parent == tmp_path / "cache" / "logs"
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "_crash" in text and "ZeroDivisionError: a bug" in text
    assert "command: ptokit trace summarize whatever.json" in text
    assert oct(log.stat().st_mode & 0o777) == oct(0o600)


def test_internal_error_log_falls_back_to_the_temp_folder(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(blocker))        # logs/ cannot be created under a file
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setattr("ptokit.cli.trace.read_trace", _crash)
    rc, _, err = _run(capsys, "trace", "summarize", "x.json")
    assert rc == 70
    log = Path(err.strip().rsplit(" ", 1)[1])
    assert log.is_file() and log.is_relative_to(tmp_path / "tmp")


def test_internal_error_of_ptokit_itself(capsys, monkeypatch, tmp_path):
    from ptokit.errors import InternalError
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path))

    def broken(*_a, **_k):
        raise InternalError("an invariant broke")
    monkeypatch.setattr("ptokit.cli.trace.read_trace", broken)
    rc, _, err = _run(capsys, "trace", "summarize", "x.json")
    assert rc == 70 and err.startswith("ptokit trace: internal error (a ptokit bug, please report it): "
                                       "an invariant broke -- the full traceback is in ")


def test_interrupt(capsys, monkeypatch):
    def interrupted(*_a, **_k):
        raise KeyboardInterrupt
    monkeypatch.setattr("ptokit.cli.trace.read_trace", interrupted)
    rc, _, err = _run(capsys, "trace", "summarize", "x.json")
    assert rc == 130 and err.strip() == "ptokit trace: interrupted"


# ------------------------------------------------------------------ a real process

def test_entry_point_process_reports_without_traceback(tree, tmp_path):
    bad = _variant(tree, tmp_path, '"func_id": 0,', '"func_id": 2147483648,')
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "ptokit.cli", "run", str(bad), "-q"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("ptokit run: error: ") and "is out of range" in p.stderr


def test_compile_command_still_writes_the_tree(tmp_path, capsys):
    rc, out, err = _run(capsys, "compile", f"{REPO / 'tests' / 'programs.py'}:ScalarOperand", "-o", tmp_path / "t",
                        "--platform", "a5sim", "--runtime", "host_build_graph")
    assert rc == 0 and out.strip() == str((tmp_path / "t").resolve()) and not err
    cfg = read_kernel_config(tmp_path / "t")
    assert cfg.platform == "a5sim" and cfg.runtime.value == "host_build_graph"
