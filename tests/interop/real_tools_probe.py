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


def test_probe_compat():
    """The ptoas_compat a compile naming none gets, and a program 0.27 cannot take compiled that way."""
    from ptokit.passes.context import resolve_context
    Path(os.environ[PROBE]).write_text(json.dumps({
        "PTOKIT_PTOAS_COMPAT": os.environ.get("PTOKIT_PTOAS_COMPAT"),
        "resolved": resolve_context("a2a3sim", None).ptoas_compat}))
    import ptokit
    import ptokit.language as pl

    @pl.program
    class AllCores:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
            pl.system.syncall(core_type="aiv_only")
            y = pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
            y = self.k(x, y)
            return y

    ptokit.compile(AllCores, output_dir=Path(os.environ[PROBE]).parent / "tree")


def test_probe_refusal():
    raise VendorRefusal("kernel k uses the cross-core FIFO, which pto-isa cannot run here")
