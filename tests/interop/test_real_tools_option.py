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


def _child(tmp_path, *args):
    out = tmp_path / "env.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PTOKIT_TEST_REAL_TOOLS", "PYTEST_XDIST_WORKER")}
    env.update({"PTOKIT_REAL_TOOLS_PROBE": str(out), "PTOAS_ROOT": "/opt/ptoas", "PTO_ISA_ROOT": "/opt/pto-isa"})
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *args,
                           str(PROBE_FILE)],
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
