"""check_corpus.py: a corpus through a ptoas, rejections grouped by first error, the smallest accepted
file per dialect row picked (a stand-in ptoas here: it refuses a module holding ``pto.bogus``)."""
from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import check_corpus   # noqa: E402

FAKE = """#!/bin/sh
# the arguments: X.pto -o X.cpp --pto-level=level3 --pto-arch=a3|a5 --enable-insert-sync
if grep -q 'pto.bogus' "$1"; then
  line=$(grep -n 'pto.bogus' "$1" | head -1 | cut -d: -f1)
  echo "loc(\\"$1\\":$line:3): error: custom op 'pto.bogus' is unknown" >&2
  echo "Error: Failed to parse MLIR." >&2
  exit 1
fi
echo "// $5 AICORE" > "$3"
"""

OK = 'module attributes {{pto.target_arch = "{arch}"}} {{\n  func.func @k{n}() {{\n{body}    return\n  }}\n}}\n'


def _corpus(tmp: Path) -> Path:
    root = tmp / "corpus"
    for mode in check_corpus.MODES:
        (root / mode).mkdir(parents=True)
    (root / "default" / "a.pto").write_text(OK.format(arch="a5", n=1, body=""))
    (root / "default" / "b.pto").write_text(OK.format(arch="a2a3", n=2, body="    pto.bogus\n"))
    (root / "default" / "c.pto").write_text(OK.format(arch="a2a3", n=3, body="    pto.bogus %x\n"))
    (root / "compat-0.27" / "d.pto").write_text(OK.format(arch="a2a3", n=4, body="    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, valid=16x16>\n"))
    (root / "index.tsv").write_text("default\tb.pto\ttests/x.py::test_b\ndefault\tc.pto\ttests/x.py::test_c\n")
    (root / "refused.tsv").write_text("tests/x.py::test_e\tCompileError: 'pto.syncall' is not known to ptoas 0.27\n")
    return root


def _fake(tmp: Path) -> str:
    tool = tmp / "ptoas"
    tool.write_text(FAKE)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return str(tool)


def test_corpus_through_a_tool_counts_and_groups(tmp_path):
    root = _corpus(tmp_path)
    results = check_corpus.check(root, _fake(tmp_path), jobs=2)
    by_name = {n: (a, ok, e) for n, a, ok, e in results["default"]}
    assert by_name["a.pto"] == ("a5", True, "")
    assert by_name["b.pto"] == ("a3", False, "custom op 'pto.bogus' is unknown")
    assert (root / "default" / "a.real.cpp").read_text().startswith("// --pto-arch=a5")
    assert not (root / "default" / "b.real.cpp").exists()
    assert [ok for *_, ok, _ in results["compat-0.27"]] == [True]
    out = io.StringIO()
    check_corpus.report(root, results, out)
    text = out.getvalue()
    assert "default: 1 / 3 accepted" in text and "compat-0.27: 1 / 1 accepted" in text
    assert "     2  custom op 'pto.bogus' is unknown" in text          # two files, one group
    assert "tests/x.py::test_b" in text
    assert "compat lowerings refused by ptokit: 1" in text
    assert (root / "default" / "results.tsv").read_text().count("\trejected\t") == 2


def test_group_key_blanks_what_varies_per_file():
    a = check_corpus.group_key("'pto.tadd' op %12 rows 16 vs !pto.tile_buf<loc=vec, dtype=f32, rows=16>")
    b = check_corpus.group_key("'pto.tadd' op %3 rows 32 vs !pto.tile_buf<loc=vec, dtype=f16, rows=32>")
    assert a == b
    assert check_corpus.first_error("warning: x\nloc(\"f.pto\":1:2): error: bad thing\nerror: later") == "bad thing"
    assert check_corpus.first_error("Segmentation fault") == "Segmentation fault"


def test_smallest_accepted_file_per_row_is_picked(tmp_path):
    root = _corpus(tmp_path)
    big = OK.format(arch="a2a3", n=5, body="    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, valid=16x16>\n" * 3)
    (root / "default" / "e.pto").write_text(big)
    results = check_corpus.check(root, _fake(tmp_path), jobs=1)
    picked = check_corpus.pick_rows(root, results, tmp_path / "rows")
    assert picked.get("pto.alloc_tile") == "d.pto"        # the smaller of d and e
    assert (tmp_path / "rows" / "d.pto").is_file() and (tmp_path / "rows" / "d.real.cpp").is_file()
    assert "pto.alloc_tile\td.pto\t" in (tmp_path / "rows" / "picked.tsv").read_text()
    assert "pto.bogus" not in picked


def test_command_line(tmp_path, capsys):
    root = _corpus(tmp_path)
    assert check_corpus.main([str(root), "--ptoas", _fake(tmp_path), "-j", "1"]) == 0
    assert "default: 1 / 3 accepted" in capsys.readouterr().out
    assert os.path.isfile(root / "compat-0.27" / "results.tsv")
