"""The race checker judges what the kernels touched (issue 31): MANUAL-scope pipelines whose
tasks all declare one whole tensor and pick a tile by scalar offsets run clean under the default
settings and compute the right numbers; the same pipeline without its deps= is still reported,
at the tile both tasks touched; a scope nested in a MANUAL scope is compared with the outer
scope's tasks.  Both runtime kinds."""
import warnings

import numpy as np
import pytest

import ptokit
from ptokit.runtime import RunConfig
from ptokit.runtime.sim.races import RaceError, RaceWarning

import race_pipelines as P

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_COMPILED = {}
RNG = np.random.default_rng(31)


@pytest.fixture(params=RUNTIMES)
def runtime(request):
    return request.param


def compiled(program, runtime, tmp_path_factory):
    key = (program.name, runtime)
    if key not in _COMPILED:
        _COMPILED[key] = ptokit.compile(program, runtime=runtime,
                                        output_dir=tmp_path_factory.mktemp(f"touched_{key[0]}_{runtime}"))
    return _COMPILED[key]


@pytest.mark.parametrize("program", [P.SubmitPipeline, P.AtPipeline])
def test_pipeline_on_one_scratch_tensor_runs_clean(runtime, tmp_path_factory, program):
    c = compiled(program, runtime, tmp_path_factory)
    x = RNG.standard_normal((P.ROWS, P.COLS)).astype(np.float32)
    extra = (0,) if program is P.SubmitPipeline else ()     # SubmitPipeline's `racy` scalar
    for cfg in (RunConfig(), RunConfig(race_check="all"), RunConfig(schedule="random", schedule_seed=3)):
        scratch, out = np.zeros_like(x), np.zeros_like(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RaceWarning)
            c(x, scratch, out, *extra, config=cfg)
        res = c.last_result
        np.testing.assert_allclose(out, 2 * x + 1, rtol=1e-6)
        np.testing.assert_allclose(scratch, 2 * x, rtol=1e-6)
        assert res.races == []
    assert res.schedule == "random"
    c(x, np.zeros_like(x), np.zeros_like(x), *extra)
    assert (c.last_result.schedule, c.last_result.schedule_from) == ("reverse", 0)   # it was checked


def test_phase_fence_on_one_output_runs_clean(runtime, tmp_path_factory):
    c = compiled(P.PhaseFence, runtime, tmp_path_factory)
    data = RNG.standard_normal((P.BM, P.BN)).astype(np.float32)
    for cfg in (RunConfig(), RunConfig(race_check="all")):
        out = np.zeros_like(data)
        c(data, out, config=cfg)
        np.testing.assert_allclose(out, data + 1, rtol=1e-6)
        assert c.last_result.races == []


def test_pipeline_without_deps_is_reported_at_the_touched_tile(runtime, tmp_path_factory):
    c = compiled(P.SubmitPipeline, runtime, tmp_path_factory)
    x = RNG.standard_normal((P.ROWS, P.COLS)).astype(np.float32)
    with pytest.raises(RaceError) as info:
        c(x, np.zeros_like(x), np.zeros_like(x), 1)
    races = info.value.races
    # one RAW per tile: stage 1 of tile k (task 2k) and its stage 2 (task 2k+1), nothing between tiles
    assert [(r.kind, r.seq_a, r.seq_b) for r in races] == [("RAW", 2 * k, 2 * k + 1) for k in range(P.M * P.N)]
    assert races.found == P.M * P.N
    first = races[0]
    assert (first.kernel_a, first.kernel_b) == ("stage1", "stage2")
    # tile (0, 0): rows 0..31, columns 0..31; the first conflicting bytes are its first row
    assert (first.lo, first.hi) == (0, P.TC)
    msg = str(info.value)
    assert f"{P.M * P.N} data races found by the simulator's race checker" in msg
    assert "data race (RAW) in a MANUAL scope: task 0 (kernel 'stage1') writes tensor 'scratch'" in msg
    assert "add deps=[<task id of the first submission>]" in msg


def test_nested_scope_in_a_manual_scope_is_checked(runtime, tmp_path_factory):
    c = compiled(P.NestedScope, runtime, tmp_path_factory)
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    t, y = np.zeros_like(x), np.zeros_like(x)
    with pytest.raises(RaceError) as info:
        c(x, t, y, 0)
    race, = info.value.races
    assert (race.kind, race.seq_a, race.seq_b, race.nested) == ("RAW", 0, 1, "b")
    msg = str(info.value)
    assert "data race (RAW) in a MANUAL scope: task 0 (kernel 'inc') writes tensor 't'" in msg
    assert "task 1 runs in a scope nested in the MANUAL scope" in msg
    assert "fix: make task 1 wait for task 0: add deps=[" in msg
    np.testing.assert_allclose(y, 1.0)     # reversed: the reader ran first and saw t's zeros
    t, y = np.zeros_like(x), np.zeros_like(x)
    c(x, t, y, 1)                          # with deps=: clean, right numbers
    np.testing.assert_allclose(y, x + 2, rtol=1e-6)
    assert c.last_result.races == []


def test_atomic_adds_host_waits_and_scalar_accesses(runtime, tmp_path_factory):
    c = compiled(P.Touches, runtime, tmp_path_factory)
    x = RNG.standard_normal((64, 64)).astype(np.float32)

    def run(sel):
        t, y = np.zeros_like(x), np.zeros_like(x)
        c(x, t, y, sel)
        return t, y, c.last_result

    _, y, res = run(0)                      # two atomic adds into one tile do not race
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)
    assert res.races == []
    t, y, res = run(1)                      # pl.read waited for the writer: the reader is ordered
    np.testing.assert_allclose(y, x + 2, rtol=1e-6)
    assert res.races == []
    _, y, res = run(2)                      # different elements of one tensor
    assert (y[0, 0], y[0, 1]) == (7.0, 7.0) and res.races == []
    with pytest.raises(RaceError) as info:  # the same element
        run(3)
    race, = info.value.races
    assert (race.kind, race.seq_a, race.seq_b, race.lo, race.hi) == ("WAW", 0, 1, 5, 6)
    assert "writes tensor 'y' elements [5, 6) (bytes [20, 24))" in str(info.value)


# the default (reverse where checked), the default order, a random one, every scope checked
SCHEDULES = [RunConfig(), RunConfig(schedule="default"), RunConfig(schedule="random", schedule_seed=5),
             RunConfig(race_check="all", schedule="default")]
# the orders that defer dispatch until the orchestration returns: no task is done before the
# later ones are submitted, so a missing deps= is a race whatever the timing
DEFERRED = [RunConfig(), RunConfig(schedule="random", schedule_seed=5), RunConfig(race_check="all")]


def test_shared_tensor_ordered_by_a_path_and_adjacent_tiles_are_not_races(runtime, tmp_path_factory):
    # the reader of tile (0, 0) is ordered after its writer only through the second writer; the
    # unordered writer of tile (0, 32) touches the bytes right beside the others, none of theirs
    c = compiled(P.SharedTiles, runtime, tmp_path_factory)
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    for cfg in SCHEDULES:
        s, out = np.zeros_like(x), np.zeros_like(x)
        c(x, s, out, 0, config=cfg)
        assert c.last_result.races == []
        want_s = np.zeros_like(x)
        want_s[:P.ST, :3 * P.ST] = x[:P.ST, :3 * P.ST] + 1
        np.testing.assert_allclose(s, want_s, rtol=1e-6)
        want = np.zeros_like(x)
        want[:P.ST, :P.ST] = x[:P.ST, :P.ST] + 1
        np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("sel,kind,pair,span", [
    (1, "WAW", (0, 1), (8 * 64 + 8, 8 * 64 + 16)),   # the first row both tiles cover, columns 8..16
    (2, "RAW", (1, 2), (0, P.ST)),                   # the nearer of the two ordered writers
    (3, "WAR", (0, 1), (0, P.ST)),
])
def test_shared_tensor_races_are_reported_at_the_touched_bytes(runtime, tmp_path_factory, sel, kind, pair, span):
    c = compiled(P.SharedTiles, runtime, tmp_path_factory)
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    for cfg in DEFERRED:
        with pytest.raises(RaceError) as info:
            c(x, np.zeros_like(x), np.zeros_like(x), sel, config=cfg)
        races = info.value.races
        got = {(r.seq_a, r.seq_b): (r.kind, (r.lo, r.hi)) for r in races}
        assert got[pair] == (kind, span), cfg
        if sel == 2:   # the farther writer too when the reader completed before the nearer one superseded it
            assert set(got) <= {(0, 2), (1, 2)} and {k for k, _ in got.values()} == {"RAW"}, cfg
        else:
            assert len(races) == 1, cfg
