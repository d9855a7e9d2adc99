"""ptoas driver: external tool discovery and command line, timeouts, failures, assemble_many."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ptokit.backend import ptoas
from ptokit.errors import AssemblerError

INPUTS = Path(__file__).parent / "pto_inputs"


def fake_tool(root: Path, body: str, sub: str = "") -> Path:
    d = root / sub if sub else root
    d.mkdir(parents=True, exist_ok=True)
    exe = d / "ptoas"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


@pytest.fixture
def no_path_ptoas(monkeypatch, tmp_path):
    monkeypatch.delenv("PTOAS_ROOT", raising=False)
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                               if not (Path(p) / "ptoas").exists()))


def test_builtin_when_no_tool(no_path_ptoas, tmp_path):
    assert ptoas.find_ptoas() is None
    out = ptoas.assemble(INPUTS / "vadd.pto", tmp_path / "x" / "vadd.cpp", "a2a3", dump_dir=tmp_path / "d")
    assert out == tmp_path / "x" / "vadd.cpp"
    assert "TADD(v12, v4, v8);" in out.read_text()
    assert (tmp_path / "d" / "02_emit.cpp").is_file()


def test_external_tool_command_line(no_path_ptoas, monkeypatch, tmp_path):
    root = tmp_path / "root"
    log = tmp_path / "argv.txt"
    # writes its argv and a C++ file at the path after -o
    fake_tool(root, f'printf "%s\\n" "$@" > {log}\n'
                    'while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then echo "// fake" > "$2"; fi; shift; done\n',
              sub="bin")
    monkeypatch.setenv("PTOAS_ROOT", str(root))
    assert ptoas.find_ptoas() == root / "bin" / "ptoas"
    out = ptoas.assemble(INPUTS / "vadd.pto", tmp_path / "o.cpp", "a5", dump_dir=tmp_path / "passes")
    assert out.read_text() == "// fake\n"
    assert log.read_text().splitlines() == [
        str(INPUTS / "vadd.pto"), "-o", str(tmp_path / "o.cpp"), "--enable-insert-sync", "--pto-level=level3",
        "--pto-arch", "a5", "--mlir-print-ir-after-all", "--mlir-print-ir-module-scope",
        f"--mlir-print-ir-tree-dir={tmp_path / 'passes'}"]
    ptoas.assemble(INPUTS / "vadd.pto", tmp_path / "o2.cpp", "a2a3", level="level2")
    assert log.read_text().splitlines()[3:] == ["--enable-insert-sync", "--pto-level=level2", "--pto-arch", "a3"]


def test_external_tool_failure(no_path_ptoas, monkeypatch, tmp_path):
    fake_tool(tmp_path / "r", 'echo "error: op pto.tfoo is not legal" >&2\nexit 3\n')
    monkeypatch.setenv("PTOAS_ROOT", str(tmp_path / "r"))
    with pytest.raises(AssemblerError) as ei:
        ptoas.assemble(INPUTS / "vadd.pto", tmp_path / "o.cpp", "a2a3")
    msg = str(ei.value)
    assert "exit 3" in msg and "op pto.tfoo is not legal" in msg and str(INPUTS / "vadd.pto") in msg


def test_external_tool_timeout(no_path_ptoas, monkeypatch, tmp_path):
    fake_tool(tmp_path / "r", "exec sleep 5\n")
    monkeypatch.setenv("PTOAS_ROOT", str(tmp_path / "r"))
    with pytest.raises(AssemblerError) as ei:
        ptoas.assemble(INPUTS / "vadd.pto", tmp_path / "o.cpp", "a2a3", timeout=0.3)
    assert "timed out after 0.3 s" in str(ei.value) and "vadd.pto" in str(ei.value)


def test_external_tool_on_path(monkeypatch, tmp_path):
    monkeypatch.delenv("PTOAS_ROOT", raising=False)
    exe = fake_tool(tmp_path / "bin", "exit 0\n")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ.get("PATH", ""))
    assert ptoas.find_ptoas() == exe
    with pytest.raises(AssemblerError, match="did not write"):
        ptoas.assemble(INPUTS / "vadd.pto", tmp_path / "o.cpp", "a2a3")


def test_assemble_many_collects_failures(no_path_ptoas, tmp_path):
    bad = tmp_path / "bad.pto"
    bad.write_text((INPUTS / "vadd.pto").read_text().replace("%tx, %ty", "%tx, %nope"))
    missing = tmp_path / "missing.pto"
    jobs = [
        (INPUTS / "vadd.pto", tmp_path / "a.cpp", "a2a3", None),
        (bad, tmp_path / "b.cpp", "a2a3", None),
        (INPUTS / "softmax.pto", tmp_path / "c.cpp", "a5", tmp_path / "dump_c"),
        (missing, tmp_path / "d.cpp", "a2a3", None),
    ]
    res = ptoas.assemble_many(jobs, max_workers=3)
    assert [r[0] for r in res] == [tmp_path / n for n in ("a.cpp", "b.cpp", "c.cpp", "d.cpp")]
    assert res[0][1] is None and res[2][1] is None
    assert isinstance(res[1][1], AssemblerError) and "undefined value '%nope'" in str(res[1][1])
    assert isinstance(res[3][1], AssemblerError) and "cannot read" in str(res[3][1])
    assert (tmp_path / "a.cpp").is_file() and (tmp_path / "c.cpp").is_file()
    assert not (tmp_path / "b.cpp").exists()
    assert (tmp_path / "dump_c" / "00_parsed.mlir").is_file()
    assert ptoas.assemble_many([]) == []
