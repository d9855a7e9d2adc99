"""Columns through row-major-only ops: the `.pto` views them as rows (pto.treshape), the built-in
assembler accepts it as the real one does, and the numbers are right on the simulator."""
from pathlib import Path

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.pto import dialect
from ptokit.pto.parser import parse

import column_programs as C


def _ops(block):
    for op in block.ops:
        yield op
        for r in op.regions:
            yield from _ops(r)


def test_every_row_major_op_on_a_column_reads_row_views(tmp_path):
    compiled = ptokit.compile(C.ColumnOps, output_dir=tmp_path)
    module = parse((tmp_path / "ptoas" / "cols.pto").read_text())
    defs = {}
    seen = set()
    for op in _ops(module.funcs[0].body):
        for r in op.results:
            defs[r.name] = op
        spec = dialect.PTO_OPS.get(op.name)
        if spec is None or not spec.row_major:
            continue
        uses = op.group("ins").uses + op.group("outs").uses
        types = op.group("ins").types + op.group("outs").types
        for operand, u, t in zip(spec.ins + spec.outs, uses, types):
            if operand.role in spec.row_major:
                assert t.blayout == "row_major", (op.name, u.name)
                if defs[u.name].name == "pto.treshape":
                    seen.add(op.name)
    assert {"pto.trsqrt", "pto.tsqrt", "pto.texp", "pto.tlog", "pto.trecip", "pto.tabs", "pto.trelu", "pto.tadd",
            "pto.tsub", "pto.tmul", "pto.tdiv", "pto.tmax", "pto.tmin"} <= seen
    x = np.random.default_rng(3).standard_normal((C.R, C.N)).astype(np.float32)
    y = np.zeros((C.R, C.K), np.float32)
    compiled(x, y)
    np.testing.assert_allclose(y, C.expected(x), rtol=2e-5, atol=1e-6)


def test_reducing_a_column_is_a_located_error(tmp_path):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(C.ReduceColumn, output_dir=tmp_path)
    assert ei.value.message == ("pl.row_sum of a [16, 1] column tile is not supported: the PTO assembler takes only "
                                "row-major tiles there (pto.trowsum src), and a column is stored column-major")
    lines = Path(C.__file__).read_text().splitlines()
    assert ei.value.loc.line == lines.index("        c = pl.row_sum(s, pl.create_tile([R, 1], dtype=pl.FP32))") + 1
