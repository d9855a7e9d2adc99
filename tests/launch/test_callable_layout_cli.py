"""`ptokit callable-layout`: offsets, mod 8 / mod 16 and the verdict come from the packer's code."""
from __future__ import annotations

import json

import pytest

from ptokit.cli import main as ptokit_main
from ptokit.runtime import callable as cc


@pytest.mark.parametrize("argv, storage, rc, word", [
    (["--chip-max-tensor-args", "128", "--child-align", "0"], 8852, 1, "BROKEN"),
    (["--chip-max-tensor-args", "128", "--child-align", "8"], 8856, 1, "FRAGILE"),
    (["--chip-max-tensor-args", "128", "--child-align", "16"], 8864, 0, "OK"),
    ([], 9376, 0, "OK"),
])
def test_text_report(capsys, argv, storage, rc, word):
    assert ptokit_main(["callable-layout"] + argv) == rc
    out = capsys.readouterr().out
    assert f"offsetof(storage) = {storage}   mod 8 = {storage % 8}   mod 16 = {storage % 16}" in out
    assert f"SIMT alignment: {word}" in out


def test_json_matches_packer_layout(capsys):
    assert ptokit_main(["callable-layout", "--json", "--chip-max-tensor-args", "128", "--child-align", "0"]) == 1
    rep = json.loads(capsys.readouterr().out)
    layout = cc.chip_callable_layout(128, 0)
    assert [(f["name"], f["offset"]) for f in rep["fields"]] == [(f.name, f.offset) for f in layout.fields]
    assert rep["asserts_ok"] is False and rep["assert_problems"] == cc.layout_problems(layout, 0)
    assert rep["core_callable"]["binary_data_offset"] == 192


def test_bad_alignment_argument(capsys):
    assert ptokit_main(["callable-layout", "--child-align", "12"]) == 2
    assert "power of two" in capsys.readouterr().err
