"""Helpers shared by the CPU tile library tests: where the headers are, how to compile."""
from __future__ import annotations

import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "tile_cases"
INCLUDE = HERE.parents[1] / "ptokit" / "runtime" / "include"
CXX_FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-D__CPU_SIM", f"-I{INCLUDE}"]


def compile_cxx(sources, out: Path, *, shared=True, opt="-O1", extra=()) -> subprocess.Popen:
    """Start a g++ job (returns the Popen; call finish() on it)."""
    cmd = ["g++", *CXX_FLAGS, opt, *extra]
    if shared:
        cmd += ["-fPIC", "-shared"]
    cmd += [str(s) for s in sources] + ["-o", str(out)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> None:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise AssertionError(f"g++ failed ({' '.join(proc.args)}):\n{out}\n{err}")
