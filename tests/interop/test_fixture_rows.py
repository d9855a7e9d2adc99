"""Every dialect row is covered by a recording of the real ptoas (tests/interop/fixtures/rows.tsv), or
listed as not covered with the reason; a row whose written form changed since its recording fails
until it is recorded again with the real tool.

rows.tsv: ``op<TAB>form digest<TAB>fixture (.pto under fixtures/, with its .real.cpp) or "-"<TAB>note``.
The digest covers what decides the text a writer produces for the row (form, operands, attributes
and their spelling, variants), not its C++ or pipe. Re-record a row: write a program that uses it,
run its ``.pto`` through ptoas 0.27 (docs/assembler.md), put the pair under fixtures/ and update the
row's line (``python tests/interop/test_fixture_rows.py`` prints the current digests).
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.pto import dialect
from ptokit.pto.compat import ops_of
from ptokit.pto.parser import parse

FIXTURES = Path(__file__).parent / "fixtures"
ROWS = FIXTURES / "rows.tsv"


def _attr_form(a: dialect.AttrSpec) -> tuple:
    form = (a.name, a.kind, a.required, a.allowed, a.prefix, a.dotted, a.place)
    return form + ((a.place_in,) if a.place_in else ())     # a release's own place (rows without keep their digest)


def _row_form(spec: dialect.OpSpec) -> tuple:
    return (spec.name, spec.form, tuple((o.role, o.kind) for o in spec.ins), tuple((o.role, o.kind) for o in spec.outs),
            spec.optional, tuple(_attr_form(a) for a in spec.attrs), spec.axis, spec.generic_if,
            tuple(_row_form(v) for v in spec.variants))


def form_digest(spec: dialect.OpSpec) -> str:
    return hashlib.sha256(repr(_row_form(spec)).encode()).hexdigest()[:16]


def recorded():
    out = {}
    for line in ROWS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            op, digest, fixture, note = (line.split("\t") + ["", "", ""])[:4]
            out[op] = (digest, fixture, note)
    return out


def test_every_row_is_listed():
    rows = recorded()
    missing = sorted(set(dialect.PTO_OPS) - set(rows))
    assert not missing, f"dialect rows without a line in {ROWS.name} (record them with the real ptoas): {missing}"
    gone = sorted(set(rows) - set(dialect.PTO_OPS))
    assert not gone, f"{ROWS.name} lists rows the dialect no longer has: {gone}"


def test_a_row_whose_form_changed_is_recorded_again():
    changed = [op for op, (digest, fixture, _) in recorded().items()
               if op in dialect.PTO_OPS and fixture != "-" and digest != form_digest(dialect.PTO_OPS[op])]
    assert not changed, (f"the written form of {changed} changed since the real ptoas's output was recorded "
                         f"for it: record it again (see this file's docstring)")


def test_a_row_without_a_recording_keeps_its_form_too():
    """A row 0.27 cannot read (no recording possible) is pinned by its digest all the same: changing its
    writer means checking the new form against pypto HEAD's source named in docs/assembler.md and
    updating the digest, or recording it once a ptoas that reads it is at hand."""
    changed = [op for op, (digest, fixture, _) in recorded().items()
               if op in dialect.PTO_OPS and fixture == "-" and digest != form_digest(dialect.PTO_OPS[op])]
    assert not changed, (f"the written form of {changed} changed, and no real ptoas output is recorded for it: "
                         f"record one, or check the form against pypto HEAD and update rows.tsv")


def test_an_uncovered_row_says_why():
    for op, (_, fixture, note) in recorded().items():
        if fixture == "-":
            assert note.strip(), f"{op}: a row without a recording needs a reason in {ROWS.name}"


def test_only_what_027_cannot_read_is_uncovered():
    """A row goes without a recording only when ptoas 0.27 cannot read it (a row it lacks, or the row
    written only with an attribute or type it lacks); any other row has its recording."""
    for op, (_, fixture, note) in recorded().items():
        if fixture != "-":
            continue
        lacking = "0.27" in dialect.PTO_OPS[op].absent_in
        assert lacking == note.startswith("newer than ptoas 0.27"), (op, note)
        assert lacking or note.startswith("0.27 cannot read"), f"{op}: record it with the real ptoas ({note})"


@pytest.mark.parametrize("op", sorted(op for op, (_, f, _n) in recorded().items() if f != "-"))
def test_each_recording_holds_its_row_and_the_real_output(op):
    _, fixture, _ = recorded()[op]
    pto = FIXTURES / fixture
    real = pto.with_suffix(".real.cpp")
    assert pto.is_file() and real.is_file(), fixture
    module = parse(pto.read_text(), str(pto))
    assert any(o.name == op for f in module.funcs for o in ops_of(f.body)), f"{fixture} has no {op}"
    assert "AICORE" in real.read_text()
    text = pto.read_text()
    assemble_text(text, str(pto), arch="a5" if 'target_arch = "a5"' in text else "a2a3")   # ptokit reads it too


if __name__ == "__main__":    # the current digest of each row, for rows.tsv
    for name, spec in sorted(dialect.PTO_OPS.items()):
        sys.stdout.write(f"{name}\t{form_digest(spec)}\n")


def test_row_programs_still_write_their_recordings(tmp_path):
    """The kernels of row_programs.py, compiled again, write byte for byte the .pto recorded with the
    real 0.27's C++: a writer change to any row they use fails here until it is recorded again."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("fixture_rows_programs", Path(__file__).parent / "row_programs.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # the DSL reads a program's source through its module
    spec.loader.exec_module(mod)
    (tmp_path / "src").mkdir()
    mod.compile_all(tmp_path)
    written = {p.name for p in (tmp_path / "compat-0.27").glob("*.pto")}
    wanted = {fixture.split("/")[-1] for _, fixture, note in recorded().values() if "row_programs.py" in note}
    assert wanted and wanted <= written, f"recorded but no longer written: {sorted(wanted - written)}"
