"""The cached libptosim must be rebuilt when any part of the simulator runtime changes.

ptosim.cpp, the runtime's translation unit, #includes internal headers (sim_*.hpp) next to
it; the build cache key follows #include "..." lines, so editing any of those headers
must change the key of its object, and so of the library the driver links.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ptokit.runtime import build
from ptokit.runtime.sim import driver

SIM_DIR = Path(driver.RUNTIME_SOURCE).parent
SIM_HEADERS = sorted(p.name for p in SIM_DIR.glob("sim_*.hpp"))


@pytest.fixture(scope="module")
def driver_call():
    """The exact (source, kwargs) of the runtime's unit among the units the driver passes to
    build_library, without compiling."""
    seen = []

    def spy(units, link_flags=(), name_hint=""):
        seen.append(list(units))
        return Path("/nonexistent/libptosim.so")

    mp = pytest.MonkeyPatch()
    mp.setattr(build, "build_library", spy)
    try:
        driver.library_path()
    finally:
        mp.undo()
    assert len(seen) == 1
    unit = next(u for u in seen[0] if Path(u.source).name == "ptosim.cpp")
    return Path(unit.source), {"defines": unit.defines, "include_dirs": unit.include_dirs,
                               "extra_flags": unit.extra_flags}


def _key(source: Path, kw: dict) -> str:
    return build.build_key(source, defines=kw.get("defines", ()), include_dirs=kw.get("include_dirs", ()),
                           extra_flags=kw.get("extra_flags", ()))


@pytest.fixture
def sim_copy(tmp_path, driver_call):
    """A copy of the simulator sources in a temporary folder, and the driver's kwargs."""
    dst = tmp_path / "sim"
    dst.mkdir()
    for p in SIM_DIR.iterdir():
        if p.suffix in (".cpp", ".h", ".hpp"):
            shutil.copy2(p, dst / p.name)
    return dst, driver_call[1]


def test_the_runtime_is_split_into_sim_headers(driver_call):
    source, _ = driver_call
    assert source == Path(driver.RUNTIME_SOURCE)
    assert source.name == "ptosim.cpp"
    # the parts named by the layout guide are separate headers
    for part in ("sim_common.hpp", "sim_device.hpp", "sim_tensormap.hpp", "sim_rings.hpp",
                 "sim_scheduler.hpp", "sim_fifo.hpp"):
        assert part in SIM_HEADERS


def test_every_sim_header_is_part_of_the_key(driver_call):
    source, kw = driver_call
    lines = build._header_digests(source.resolve(), [Path(d) for d in kw["include_dirs"]])
    hashed = {line.split()[1] for line in lines if line.startswith("header ")}
    assert set(SIM_HEADERS) | {"ptosim_api.h"} <= hashed


def test_copy_has_the_same_key_as_the_package(sim_copy, driver_call):
    # the key ignores folder paths, so an identical copy keys identically: the copy is complete
    folder, kw = sim_copy
    assert _key(folder / "ptosim.cpp", kw) == _key(driver_call[0], driver_call[1])


@pytest.mark.parametrize("header", SIM_HEADERS)
def test_touching_a_sim_header_changes_the_key(sim_copy, header):
    folder, kw = sim_copy
    src = folder / "ptosim.cpp"
    before = _key(src, kw)
    path = folder / header
    original = path.read_bytes()
    path.write_bytes(original + b"\n// touched\n")
    touched = _key(src, kw)
    assert touched != before
    # same size, one byte different: still a different key (content, not size)
    flipped = bytearray(original)
    i = flipped.index(b"//")
    flipped[i + 1:i + 2] = b"*" if flipped[i + 1:i + 2] != b"*" else b"/"
    path.write_bytes(bytes(flipped))
    assert _key(src, kw) not in (before, touched)
    # content-addressed: restoring the bytes restores the key
    path.write_bytes(original)
    assert _key(src, kw) == before


def test_touching_the_api_header_or_source_changes_the_key(sim_copy):
    folder, kw = sim_copy
    src = folder / "ptosim.cpp"
    before = _key(src, kw)
    api = folder / "ptosim_api.h"
    api.write_bytes(api.read_bytes() + b"\n// touched\n")
    after_api = _key(src, kw)
    assert after_api != before
    src.write_bytes(src.read_bytes() + b"\n// touched\n")
    assert _key(src, kw) not in (before, after_api)
