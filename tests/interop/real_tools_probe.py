"""Run by test_real_tools_option.py in a child pytest (the file name keeps it out of normal collection):
what the suite's environment holds, and a refusal by design."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ptokit.errors import VendorRefusal

PROBE = "PTOKIT_REAL_TOOLS_PROBE"


def test_probe_environment():
    Path(os.environ[PROBE]).write_text(json.dumps({v: os.environ.get(v) for v in ("PTOAS_ROOT", "PTO_ISA_ROOT")}))


def test_probe_refusal():
    raise VendorRefusal("kernel k uses the cross-core FIFO, which pto-isa cannot run here")
