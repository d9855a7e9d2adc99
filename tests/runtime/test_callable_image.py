"""ChipCallable / CoreCallable image: layout, pack/unpack, patching, C++ offsetof agreement."""
from __future__ import annotations

import subprocess
import struct

import pytest
from hypothesis import given, settings, strategies as st

from ptokit.errors import InternalError, UserError
from ptokit.runtime import callable as cc


@pytest.mark.parametrize("chip_max, align, expected", [
    (128, 0, 8852), (128, 8, 8856), (128, 16, 8864), (256, 16, 9376),
])
def test_storage_offset_pinned(chip_max, align, expected):
    assert cc.chip_callable_layout(chip_max, align).offsetof("storage") == expected


def test_core_callable_constants():
    core = cc.core_callable_layout()
    assert core.header_size == 144 and core.alignof == 8
    assert core.offsetof("resolved_addr") == 136
    assert cc.binary_data_offset() == 192


def test_asserts_refuse_bad_layouts():
    assert cc.layout_problems(cc.chip_callable_layout(128, 16), 16) == []
    probs = cc.layout_problems(cc.chip_callable_layout(128, 0), 0)
    assert any("alignof(CoreCallable)" in p for p in probs)
    assert cc.layout_problems(cc.chip_callable_layout(128, 8), 8) == []  # passes the asserts...
    ok, verdict = cc.simt_verdict(8856)
    assert not ok and "FRAGILE" in verdict  # ...but is only 8-byte aligned for SIMT
    assert cc.simt_verdict(8864)[0] and "BROKEN" in cc.simt_verdict(8852)[1]
    with pytest.raises(InternalError, match="refusing"):
        cc.pack_chip_callable(b"x", [], "f", "c", [], chip_max=128, child_align=4)
    with pytest.raises(InternalError, match="refusing"):
        cc.check_layout(128, 0)


def _sample():
    orch = bytes(range(256)) * 3 + b"orch"
    kids = [(0, [1, 1, 2], b"\x7fELF-k0" * 50), (3, [3], b"k3"), (7, [], b"")]
    return orch, kids


def test_pack_unpack_round_trip():
    orch, kids = _sample()
    img = cc.pack_chip_callable(orch, kids, "aicpu_orchestration_entry", "my_tree", [1, 1, 2, 0])
    view = cc.unpack_chip_callable(img)
    assert view.func_name == "aicpu_orchestration_entry" and view.config_name == "my_tree"
    assert view.signature == [1, 1, 2, 0]
    assert view.orchestration == orch
    assert [(c.func_id, c.signature, c.binary) for c in view.children] == kids
    assert view.storage_offset == 9376
    prev_end = len(orch)
    for c in view.children:
        assert c.offset % 64 == 0 and c.offset == cc.align_up(prev_end, 64)
        assert c.resolved_addr == 0
        prev_end = c.offset + 192 + len(c.binary)
    assert len(img) == 9376 + prev_end
    # raw header fields where the layout says
    assert struct.unpack_from("<i", img, 1024)[0] == 4  # sig_count after signature[256]
    assert struct.unpack_from("<I", img, 1028)[0] == len(orch)


def test_patch_never_mutates_input():
    orch, kids = _sample()
    img = bytearray(cc.pack_chip_callable(orch, kids, "f", "c", [1]))
    before = bytes(img)
    base = 0x10000
    patched = cc.patch_resolved_addrs(img, base)
    assert bytes(img) == before
    assert patched != before and len(patched) == len(before)
    view = cc.unpack_chip_callable(patched)
    for c in view.children:
        addr = base + 9376 + c.offset + 192
        assert c.resolved_addr == addr and addr % 16 == 0
    # only the resolved_addr words changed
    diff = [i for i in range(len(before)) if before[i] != patched[i]]
    slots = {9376 + c.offset + 136 + j for c in view.children for j in range(8)}
    assert set(diff) <= slots


def test_fnv1a64_known_values():
    assert cc.fnv1a64(b"") == 0xCBF29CE484222325
    assert cc.fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert cc.fnv1a64(b"foobar") == 0x85944171F73967E8


def test_limits():
    with pytest.raises(UserError, match="at most 32"):
        cc.pack_chip_callable(b"", [(0, [1] * 33, b"")], "f", "c", [])
    with pytest.raises(UserError, match="bytes"):
        cc.pack_chip_callable(b"", [], "f" * 64, "c", [])
    with pytest.raises(UserError, match="ArgDirection"):
        cc.pack_chip_callable(b"", [(0, [9], b"")], "f", "c", [])


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=10000))
def test_unpack_garbage_is_user_error(data):
    try:
        cc.unpack_chip_callable(data)
    except UserError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 9375 + 200), st.integers(0, 255))
def test_unpack_mutated_is_user_error(pos, byte):
    orch, kids = _sample()
    img = bytearray(cc.pack_chip_callable(orch, kids, "f", "c", [1]))
    img[pos % len(img)] = byte
    try:
        cc.unpack_chip_callable(bytes(img))
    except UserError:
        pass


def _cpp_offsets(tmp_path, chip_max, align):
    alignas = f"alignas({align}) " if align > 1 else ""
    fields = cc.chip_callable_layout(chip_max, align).fields
    prints = "\n".join(f'    std::printf("{f.name} %zu\\n", offsetof(ChipCallable, {f.name}));' for f in fields)
    src = f"""
#include <cstddef>
#include <cstdint>
#include <cstdio>
struct CoreCallable {{
    int32_t signature[32]; int32_t sig_count; uint32_t binary_size; uint64_t resolved_addr; char storage[];
}};
struct ChipCallable {{
    int32_t signature[{chip_max}];
    int32_t sig_count;
    uint32_t binary_size;
    char func_name[64];
    uint32_t func_name_len;
    int32_t child_func_ids[1024];
    uint32_t child_offsets[1024];
    int32_t child_count;
    char config_name[64];
    uint32_t config_name_len;
    {alignas}char storage[];
}};
int main() {{
{prints}
    std::printf("core_header %zu\\n", offsetof(CoreCallable, storage));
    std::printf("core_align %zu\\n", alignof(CoreCallable));
    return 0;
}}
"""
    c = tmp_path / f"layout_{chip_max}_{align}.cpp"
    c.write_text(src)
    exe = tmp_path / f"layout_{chip_max}_{align}"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", str(c), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return dict((k, int(v)) for k, v in (ln.split() for ln in out.splitlines()))


@pytest.fixture(scope="module")
def cpp_results(tmp_path_factory):
    d = tmp_path_factory.mktemp("layout")
    return {(m, a): _cpp_offsets(d, m, a) for m, a in [(128, 0), (128, 8), (128, 16), (256, 16)]}


@pytest.mark.parametrize("chip_max, align", [(128, 0), (128, 8), (128, 16), (256, 16)])
def test_cpp_offsetof_matches(cpp_results, chip_max, align):
    got = cpp_results[(chip_max, align)]
    for f in cc.chip_callable_layout(chip_max, align).fields:
        assert got[f.name] == f.offset, f.name
    assert got["core_header"] == 144 and got["core_align"] == 8


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300),
       st.lists(st.tuples(st.integers(-5, 2000), st.lists(st.integers(0, 3), max_size=32), st.binary(max_size=200)),
                max_size=6),
       st.lists(st.integers(0, 3), max_size=256),
       st.text(max_size=20), st.integers(0, 1 << 40))
def test_round_trip_property(orch, kids, chip_sig, name, base):
    name = name.encode("utf-8")[:63].decode("utf-8", "ignore")
    img = cc.pack_chip_callable(orch, kids, name, "cfg", chip_sig)
    view = cc.unpack_chip_callable(img)
    assert view.orchestration == orch and view.signature == chip_sig and view.func_name == name
    assert [(c.func_id, c.signature, c.binary) for c in view.children] == kids
    patched = cc.unpack_chip_callable(cc.patch_resolved_addrs(img, base * 512))
    for c in patched.children:
        assert c.offset % 64 == 0
        assert c.resolved_addr == base * 512 + 9376 + c.offset + 192
        assert c.resolved_addr % 16 == 0
