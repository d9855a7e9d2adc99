"""The a5 launch gate checker on gcc-built fixture ELFs, plus fuzzing of the readers."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ptokit.cli import main as ptokit_main
from ptokit.launch import ElfMetaError, decode_tlv, inspect_elf
from ptokit.launch import elf_meta
from ptokit.launch.elf_meta import format_report

GOOD_AIV = "7,0,4,0, 0x00,0x20,0,0, 12,0,4,0, 4,0,0,0"      # 8 KB, SIMD_SIMT_MIX_VF
AIC_META = "7,0,4,0, 0x00,0x20,0,0"                          # UB share only, no VF tag


def _c(entries, simt_global=False, extra=""):
    """C source: one meta section + one GLOBAL function per entry, a LOCAL simt anchor."""
    parts = []
    for i, (name, tlv) in enumerate(entries):
        parts.append(f'__attribute__((section(".ascend.meta.{name}"), used)) '
                     f'static const unsigned char meta_{i}[] = {{{tlv}}};')
        parts.append(f"void {name}(long *args) {{ if (args) args[0] = {i}; }}")
    storage = "" if simt_global else "static "
    parts.append(f"__attribute__((used, noinline)) {storage}void vec_dispatch_simt_entry(int *p) {{ if (p) *p = 1; }}")
    parts.append(extra)
    return "\n".join(parts) + "\n"


FIXTURES = {
    "good": _c([("vec_dispatch_mix_aiv", GOOD_AIV), ("cube_mix_aic", AIC_META)]),
    "simt_only": _c([("vec_dispatch_mix_aiv", "7,0,4,0, 0,0x20,0,0, 12,0,4,0, 3,0,0,0")]),
    "no_vf": _c([("vec_dispatch_mix_aiv", "7,0,4,0, 0,0x20,0,0, 12,0,4,0, 1,0,0,0")]),
    "missing": _c([("vec_dispatch_mix_aiv", "7,0,4,0, 0,0x20,0,0")]),
    "extra_global": _c([("vec_dispatch_mix_aiv", GOOD_AIV)], simt_global=True),
    "ub_over": _c([("vec_dispatch_mix_aiv", "7,0,4,0, 0x00,0x70,0x03,0, 12,0,4,0, 4,0,0,0")]),  # 220 KB
    "truncated": _c([("vec_dispatch_mix_aiv", "7,0,4,0, 0,0x20,0,0, 12,0,4,0, 4,0")]),
    "aic_tagged": _c([("cube_mix_aic", GOOD_AIV)]),
    "unknown_rec": _c([("vec_dispatch_mix_aiv", GOOD_AIV + ", 99,0,2,0, 0xab,0xcd")]),
    "no_suffix": _c([("dispatcher", GOOD_AIV), ("helper", AIC_META)]),
    "no_meta": "int f(int x) { return x + 1; }\n",
    # the dispatcher's AIC entry is GLOBAL without a meta section of its own
    "aic_no_meta": _c([("vec_dispatch_mix_aiv", GOOD_AIV)], extra="void cube_mix_aic(long *a) { if (a) a[1] = 2; }"),
    "aic_no_meta_extra": _c([("vec_dispatch_mix_aiv", GOOD_AIV)],
                            extra="void cube_mix_aic(long *a) { if (a) a[1] = 2; }\n"
                                  "void helper_kernel(long *a) { if (a) a[2] = 3; }"),
    "aiv_no_meta": _c([("cube_mix_aic", AIC_META)], extra="void vec_mix_aiv(long *a) { if (a) a[1] = 2; }"),
}


@pytest.fixture(scope="module")
def elfs(tmp_path_factory):
    d = tmp_path_factory.mktemp("elfs")
    out = {}
    for name, src in FIXTURES.items():
        c = d / f"{name}.c"
        c.write_text(src)
        so = d / f"{name}.so"
        subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", str(c), "-o", str(so)], check=True)
        out[name] = so
    (d / "not_elf.bin").write_bytes(b"#!/bin/sh\necho hi\n")
    out["not_elf"] = d / "not_elf.bin"
    out["empty"] = d / "empty.bin"
    out["empty"].write_bytes(b"")
    return out


def _entry(rep, name):
    return next(e for e in rep.entries if e.name == name)


def test_good_mix_dispatcher(elfs):
    rep = inspect_elf(elfs["good"])
    assert rep.passed
    aiv = _entry(rep, "vec_dispatch_mix_aiv")
    assert aiv.kind == "aiv" and aiv.classification == "SIMD_SIMT_MIX_VF" and aiv.ub_share == 8192
    assert aiv.budget_total == 8192 and aiv.budget_ok
    aic = _entry(rep, "cube_mix_aic")
    assert aic.kind == "aic" and aic.aiv_type is None and aic.passed
    globals_ = {s.name for s in rep.global_functions}
    locals_ = {s.name for s in rep.local_functions}
    assert {"vec_dispatch_mix_aiv", "cube_mix_aic"} <= globals_
    assert "vec_dispatch_simt_entry" in locals_ and "vec_dispatch_simt_entry" not in globals_


@pytest.mark.parametrize("fixture, reason", [
    ("simt_only", "rejects every SIMD launch (107000"),
    ("no_vf", "SIMT path will not run"),
    ("missing", "SIMT path will not run"),
    ("aic_tagged", "AIC entries must carry none"),
])
def test_entry_failures(elfs, fixture, reason):
    rep = inspect_elf(elfs[fixture])
    assert not rep.passed
    assert any(reason in r for e in rep.entries for r in e.reasons)


def test_extra_global_simt_entry(elfs):
    rep = inspect_elf(elfs["extra_global"])
    assert not rep.passed
    assert all(e.passed for e in rep.entries)  # the entry itself is fine ...
    assert any("vec_dispatch_simt_entry" in p and "registered as a second kernel, 107000" in p
               for p in rep.symbol_problems)  # ... the exported anchor is not
    assert inspect_elf(elfs["extra_global"], expected_globals=("vec_dispatch_simt_entry",)).passed


def test_ub_budget(elfs):
    rep = inspect_elf(elfs["ub_over"])
    assert rep.passed and _entry(rep, "vec_dispatch_mix_aiv").ub_share == 220 * 1024
    assert inspect_elf(elfs["ub_over"], local_memory=4 * 1024).passed  # exactly 224 KB
    rep = inspect_elf(elfs["ub_over"], local_memory=4 * 1024 + 1)
    assert not rep.passed
    assert any("UB budget exceeded" in r and "229377 > 229376" in r
               for r in _entry(rep, "vec_dispatch_mix_aiv").reasons)


def test_truncated_tlv(elfs):
    with pytest.raises(ElfMetaError, match="past the end of the section"):
        inspect_elf(elfs["truncated"])


def test_unknown_records_listed_not_fatal(elfs):
    rep = inspect_elf(elfs["unknown_rec"])
    assert rep.passed
    e = _entry(rep, "vec_dispatch_mix_aiv")
    assert e.unknown_records == [{"type": 99, "length": 2, "value": "abcd"}]


def test_kind_without_suffix(elfs):
    rep = inspect_elf(elfs["no_suffix"])
    d, h = _entry(rep, "dispatcher"), _entry(rep, "helper")
    assert d.kind == "aiv" and "AIV_TYPE_FLAG" in d.kind_source
    assert h.kind == "aic" and h.kind_source.startswith("assumed") and h.notes
    rep = inspect_elf(elfs["no_suffix"], entry_kinds={"helper": "aiv"})
    assert any("SIMT path will not run" in r for r in _entry(rep, "helper").reasons)


@pytest.mark.parametrize("fixture, message", [
    ("not_elf", "not an ELF"), ("empty", "not an ELF"), ("no_meta", "no .ascend.meta"),
])
def test_unreadable_inputs(elfs, fixture, message):
    with pytest.raises(ElfMetaError, match=message):
        inspect_elf(elfs[fixture])


def test_missing_file(tmp_path):
    with pytest.raises(ElfMetaError, match="cannot read"):
        inspect_elf(tmp_path / "nope.so")


def test_cli_exit_codes_and_json(elfs, capsys):
    assert ptokit_main(["inspect-elf", str(elfs["good"])]) == 0
    text = capsys.readouterr().out
    assert "SIMD_SIMT_MIX_VF" in text and "result: PASS" in text
    assert ptokit_main(["inspect-elf", str(elfs["simt_only"]), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False and data["entries"][0]["classification"] == "SIMT_VF_ONLY"
    assert ptokit_main(["inspect-elf", str(elfs["ub_over"]), "--local-memory", "8K"]) == 1
    assert "EXCEEDED" in capsys.readouterr().out
    assert ptokit_main(["inspect-elf", str(elfs["not_elf"])]) == 2
    err = capsys.readouterr().err
    assert "not an ELF" in err and "Traceback" not in err
    assert ptokit_main(["inspect-elf", str(elfs["truncated"])]) == 2


def test_readelf_hex_of_good_entry(elfs):
    """The spec's hex dump of a good AIV entry: 07000400 00200000 and 0c000400 04000000."""
    raw = elf_meta.read_meta_sections(elfs["good"].read_bytes())["vec_dispatch_mix_aiv"]
    assert raw.hex() == "07000400002000000c00040004000000"


# ---------------------------------------------------------------------------
# decoder unit tests and fuzzing
# ---------------------------------------------------------------------------


def test_decode_tlv_basics():
    recs = decode_tlv(bytes.fromhex("07000400002000000c00040004000000"))
    assert [(r.type, r.as_u32()) for r in recs] == [(7, 8192), (12, 4)]
    assert decode_tlv(b"") == []
    assert len(decode_tlv(bytes.fromhex("0700040000200000") + b"\0\0")) == 1  # padding
    with pytest.raises(ElfMetaError, match="truncated TLV header"):
        decode_tlv(bytes.fromhex("0700040000200000") + b"\x07\0")
    with pytest.raises(ElfMetaError, match="has length 2, expected 4"):
        elf_meta.judge_entry("x_aiv", bytes.fromhex("07000200ffff"))


def _tlv_stream():
    rec = st.tuples(st.integers(0, 0xFFFF), st.binary(max_size=12)).map(
        lambda t: t[0].to_bytes(2, "little") + len(t[1]).to_bytes(2, "little") + t[1])
    return st.lists(rec, max_size=6).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=64), _tlv_stream()), st.integers(0, 64), st.binary(max_size=3))
def test_fuzz_tlv_decoder(data, cut, junk):
    for blob in (data, data[:cut], data + junk):
        try:
            recs = decode_tlv(blob)
            assert sum(4 + r.length for r in recs) <= len(blob)
            elf_meta.judge_entry("fuzz_aiv", blob, local_memory=cut)
        except ElfMetaError:
            pass


@pytest.fixture(scope="module")
def good_bytes(elfs):
    return elfs["good"].read_bytes()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=8),
       st.one_of(st.none(), st.integers(0, 20000)))
def test_fuzz_section_reader_mutated(good_bytes, edits, truncate):
    data = bytearray(good_bytes)
    for pos, val in edits:
        # bias mutations towards the ELF header and the section headers (end of file)
        idx = pos % 64 if pos % 3 == 0 else (len(data) - 1 - pos % 1024 if pos % 3 == 1 else pos % len(data))
        data[idx] = val
    if truncate is not None:
        data = data[:truncate]
    try:
        elf_meta.inspect_elf_bytes(bytes(data))
    except ElfMetaError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=256))
def test_fuzz_section_reader_random(data):
    for blob in (data, b"\x7fELF" + data):
        try:
            elf_meta.inspect_elf_bytes(blob)
        except ElfMetaError:
            pass


def test_dispatcher_aic_entry_without_meta_is_expected(elfs):
    rep = inspect_elf(elfs["aic_no_meta"])
    assert rep.passed, format_report(rep)
    aic = _entry(rep, "cube_mix_aic")
    assert aic.kind == "aic" and aic.section == "(none)" and aic.records == [] and aic.passed
    assert any("without records of its own" in n for n in aic.notes)
    assert not rep.symbol_problems
    assert ptokit_main(["inspect-elf", str(elfs["aic_no_meta"])]) == 0


def test_only_globals_beyond_the_dispatcher_entries_are_107000(elfs):
    rep = inspect_elf(elfs["aic_no_meta_extra"])
    assert not rep.passed and all(e.passed for e in rep.entries)
    assert rep.symbol_problems == [f"GLOBAL helper_kernel: {elf_meta.REASON_EXTRA_GLOBAL}"]
    assert {e.name for e in rep.entries} == {"vec_dispatch_mix_aiv", "cube_mix_aic"}


def test_dispatcher_aiv_entry_without_meta_fails_as_no_vf(elfs):
    rep = inspect_elf(elfs["aiv_no_meta"])
    assert not rep.passed and not rep.symbol_problems
    assert _entry(rep, "vec_mix_aiv").reasons == [elf_meta.REASON_MISSING]
    assert _entry(rep, "cube_mix_aic").passed
