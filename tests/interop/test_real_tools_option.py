"""``pytest --real-tools``: the suite keeps PTOAS_ROOT / PTO_ISA_ROOT (tests/conftest.py) and turns a
refusal by design (VendorRefusal) into a skip that gives the reason; without it both are removed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
PROBE_FILE = Path(__file__).with_name("real_tools_probe.py")   # not collected by itself


def _child(tmp_path, *args, ptoas_root="/opt/ptoas", select="environment or refusal", **extra_env):
    out = tmp_path / "env.json"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PTOKIT_TEST_REAL_TOOLS", "PYTEST_XDIST_WORKER", "PTOKIT_PTOAS_COMPAT")}
    env.update({"PTOKIT_REAL_TOOLS_PROBE": str(out), "PTOAS_ROOT": str(ptoas_root), "PTO_ISA_ROOT": "/opt/pto-isa"})
    env.update(extra_env)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-k", select,
                           *args, str(PROBE_FILE)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return json.loads(out.read_text()), proc.stdout + proc.stderr


def test_without_the_option_the_tools_are_removed_and_a_refusal_fails(tmp_path):
    seen, out = _child(tmp_path)
    assert seen == {"PTOAS_ROOT": None, "PTO_ISA_ROOT": None}
    assert "1 failed, 1 passed" in out, out


def test_real_tools_keeps_them_and_skips_a_refusal_with_its_reason(tmp_path):
    seen, out = _child(tmp_path, "--real-tools")
    assert seen == {"PTOAS_ROOT": "/opt/ptoas", "PTO_ISA_ROOT": "/opt/pto-isa"}
    assert "1 passed, 1 skipped" in out, out
    assert "refused by design with the real tools: kernel k uses the cross-core FIFO" in out, out


def _standin_ptoas(tmp_path, version_line):
    """A stand-in ptoas that answers --version only (the compile under test is refused before assembling)."""
    root = tmp_path / "ptoas-root"
    root.mkdir()
    exe = root / "ptoas"
    exe.write_text(f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{version_line}'; exit 0; fi\nexit 3\n")
    exe.chmod(0o755)
    return root


def test_a_ptoas_027_switches_every_compile_to_its_compat_mode(tmp_path):
    seen, out = _child(tmp_path, "--real-tools", ptoas_root=_standin_ptoas(tmp_path, "ptoas 0.27"), select="compat")
    assert seen == {"PTOKIT_PTOAS_COMPAT": "0.27", "resolved": "0.27"}
    assert "1 skipped" in out, out       # pto.syncall, which 0.27 does not know: refused at the DSL line
    assert "refused by design with the real tools: " in out and "'pto.syncall' is not known to ptoas 0.27" in out, out


def test_a_newer_ptoas_keeps_pypto_heads_form(tmp_path):
    seen, out = _child(tmp_path, "--real-tools", ptoas_root=_standin_ptoas(tmp_path, "ptoas 0.57"), select="compat")
    assert seen == {"PTOKIT_PTOAS_COMPAT": None, "resolved": None}
    # pypto HEAD's .pto is written and handed to that tool (the stand-in then fails it): no refusal
    assert "1 failed" in out and "ptoas failed (exit 3)" in out and "skipped" not in out, out


def test_compat_set_beforehand_is_kept_and_without_the_option_it_is_dropped(tmp_path):
    root = _standin_ptoas(tmp_path, "ptoas 0.27")
    seen, _ = _child(tmp_path, "--real-tools", ptoas_root=root, select="compat", PTOKIT_PTOAS_COMPAT="")
    assert seen == {"PTOKIT_PTOAS_COMPAT": "", "resolved": None}
    seen, out = _child(tmp_path, ptoas_root=root, select="compat", PTOKIT_PTOAS_COMPAT="0.27")
    assert seen == {"PTOKIT_PTOAS_COMPAT": None, "resolved": None}
    assert "1 passed" in out, out
