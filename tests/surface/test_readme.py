"""The README a newcomer reads first: the quick start is two commands with the virtual environment
inside the first (an example end to end, the whole suite), every doc page and every example is
linked, and the fast tier it names covers every package."""
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slow import FAST_MODULES, SLOW_DIRS, SLOW_MODULES

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def quick_start():
    block = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #")[0].strip() for line in block.strip().splitlines()]


def test_quick_start_is_two_commands_in_a_virtual_environment():
    first, second = quick_start()
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . && ")
    assert first.endswith("python examples/add_scale.py")
    # the second runs the whole suite (what CI runs); the README names the fast tier beside it
    assert second == ". .venv/bin/activate && pip install -e '.[test]' && python -m pytest -q -n 2"
    assert "python3-venv g++" in README           # what a stock Debian lacks
    assert re.search(r"whole suite \(the second command, what CI runs: `\.ci/run`;[^)]*\)\s+takes \d+ to \d+ minutes",
                     README)
    assert re.search(r'fast tier, `python -m pytest -q -n 2 -m "not slow"` \([^)]*\), about \d+ minutes', README)


def test_every_doc_page_and_example_is_linked():
    docs = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))
    examples = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "examples").rglob("*.py")
                      if not p.name.startswith("_"))
    missing = [d for d in docs + examples if f"]({d})" not in README]
    assert not missing, missing


def test_the_slow_marker_is_registered():
    assert 'markers = [\n    "slow:' in (REPO / "pyproject.toml").read_text()


PACKAGES = ("language", "ir", "passes", "codegen", "backend", "runtime", "launch", "jit", "cli", "pto",
            "artifacts", "distributed")


def _imported_packages(path: Path) -> set:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for n in names:
            parts = n.split(".")
            if parts[0] == "ptokit" and len(parts) > 1:
                out.add(parts[1])
    return out


def test_the_fast_tier_touches_every_package():
    fast = [p for p in (REPO / "tests").rglob("test_*.py")
            if (p.relative_to(REPO).parts[1] not in SLOW_DIRS or p.relative_to(REPO).as_posix() in FAST_MODULES)
            and p.relative_to(REPO).as_posix() not in SLOW_MODULES]
    helpers = {h for p in fast for h in p.parent.glob("*.py") if h.name == "conftest.py" or h.stem.endswith("_util")}
    touched = set().union(*(_imported_packages(p) for p in fast + sorted(helpers)))
    assert not [p for p in PACKAGES if p not in touched], sorted(touched)


@pytest.mark.slow
def test_the_first_quick_start_command_works_in_a_fresh_copy(tmp_path):
    """The README's first command, as written, in a copy of the repository's files (a new venv that
    installs ptokit and its dependencies, then compiles, builds and runs the example)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("git is not installed, or this is not a git checkout (the copy is made from git ls-files)")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for f in filter(None, files):
        src = REPO / f.decode()
        if src.is_file():
            (tmp_path / f.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, tmp_path / f.decode())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    r = subprocess.run(["bash", "-c", quick_start()[0]], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=1800)
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-3000:])
    assert "max abs error vs numpy" in r.stdout
