"""The race checker (RunConfig.race_check) and the adversarial schedules (RunConfig.schedule):
a MANUAL scope's missing deps= edge is reported with both DSL call sites, the same program with
the edge is clean and computes the right numbers under every schedule, AUTO scopes are never
reported in "manual" mode, "off" checks nothing, and an adversarial schedule makes a racy
program's wrong numbers observable -- by default wherever the checker checks tasks.  Both
runtime kinds."""
import inspect
import warnings

import numpy as np
import pytest

import ptokit
from ptokit.cli import main as cli_main
from ptokit.runtime import RunConfig
from ptokit.runtime.sim.races import RaceError, RaceWarning

import race_programs as P

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_COMPILED = {}
SRC = inspect.getsource(P).splitlines()
X = np.random.default_rng(7).standard_normal((P.R, P.C)).astype(np.float32)


@pytest.fixture(params=RUNTIMES)
def runtime(request):
    return request.param


def compiled(runtime, tmp_path_factory):
    if runtime not in _COMPILED:
        _COMPILED[runtime] = ptokit.compile(P.Races, output_dir=tmp_path_factory.mktemp(f"races_{runtime}"),
                                            runtime=runtime)
    return _COMPILED[runtime]


def run(c, sel, t0=None, **cfg):
    """(t, y, result) of one run of scenario `sel` (t starts as t0, default zeros; y as zeros)."""
    t = np.zeros_like(X) if t0 is None else t0.copy()
    y = np.zeros_like(X)
    c(X, t, y, sel, config=RunConfig(**cfg))
    return t, y, c.last_result


def call_sites(sel):
    """(line, col, text) of the two kernel calls in the arm `if sel == <sel>:` of the program."""
    start = next(i for i, ln in enumerate(SRC) if ln.strip().startswith(f"if sel == {sel}:"))
    calls = [i for i in range(start + 1, start + 4) if "self." in SRC[i]][:2]
    out = []
    for i in calls:
        text = SRC[i].split("#")[0].rstrip()
        col = text.index("self.") + 1               # the kernel call's column
        out.append((i + 1, col, text.strip()))
    return out


@pytest.mark.parametrize("sel,kind,verbs,tensor,span", [
    (P.RAW, "RAW", ("writes", "reads"), "tensor 't'", "elements [0, 4096) (bytes [0, 16384))"),
    (P.WAR, "WAR", ("reads", "writes"), "tensor 't'", "elements [0, 4096) (bytes [0, 16384))"),
    (P.WAW, "WAW", ("writes", "writes"), "tensor 'y'", "elements [0, 4096) (bytes [0, 16384))"),
    (P.OVERLAP, "WAW", ("writes", "writes"), "tensor 'y' (as y[0:32, 0:64] and y[16:48, 0:64])",
     "elements [1024, 2048) (bytes [4096, 8192))"),
    (P.CREATED, "RAW", ("writes", "reads"), "tensor 'u'", "elements [0, 4096) (bytes [0, 16384))"),
])
def test_race_in_manual_scope_is_reported(runtime, tmp_path_factory, sel, kind, verbs, tensor, span):
    c = compiled(runtime, tmp_path_factory)
    with pytest.raises(RaceError) as info:
        run(c, sel)
    msg = str(info.value)
    (la, ca, ta), (lb, cb, tb) = call_sites(sel)
    kernel = "twice" if sel == P.OVERLAP else "inc"
    assert msg.startswith("1 data race found by the simulator's race checker\n")
    assert (f"data race ({kind}) in a MANUAL scope: task 0 (kernel '{kernel}') {verbs[0]} {tensor} {span} and "
            f"task 1 (kernel '{kernel}') {verbs[1]} them, with no path of deps= edges between the two tasks") in msg
    lines = msg.splitlines()
    for label, seq, line, col, text in (("first", 0, la, ca, ta), ("second", 1, lb, cb, tb)):
        i = lines.index(f"  {label}: task {seq} (kernel '{kernel}'), submitted at:")
        assert lines[i + 1] == f"    {P.__file__}:{line}:{col}: task {seq} submits {kernel}"
        assert lines[i + 2].strip() == text
        assert lines[i + 3] == "        " + " " * (col - 1) + "^"
    assert (f"fix: make task 1 wait for task 0: add deps=[<task id of the first submission>] to the second "
            f"submission at {P.__file__}:{lb}:{cb}") in msg
    race, = info.value.races
    assert (race.seq_a, race.seq_b, race.kind, race.manual, race.kernel_a) == (0, 1, kind, True, kernel)
    assert (race.loc_b.line, race.loc_b.col) == (lb, cb) and info.value.loc == race.loc_b


@pytest.mark.parametrize("schedule,seed", [("default", 0), ("reverse", 0), ("random", 1), ("random", 2),
                                           ("random", 3)])
def test_program_with_deps_is_clean_under_every_schedule(runtime, tmp_path_factory, schedule, seed):
    c = compiled(runtime, tmp_path_factory)
    t0 = np.full_like(X, 5.0)
    cfg = dict(schedule=schedule, schedule_seed=seed, race_check="all")
    t, y, res = run(c, P.RAW_FIXED, t0, **cfg)
    np.testing.assert_allclose(y, X + 2, rtol=1e-6)
    assert res.races == []
    t, y, _ = run(c, P.WAR_FIXED, t0, **cfg)        # y read the old t before t was overwritten
    np.testing.assert_allclose(y, 6.0)
    np.testing.assert_allclose(t, X + 1, rtol=1e-6)
    t, y, _ = run(c, P.CHAIN, t0, **cfg)
    np.testing.assert_allclose(y, X + 4, rtol=1e-5)
    np.testing.assert_allclose(t, X + 3, rtol=1e-5)
    _, y, res = run(c, P.CREATED_FIXED, **cfg)      # a created tensor's reader waits for deps= only
    np.testing.assert_allclose(y, X + 2, rtol=1e-6)
    _, y, res = run(c, P.DISJOINT, **cfg)           # x[0:32] / x[32:64]: no false positive
    np.testing.assert_allclose(y, X * 2, rtol=1e-6)
    assert res.races == []


def test_adversarial_schedule_shows_the_race_in_the_numbers(runtime, tmp_path_factory):
    c = compiled(runtime, tmp_path_factory)
    # RAW without the edge: the reader runs first under "reverse" and sees t's old contents
    t, y, res = run(c, P.RAW, race_check="off", schedule="reverse")
    np.testing.assert_allclose(y, 1.0)
    np.testing.assert_allclose(t, X + 1, rtol=1e-6)
    assert res.races == []
    # WAR without the edge: the writer overwrites t before the reader under "reverse"
    _, y, _ = run(c, P.WAR, race_check="off", schedule="reverse")
    np.testing.assert_allclose(y, X + 2, rtol=1e-6)
    # as a warning, the run completes (with the same wrong numbers) and the report is kept
    with pytest.warns(RaceWarning, match=r"data race \(RAW\) in a MANUAL scope"):
        _, y, res = run(c, P.RAW, race_report="warn", schedule="reverse")
    np.testing.assert_allclose(y, 1.0)
    assert [r.kind for r in res.races] == ["RAW"]
    # a seeded shuffle is deterministic for its seed, and some seed runs the reader first
    outcomes = {}
    for seed in range(8):
        ys = [run(c, P.RAW, race_check="off", schedule="random", schedule_seed=seed)[1] for _ in range(2)]
        np.testing.assert_array_equal(ys[0], ys[1])
        outcomes[seed] = bool(np.allclose(ys[0], X + 2))
    assert set(outcomes.values()) == {True, False}


def test_checked_runs_default_to_the_reverse_schedule(runtime, tmp_path_factory):
    """No schedule given: a run whose tasks the checker checks runs adversarially (reverse), so a
    racy program gives the same wrong numbers every time, next to the report; a program with the
    right deps= computes the right ones; unchecked runs keep the default order."""
    c = compiled(runtime, tmp_path_factory)
    for _ in range(3):
        with pytest.warns(RaceWarning, match=r"data race \(RAW\) in a MANUAL scope"):
            t, y, res = run(c, P.RAW, race_report="warn")
        np.testing.assert_allclose(y, 1.0)             # the reader ran first: t was still zeros
        np.testing.assert_allclose(t, X + 1, rtol=1e-6)
        assert (res.schedule, res.schedule_from) == ("reverse", 0)
        assert [(r.kind, r.seq_a, r.seq_b) for r in res.races] == [("RAW", 0, 1)]
    t0 = np.full_like(X, 5.0)
    _, y, res = run(c, P.RAW_FIXED, t0)                 # RunConfig() as is
    np.testing.assert_allclose(y, X + 2, rtol=1e-6)
    assert (res.schedule, res.schedule_from, res.races) == ("reverse", 0, [])
    t, y, res = run(c, P.CHAIN, t0, schedule=None)
    np.testing.assert_allclose(y, X + 4, rtol=1e-5)
    np.testing.assert_allclose(t, X + 3, rtol=1e-5)
    assert res.schedule == "reverse"
    # an AUTO-scope task first: it completes under the default order, the MANUAL scope's tasks
    # then run reversed (task 2 reads y before task 1 writes it), the same way every time
    for _ in range(2):
        with pytest.warns(RaceWarning, match=r"data race \(RAW\) in a MANUAL scope: task 1 \(kernel 'inc'\)"):
            t, y, res = run(c, P.AUTO_THEN_RAW, race_report="warn")
        np.testing.assert_allclose(t, 1.0)
        np.testing.assert_allclose(y, 2.0)
        assert (res.schedule, res.schedule_from) == ("reverse", 1)
    # nothing checked, nothing changed: MANUAL scopes without tasks, race_check="off", or
    # schedule="default" keep the default order; race_check="all" checks (and reverses) everything
    _, y, res = run(c, P.AUTO)
    np.testing.assert_allclose(y, X + 2, rtol=1e-6)
    assert (res.schedule, res.schedule_from) == ("default", None)
    _, y, res = run(c, P.AUTO, race_check="all")
    np.testing.assert_allclose(y, X + 2, rtol=1e-6)
    assert (res.schedule, res.schedule_from) == ("reverse", 0)
    for cfg in (dict(race_check="off"), dict(race_report="warn", schedule="default")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RaceWarning)
            _, _, res = run(c, P.RAW, **cfg)
        assert (res.schedule, res.schedule_from) == ("default", None)
    _, _, res = run(c, P.RAW, race_check="off", schedule="random", schedule_seed=5)
    assert (res.schedule, res.schedule_from) == ("random", 0)


def test_schedule_in_the_trace(tmp_path_factory, tmp_path):
    from ptokit.runtime.trace import read_trace
    c = compiled(RUNTIMES[0], tmp_path_factory)
    for sel, want in ((P.AUTO_THEN_RAW, ("reverse", 1)), (P.AUTO, ("default", None))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RaceWarning)
            run(c, sel, race_report="warn", trace=str(tmp_path / "run.json"))
        back = read_trace(tmp_path / "run.json")
        assert (back.schedule, back.schedule_from) == want


def test_spmd_blocks_writing_one_window_are_reported(runtime, tmp_path_factory):
    c = compiled(runtime, tmp_path_factory)
    for sel in (P.SPMD_ROWS, P.SPMD_COLS):          # each block on its own rows / columns: clean
        _, y, res = run(c, sel, race_check="all")
        np.testing.assert_allclose(y, X * 10, rtol=1e-6)
        assert res.races == []
    with pytest.raises(RaceError) as info:
        run(c, P.SPMD_SAME)
    msg = str(info.value)
    line = next(i + 1 for i, ln in enumerate(SRC) if "y = self.first_rows(x, y)" in ln)
    col = SRC[line - 1].index("self.") + 1
    assert ("data race (WAW) in a MANUAL scope: block 0 of task 0 (kernel 'first_rows') writes tensor 'y' "
            "elements [0, 1024) (bytes [0, 4096)) and block 1 writes them; the blocks of one SPMD task run "
            "concurrently") in msg
    assert f"    {P.__file__}:{line}:{col}: task 0 submits first_rows" in msg
    assert "fix: give each block its own window (offsets from pl.tile.get_block_idx())" in msg
    race, = info.value.races
    assert (race.block_a, race.block_b, race.seq_a, race.seq_b) == (0, 1, 0, 0)
    _, _, res = run(c, P.SPMD_SAME, race_check="off")
    assert res.races == []


def test_auto_scope_is_never_reported(runtime, tmp_path_factory):
    c = compiled(runtime, tmp_path_factory)
    for mode in ("manual", "all"):
        for schedule in ("default", "reverse"):
            _, y, res = run(c, P.AUTO, race_check=mode, schedule=schedule)
            np.testing.assert_allclose(y, X + 2, rtol=1e-6)
            assert res.races == []
    # write-after-read is not tracked (runtime.md): "manual" leaves AUTO scopes alone, "all" reports it
    _, _, res = run(c, P.AUTO_WAR, race_check="manual")
    assert res.races == []
    with pytest.raises(RaceError, match=r"data race \(WAR\) in a scope: task 0 \(kernel 'inc'\) reads tensor 't'"):
        run(c, P.AUTO_WAR, race_check="all")


def test_race_check_off_reports_nothing(runtime, tmp_path_factory):
    c = compiled(runtime, tmp_path_factory)
    for sel in (P.RAW, P.WAR, P.WAW, P.OVERLAP):
        _, _, res = run(c, sel, race_check="off")
        assert res.races == []


def test_site_table_and_manual_scope_codegen(tmp_path_factory):
    c = compiled(RUNTIMES[0], tmp_path_factory)
    orch = (c.output_dir / "orchestration" / "main.cpp").read_text()
    assert "PTO2_SCOPE_MANUAL() {   // pl.scope(mode=MANUAL)" in orch and ".set_site(0);" in orch
    import json
    sites = json.loads((c.output_dir / "orchestration" / "main.sites.json").read_text())
    (line, col, text), _ = call_sites(P.RAW)
    assert sites[0]["file"] == P.__file__ and (sites[0]["line"], sites[0]["col"]) == (line, col)
    assert sites[0]["kernel"] == "inc" and sites[0]["args"] == ["x", "t"]


@pytest.mark.parametrize("field,value,allowed", [
    ("race_check", "manual_only", "'off', 'manual', 'all'"),
    ("race_report", "raise", "'error', 'warn'"),
    ("schedule", "lifo", "'default', 'reverse', 'random', 'auto'"),
])
def test_bad_values_name_the_allowed_ones(field, value, allowed):
    with pytest.raises(ValueError, match=f"{field}={value!r}: must be one of {allowed}"):
        RunConfig(**{field: value})
    with pytest.raises(ValueError, match="schedule_seed=-1: must be an integer 0 .. 2\\*\\*64-1"):
        RunConfig(schedule_seed=-1)


def test_cli_race_check(tmp_path_factory, capsys):
    c = compiled(RUNTIMES[0], tmp_path_factory)
    tree = str(c.output_dir)
    assert cli_main(["run", tree, "--race-check", "sometimes", "--no-summary", "-q"]) != 0
    assert "race_check='sometimes': must be one of 'off', 'manual', 'all'" in capsys.readouterr().err
    assert cli_main(["run", tree, "--scalar", "sel=0", "--no-summary", "-q"]) != 0
    err = capsys.readouterr().err
    assert "data race (RAW) in a MANUAL scope" in err and f"{P.__file__}:{call_sites(P.RAW)[1][0]}" in err
    assert cli_main(["run", tree, "--scalar", "sel=0", "--race-check", "off", "--no-summary", "-q"]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RaceWarning)
        assert cli_main(["run", tree, "--scalar", "sel=0", "--race-report", "warn", "--schedule", "random",
                         "--schedule-seed", "3", "--no-summary", "-q"]) == 0
