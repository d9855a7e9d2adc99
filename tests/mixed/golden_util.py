"""Compares a compiled tree's .pto, kernel and orchestration files with a golden folder
(PTOKIT_UPDATE_GOLDEN=1 rewrites it) and checks each C++ file compiles with -Wall -Werror."""
import os
import subprocess
from pathlib import Path

import ptokit

INCLUDE = Path(ptokit.__file__).parent / "runtime" / "include"


def check_tree_golden(tree: Path, golden: Path) -> None:
    files = sorted(list((tree / "ptoas").glob("*.pto")) + list((tree / "kernels").glob("*/*.cpp"))
                   + list((tree / "orchestration").glob("*.cpp")))
    assert files
    for f in files:
        rel = f.relative_to(tree)
        g = golden / rel
        if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
            g.parent.mkdir(parents=True, exist_ok=True)
            g.write_text(f.read_text())
        assert g.exists(), f"missing golden {g}; run with PTOKIT_UPDATE_GOLDEN=1"
        assert f.read_text() == g.read_text(), f"{rel} differs from {g}"
        if f.suffix == ".cpp":
            flags = {"aic": ["-D__DAV_CUBE__"], "aiv": ["-D__DAV_VEC__"]}.get(f.parent.name, [])
            r = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", *flags,
                                f"-I{INCLUDE}", str(f)], capture_output=True, text=True)
            assert r.returncode == 0, f"{f}:\n{r.stderr}"
