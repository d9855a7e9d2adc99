"""A3, A4, B: task ids as values, pl.array of task ids, pl.system.task_dummy, dispatch predicates,
pl.no_dep / no_dep_args= / create_tensor(manual_dep=True), the argument dump (pl.dump_tag, dumps=,
RunConfig(enable_dump_args=)) and host pl.read / pl.write in orchestration, under both runtime
kinds, against numpy; the user errors, located."""
import json

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.runtime import RunConfig
from ptokit.runtime.launcher import run_tree

from . import task_programs as P

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def run(compiled, *args, config=None):
    """Run a compiled tree; returns the RunResult (its timeline: edges, skipped tasks)."""
    return run_tree(compiled.output_dir, list(args), config)


def edges(result):
    return {(int(p), int(c)) for p, c in zip(result.timeline.edges["producer"], result.timeline.edges["consumer"])}


def task_values_args(seed=0):
    x = rand(64, 64, seed=seed)
    gate = np.array([1, 0, 5, 0], np.int32)
    outs = [np.full_like(x, 7.0) for _ in range(6)]         # y a b c d e, c keeps 7 where its task is skipped
    info = np.array([0, 0, 11, 0], np.int32)
    return x, gate, outs, info


def check_task_values(x, gate, outs, info):
    y, a, b, c, d, e = outs
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)
    np.testing.assert_allclose(a, x + 2, rtol=1e-6)
    np.testing.assert_allclose(b, x + 3, rtol=1e-6)                # predicate true: ran
    np.testing.assert_allclose(c, np.full_like(x, 7.0 + 3))        # predicate false: skipped, then 3 chained +1
    s = np.float32(x[0, 1] + np.float32(1))
    np.testing.assert_allclose(d, x + s, rtol=1e-6)                # a host-read value as a task scalar
    np.testing.assert_allclose(e, x + 1, rtol=1e-6)                # gate[2] = 5 > 3: the `if` branch
    assert info.tolist() == [5, int(np.float32(s * np.float32(100))), 11, 12]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_task_ids_arrays_predicates_and_host_access(tmp_path, runtime):
    x, gate, outs, info = task_values_args()
    c = ptokit.compile(P.TaskValues, output_dir=tmp_path / "out", runtime=runtime)
    result = run(c, x, gate, *outs, info)
    check_task_values(x, gate, outs, info)
    # 4 row tasks, the dummy join, a, b, c (skipped), the 3-task chain, d, e
    assert result.tasks == 14
    assert sorted(result.timeline.skipped) == [7, 13]
    e = edges(result)
    assert {(k, 4) for k in range(4)} <= e and (4, 5) in e          # the dummy task joins the row tasks
    assert {(8, 9), (9, 10)} <= e and (7, 8) in e                   # deps=[prev, tb, tc]: the skipped task too
    assert (12, 13) in e                                             # deps=[te]: a task id merged by an if
    # (task 5 ran in a pl.scope that has ended: it may have retired before task 6 named it, so no
    # edge need be recorded; that its id is usable after the scope is what compiling shows)
    orch = (c.output_dir / "orchestration" / "main.cpp").read_text()
    assert "rt_submit_dummy_task" in orch and "set_predicate(" in orch and "rt_tensor_read<float>" in orch
    assert "std::array<PTO2TaskId, 4>" in orch and "rt_tensor_write<int32_t>" in orch


def test_argument_dump(tmp_path):
    x, gate, outs, info = task_values_args(seed=3)
    c = ptokit.compile(P.TaskValues, output_dir=tmp_path / "out")
    dumps = c.output_dir / "dumps"
    run(c, x, gate, *outs, info, config=RunConfig(enable_dump_args=0))
    assert not dumps.exists()
    x, gate, outs, info = task_values_args(seed=3)
    result = run(c, x, gate, *outs, info, config=RunConfig(enable_dump_args=1))
    check_task_values(x, gate, outs, info)
    assert result.dump_dir == dumps
    index = json.loads((dumps / "index.json").read_text())
    files = {(e["task"], e["name"]): e for e in index}
    # pl.dump_tag(y): the window of y in each row task (its parameter y) and y in task 5 (its parameter x);
    # dumps=[a]: a in task 5 (its parameter y).  Files are named by the kernel's parameters.
    assert set(files) == {(k, "y") for k in range(4)} | {(5, "x"), (5, "y")}
    assert files[(2, "y")]["file"] == "00002_inc_rows/01_y.npy" and files[(2, "y")]["kind"] == "output"
    np.testing.assert_allclose(np.load(dumps / files[(2, "y")]["file"]), x[32:48] + 1, rtol=1e-6)
    np.testing.assert_allclose(np.load(dumps / files[(5, "x")]["file"]), x + 1, rtol=1e-6)
    np.testing.assert_allclose(np.load(dumps / files[(5, "y")]["file"]), x + 2, rtol=1e-6)   # as task 5 left it
    assert not any(e["task"] == 7 for e in index)                    # the skipped task did not run
    # 2: every tensor argument of every task that ran
    x, gate, outs, info = task_values_args(seed=3)
    run(c, x, gate, *outs, info, config=RunConfig(enable_dump_args=2))
    index = json.loads((dumps / "index.json").read_text())
    assert len(index) == 2 * 4 + 2 + 2 + 3 * 2 + 2 + 2
    assert {e["task"] for e in index} == set(range(14)) - {4, 7, 13}
    for e in index:
        assert (dumps / e["file"]).is_file()
    with pytest.raises(ValueError, match="enable_dump_args=3"):
        RunConfig(enable_dump_args=3)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_no_dep_and_manual_dep_drop_only_their_edges(tmp_path, runtime):
    x = rand(64, 64, seed=1)
    y1, y2, z = (np.zeros_like(x) for _ in range(3))
    result = run(ptokit.compile(P.Tracking, output_dir=tmp_path / "out", runtime=runtime), x, y1, y2, z)
    want = np.concatenate([x[:32] + 1, x[32:] + 2])
    for got in (y1, y2, z):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    e = edges(result)
    assert (0, 1) in e                       # both write y1: ordered
    assert (2, 3) not in e                   # pl.no_dep(y2): not ordered by y2
    assert {(4, 5), (4, 6)} <= e             # t's creator still orders its users
    assert (5, 6) not in e                   # manual_dep=True: not ordered by t
    assert {(5, 7), (6, 7)} <= e             # deps=[t5, t6]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("open_gate", [1, 0])
def test_jit_task_options(tmp_path, monkeypatch, runtime, open_gate):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = rand(64, 64, seed=2)
    gate = np.array([open_gate, 0, 0, 0], np.int32)
    out, out2, out3 = (np.zeros_like(x) for _ in range(3))
    P.jit_tasks(x, gate, out, out2, out3, config=RunConfig(runtime=runtime))       # the jit call itself
    np.testing.assert_allclose(out3, -x + 1 if open_gate else np.zeros_like(x), rtol=1e-6)
    out, out2, out3 = (np.zeros_like(x) for _ in range(3))
    compiled = P.jit_tasks.compile(x, gate, out, out2, out3, runtime=runtime)
    result = run(compiled, x, gate, out, out2, out3)
    np.testing.assert_allclose(out, x * 2, rtol=1e-6)
    np.testing.assert_allclose(out2, x * 3, rtol=1e-6)
    np.testing.assert_allclose(out3, -x + 1 if open_gate else np.zeros_like(x), rtol=1e-6)
    e = edges(result)
    assert not any(p < 4 and c < 4 for p, c in e)          # no_dep_args=[out]: the four bands are unordered
    assert {(4, 5), (5, 6), (6, 7)} <= e                    # deps=[prev], loop-carried
    assert {(k, 8) for k in range(4)} | {(8, 9)} <= e       # the dummy task joins the bands; the spmd task waits
    assert result.timeline.skipped == (() if open_gate else (9,))


@pytest.mark.parametrize("program,message,needle", [
    (P.PredicateNotLiteral, "the right side must be an integer literal", "predicate=(gate[0] > 0.5)"),
    (P.PredicateArity, "pl.read takes one index per dimension of the 2-D pl.Tensor[[64, 64], pl.FP32], got 1",
     "predicate=(x[0] > 0)"),
    (P.DepsNotTask, "deps= takes task ids (bound with `as`, by pl.submit or pl.system.task_dummy) and pl.TASK_ID "
                    "arrays, but 'n' is pl.Scalar[pl.INDEX]", "deps=[n]"),
    (P.NoDepOutsideCall, "pl.no_dep(x) marks a task argument: write it directly in a kernel call's argument list",
     "u = pl.no_dep(x)"),
    (P.DumpsNotArg, "dumps= names 'w', which is not a tensor argument of this block's task", "dumps=[w]"),
    (P.TaskIdArithmetic, "scalar.add on a task id: a pl.TaskId is a handle for deps=, not a number", "u = t + 1"),
    (P.TaskIdInKernel, "pl.system.task_invalid is a value of orchestration code; it cannot be in a kernel",
     "t = pl.system.task_invalid()"),
    (P.TaskIdParam, "a task id (pl.TaskId) is made by orchestration code", "t: pl.TaskId"),
    (P.WriteInput, "pl.write writes 'x', an input parameter of main: declare it pl.Out[...] or pl.InOut[...]",
     "x[0, 0] = 1.0"),
    (P.ReadWrongRank, "pl.read takes one index per dimension of the 2-D pl.Tensor[[64, 64], pl.FP32], got 1",
     "v = pl.read(y, [0])"),
    (P.ArrayOfFloats, "a pl.array holds pl.TASK_ID or integers, got pl.FP32", "pl.array.create(4, pl.FP32)"),
    (P.ArrayWrongElement, "an element of pl.Array[4, pl.TASK_ID] must be a pl.TaskId, but got pl.Scalar[pl.INDEX]",
     "arr[0] = 3"),
    (P.DumpTagInKernel, "pl.dump_tag marks a tensor for the argument dump of the orchestration's tasks; it belongs "
                        "in orchestration code", "pl.dump_tag(x)"),
    (P.NoDepOnCreator, "pl.no_dep on the first write of 't' (created by pl.create_tensor)",
     "t = self.inc(x, pl.no_dep(t))"),
    (P.TooManyDeps, "deps= of this task name up to 80 task ids; a task takes at most 64", "deps=[arr, arr]"),
    (P.WriteAsValue, "pl.write(t, indices, value) gives back t itself: bind it to the same name "
                     "(y = pl.write(y, ...)) or write it as a statement", "v = pl.write(y, [0, 0], 1.0)"),
])
def test_task_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    text = str(info.value)
    assert message in text
    assert info.value.loc.file == P.__file__ and needle in text.splitlines()[1]
    assert "^" in text.splitlines()[2]


@pytest.mark.parametrize("m,n,message", [(0, 2, "pl.array: index out of range"),
                                         (64, 1, "host tensor access: index out of range")])
def test_run_time_indices_are_checked(tmp_path, m, n, message):
    from ptokit.errors import RuntimeFailure
    x = rand(64, 64, seed=4)
    c = ptokit.compile(P.RuntimeIndex, output_dir=tmp_path / "out")
    with pytest.raises(RuntimeFailure) as info:
        run(c, x, m, n, np.zeros_like(x), np.zeros_like(x))
    assert info.value.code == 5 and message in str(info.value)
    y, z = np.zeros_like(x), np.zeros_like(x)
    run(c, x, 63, 1, y, z)                    # in range: runs
    np.testing.assert_allclose(z, x + 2, rtol=1e-6)
