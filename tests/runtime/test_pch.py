"""The tile library's precompiled header (ptokit/runtime/pch.py): used for generated kernels,
same object bytes as without it, verified, and a clean fall-back wherever it may not or cannot
be used."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import ptokit
import programs
from ptokit.artifacts.kernel_prelude import PRELUDE
from ptokit.errors import BuildError
from ptokit.runtime import build as B
from ptokit.runtime import pch


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return ptokit.compile(programs.Elementwise, output_dir=tmp_path_factory.mktemp("ew")).output_dir


def _kernel_jobs(tree_dir):
    from ptokit.artifacts.kernel_config import read_kernel_config
    return B.tree_jobs(read_kernel_config(tree_dir))[1:]


def _build(job):
    return B.compile_shared(job.source, defines=job.defines, include_dirs=job.include_dirs,
                            extra_flags=job.extra_flags, name_hint=job.name_hint)


def _command(obj: Path) -> list:
    return json.loads(obj.with_suffix(".json").read_text())["command"]


def _pch_files(cache: Path):
    return sorted((cache / "build" / "pch").glob("*.json"))


def _kernel(folder: Path, body: str, prelude=PRELUDE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "k.cpp"
    src.write_text("// Kernel k (aiv): a test kernel\n" + "\n".join(prelude) + "\n\nusing namespace pto;\n" + body)
    return src


BODY = """
using T = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
               CompactMode::Null>;
extern "C" int k_rows(void) { return T::Rows * 100 + T::Cols; }
"""


def _compile(src: Path, **kw):
    return B.compile_shared(src, defines=("__CPU_SIM", "__DAV_VEC__"), include_dirs=[B.INCLUDE_DIR, src.parent], **kw)


def test_generated_kernels_use_the_pch_and_give_the_same_bytes(tree, tmp_path, monkeypatch):
    jobs = _kernel_jobs(tree)
    assert jobs and all(pch.starts_with_prelude(Path(j.source).read_bytes()) for j in jobs)
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "with"))
    with_pch = [_build(j) for j in jobs]
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "without"))
    monkeypatch.setenv("PTOKIT_NO_PCH", "1")
    without = [_build(j) for j in jobs]
    for a, b in zip(with_pch, without):
        assert "-include" in _command(a) and "-include" not in _command(b)
        assert a.read_bytes() == b.read_bytes()
        assert a.name == b.name                 # the object's cache key does not depend on the PCH
    metas = [json.loads(p.read_text()) for p in _pch_files(tmp_path / "with")]
    assert len(metas) == 1 and metas[0]["usable"] is True      # every kernel here has the same flags
    assert not (tmp_path / "without" / "build" / "pch").exists()


def test_one_pch_per_flag_list(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    src = _kernel(tmp_path / "k", BODY)
    a = _compile(src)
    b = _compile(src, extra_flags=("-DPTO_CPU_NO_FUSION",))
    inc_a, inc_b = (_command(o)[_command(o).index("-include") + 1] for o in (a, b))
    assert inc_a != inc_b and len(_pch_files(tmp_path / "c")) == 2
    assert a.read_bytes() != b"" and _compile(src) == a       # a cache hit, the PCH not rebuilt
    assert len(_pch_files(tmp_path / "c")) == 2


def test_sources_without_the_prelude_get_no_pch(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    src = _kernel(tmp_path / "k", BODY, prelude=("#include <pto/pto-inst.hpp>", '#include "tensor.h"'))
    assert "-include" not in _command(_compile(src))
    assert not _pch_files(tmp_path / "c")


def test_a_header_beside_the_kernel_turns_it_off(tmp_path, monkeypatch):
    """A file in the kernel's folder could shadow a header the library includes: no PCH."""
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    src = _kernel(tmp_path / "k", BODY)
    (tmp_path / "k" / "tensor.h").write_text("#error not this one\n")
    with pytest.raises(BuildError, match="not this one"):     # g++ takes the kernel folder's tensor.h
        _compile(src)
    assert not _pch_files(tmp_path / "c")


def test_warnings_are_still_errors_with_the_pch(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    src = _kernel(tmp_path / "k", BODY + "extern \"C\" int k_warn(void) { int unused = 3; return 0; }\n")
    with pytest.raises(BuildError, match="unused"):
        _compile(src, extra_flags=("-Werror",))
    assert [json.loads(p.read_text())["usable"] for p in _pch_files(tmp_path / "c")] == [True]


def _refusing_gxx(folder: Path, refuse: str) -> Path:
    """A g++ that fails whenever its arguments contain ``refuse``."""
    exe = folder / "gxx-refusing"
    exe.write_text(f'#!/bin/sh\nfor a in "$@"; do [ "$a" = "{refuse}" ] && {{ echo "refused: $a" >&2; exit 1; }}; '
                   'done\nexec g++ "$@"\n')
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize("refuse", ["c++-header", "-Winvalid-pch"])
def test_a_refused_pch_is_recorded_and_kernels_build_without_it(tmp_path, monkeypatch, refuse):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("PTOKIT_CXX", str(_refusing_gxx(tmp_path, refuse)))
    src = _kernel(tmp_path / "k", BODY)
    obj = _compile(src)
    assert "-include" not in _command(obj)
    (meta_path,) = _pch_files(tmp_path / "c")
    meta = json.loads(meta_path.read_text())
    assert meta["usable"] is False and "refused" in meta["refused"]
    assert not Path(str(meta_path.with_suffix(".hpp")) + ".gch").exists()
    src.write_text(src.read_text() + "\n// changed\n")
    assert "-include" not in _command(_compile(src))            # the refusal is remembered
    assert len(_pch_files(tmp_path / "c")) == 1


def test_a_damaged_pch_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    src = _kernel(tmp_path / "k", BODY)
    _compile(src)
    (meta_path,) = _pch_files(tmp_path / "c")
    gch = Path(str(meta_path.with_suffix(".hpp")) + ".gch")
    data = bytearray(gch.read_bytes())
    data[len(data) // 2] ^= 0xFF
    gch.write_bytes(bytes(data))
    pch._verified.clear()                   # what a new process would see
    src.write_text(src.read_text() + "\n// changed\n")
    obj = _compile(src)
    assert "-include" in _command(obj)
    meta = json.loads(meta_path.read_text())
    assert meta["usable"] is True and pch.cachedir.sha256_verified(gch) == meta["sha256"]


def test_no_pch_for_clang_or_the_vendor_library(tmp_path):
    src = _kernel(tmp_path / "k", BODY)
    data = src.read_bytes()
    assert pch.applies(data, src, [B.INCLUDE_DIR, src.parent], [], B.INCLUDE_DIR, "g++")
    assert not pch.applies(data, src, [src.parent], [tmp_path, B.INCLUDE_DIR], B.INCLUDE_DIR, "g++")
    assert not pch.applies(data, src, [src.parent, B.INCLUDE_DIR], [], B.INCLUDE_DIR, "g++")   # not first


def test_a_killed_pch_build_is_not_recorded_as_a_refusal(tmp_path, monkeypatch):
    """g++ killed (a signal, not a verdict): the kernel builds without the PCH, and the next build
    tries to make it again."""
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    exe = tmp_path / "gxx-killed"
    exe.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = "c++-header" ] && kill -9 $$; done\nexec g++ "$@"\n')
    exe.chmod(0o755)
    monkeypatch.setenv("PTOKIT_CXX", str(exe))
    src = _kernel(tmp_path / "k", BODY)
    assert "-include" not in _command(_compile(src))
    assert not _pch_files(tmp_path / "c")
    exe.write_text('#!/bin/sh\nexec g++ "$@"\n')          # the same compiler (identity), now not killed
    src.write_text(src.read_text() + "\n// changed\n")
    assert "-include" in _command(_compile(src))
    assert [json.loads(p.read_text())["usable"] for p in _pch_files(tmp_path / "c")] == [True]
