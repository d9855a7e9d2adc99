"""memory_planner (issue 29): pypto's planner choice reaches the compile; under PTOAS the pl.MemRef
forms pypto refuses are refused, located, and the forms it keeps run as under the default planner."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.passes.context import PassContext
from ptokit.runtime import RunConfig
from ptokit.targets import MemoryPlanner

from . import memref_programs as F

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
SRC = F.__file__


def _line_of(text: str) -> int:
    """The 1-based line of ``memref_programs.py`` holding ``text`` (once)."""
    lines = [i + 1 for i, ln in enumerate(open(SRC).read().splitlines()) if text in ln]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def _ramps(*shapes):
    return [((np.arange(np.prod(s)).reshape(s) * (k + 1) + 7 * k) / np.prod(s)).astype(np.float32)
            for k, s in enumerate(shapes)]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_colive_slots_run_under_the_default_planners(tmp_path, runtime):
    a, b = _ramps((64, 64), (64, 64))
    for planner in (None, MemoryPlanner.PYPTO, "DSA_RP"):
        out = np.zeros_like(a)
        ptokit.compile(F.CoLiveSlots, output_dir=tmp_path / str(planner), runtime=runtime,
                       memory_planner=planner)(a, b, out)
        np.testing.assert_array_equal(out, a - b)


def test_colive_slots_refused_under_ptoas(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(F.CoLiveSlots, output_dir=tmp_path / "o", memory_planner=MemoryPlanner.PTOAS)
    e = info.value
    assert (e.loc.line, str(e.loc.file)) == (_line_of("hi: pl.Tile[[R, C], pl.FP32, colive["), SRC)
    assert ("pl.MemRef 'colive' (slots=2) cannot be kept under memory_planner=PTOAS: tiles 'lo' and 'hi' take "
            "two of its slots in one loop iteration") in str(e)
    assert "or compile with the default planner (memory_planner=PYPTO)" in str(e)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_one_slot_per_iteration_runs_under_ptoas(tmp_path, runtime):
    x, y = _ramps((64, 64), (16, 64))
    out = np.zeros((16, 64), np.float32)
    ptokit.compile(F.OneSlotPerIteration, output_dir=tmp_path / "o", runtime=runtime,
                   memory_planner="PTOAS")(x, y, out)
    np.testing.assert_allclose(out, x.reshape(4, 16, 64).sum(0) - y, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_cube_slots_run_under_ptoas(tmp_path, runtime):
    rng = np.random.default_rng(5)
    a, b = [(rng.standard_normal(s) * 0.3).astype(np.float16) for s in ((64, 32), (32, 64))]
    y = np.zeros((64, 64), np.float32)
    ptokit.compile(F.CubeSlots, output_dir=tmp_path / "o", runtime=runtime, memory_planner="PTOAS")(a, b, y)
    np.testing.assert_allclose(y, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_carried_slot_is_a_copy_and_runs_under_ptoas(tmp_path, runtime):
    # pypto refuses it (its phi would be the slot); ptokit's carried value is a copy of the slot's tile
    (x,) = _ramps((16, 64))
    out = np.zeros_like(x)
    ptokit.compile(F.CarriedSlot, output_dir=tmp_path / "o", runtime=runtime, memory_planner="PTOAS")(x, out)
    np.testing.assert_allclose(out, x + 2.0, rtol=1e-6)


@pytest.mark.parametrize("program, anchor, reason", [
    (F.DoubleBuffer, "e: pl.Tile[[R, C], pl.FP32, scratch",
     "pl.MemRef 'scratch' (slots=1) cannot be kept under memory_planner=PTOAS: the assembler plans every tile "
     "there and nothing keeps other tiles out of a one-slot allocation"),
    (F.SharedSlot, 'b: pl.Tile[[R, C], pl.FP32, pl.MemRef("pair"',
     "tiles 'a' and 'b' take two of its slots in one loop iteration"),
    (F.MixedSlotShapes, "b: pl.Tile[[R, 32], pl.FP32, two[1]",
     "its slots hold different tiles ('a': "),
    (F.LeftSlots, "la: pl.Tile[[16, 32], pl.FP16, lefts[0]",
     "tile 'la' is in Left, and a multi-buffer region lives in Vec, Mat, Acc only"),
    (F.TooManySlots, "a: pl.Tile[[R, C], pl.FP32, many[3]",
     "pl.MemRef 'many' (slots=17) cannot be kept under memory_planner=PTOAS: a multi-buffer region has 2 to 16 "
     "slots"),
])
def test_ptoas_refusals_are_located(tmp_path, program, anchor, reason):
    ptokit.compile(program, output_dir=tmp_path / "default")        # the default planner takes it
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "ptoas", memory_planner=MemoryPlanner.PTOAS)
    assert reason in str(info.value)
    assert info.value.loc.line == _line_of(anchor)


def test_the_option_reaches_the_compile_from_every_entry(tmp_path):
    # RunConfig: a compile field now (jit call and compile_kwargs), and a PassContext holds it too
    assert RunConfig(memory_planner="PTOAS").compile_kwargs()["memory_planner"] is MemoryPlanner.PTOAS
    assert "memory_planner" not in RunConfig().compile_kwargs()
    with PassContext(memory_planner=MemoryPlanner.PTOAS):
        with pytest.raises(CompileError, match="memory_planner=PTOAS"):
            ptokit.compile(F.CoLiveSlots, output_dir=tmp_path / "ctx")
        with pytest.raises(ValueError, match="also sets the memory planner; give it in one place only"):
            ptokit.compile(F.CoLiveSlots, output_dir=tmp_path / "both", memory_planner="PYPTO")
    jit = F.make_jit("tensormap_and_ringbuffer")
    x, y = _ramps((64, 64))[0], np.zeros((64, 64), np.float32)
    jit(x, y, config=RunConfig(memory_planner="PYPTO"))
    np.testing.assert_allclose(y, x + 1.0, rtol=1e-6)
    with pytest.raises(CompileError, match="pl.MemRef 'scratch' \\(slots=1\\) cannot be kept"):
        jit(x, y, config=RunConfig(memory_planner="PTOAS"))


def test_unknown_planner_is_refused(tmp_path):
    with pytest.raises(ValueError, match="memory_planner='LEVEL2' is not one of PYPTO, DSA_RP, PTOAS"):
        ptokit.compile(F.CoLiveSlots, output_dir=tmp_path / "o", memory_planner="LEVEL2")


def test_ptoas_is_part_of_the_compile_cache_key(tmp_path):
    ok = ptokit.compile(F.DoubleBuffer, output_dir=tmp_path / "a")        # cached under the default planner
    assert ok.output_dir.is_dir()
    with pytest.raises(CompileError, match="scratch"):
        ptokit.compile(F.DoubleBuffer, output_dir=tmp_path / "b", memory_planner="PTOAS")

