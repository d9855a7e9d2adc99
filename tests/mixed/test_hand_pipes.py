"""Hand-written AIC/AIV/Group functions with explicit pipes (pypto-parity E3): .pto forms, golden
files, end-to-end runs against numpy under both runtime kinds, and a located error per misuse."""
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from .golden_util import check_tree_golden

_NAME = "ptokit_tests_mixed_pipes_programs"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("pipes_programs.py"))
    sys.modules[_NAME] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules[_NAME])
PP = sys.modules[_NAME]

GOLDEN = Path(__file__).parent / "golden" / "hand_pipes"
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def _inputs():
    rng = np.random.default_rng(7)
    return [(rng.standard_normal((64, 64)) / 8).astype(np.float16) for _ in range(3)]


@pytest.fixture(scope="module")
def two_pipes(tmp_path_factory):
    return ptokit.compile(PP.TwoPipes, output_dir=tmp_path_factory.mktemp("two_pipes"))


def test_pto_forms(two_pipes):
    pto = (two_pipes.output_dir / "ptoas" / "group.pto").read_text()
    assert 'pto.import_reserved_buffer {name = "c2v", peer_func = @vector} -> i32' in pto
    assert 'pto.reserve_buffer {name = "v2c", size = 16384, location = #pto.address_space<mat>, auto = false, ' \
           'base = ' in pto
    assert 'pto.reserve_buffer {name = "c2v", size = 32768, location = #pto.address_space<vec>, auto = false, ' \
           'base = ' in pto
    assert "pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 16384, slot_num = 2} (gm_slot_buffer = " \
           "%arg5 : !pto.ptr<ui8>, c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %c0_i32 : i32)" in pto
    # pipe 1's GM ring follows pipe 0's (2 slots of 16384 bytes)
    assert "pto.addptr %arg5, %c32768_index" in pto
    assert "pto.aic_initialize_pipe {id = 1, dir_mask = 2, slot_size = 8192, slot_num = 2}" in pto
    assert "pto.tpush_to_aiv(%acc : " in pto and "{id = 0, split = 0}" in pto
    assert "pto.tpop_from_aiv {id = 1, split = 0} -> !pto.tile_buf<loc=mat" in pto
    assert "pto.tfree_from_aiv {id = 1, split = 0}" in pto and "pto.tfree_from_aic {id = 0, split = 0}" in pto
    orch = (two_pipes.output_dir / "orchestration" / "main.cpp").read_text()
    # no dual_aiv_dispatch: the AIV function runs on AIV0 only; the GM ring holds both pipes
    assert "MixedKernels mk_t0 = {0, 1, INVALID_KERNEL_ID};" in orch
    assert "gm_pipe_t0_shapes[1] = {49152u};" in orch
    cpp = (two_pipes.output_dir / "ptoas" / "group.cpp").read_text()
    assert "TPipe<0, Direction::DIR_C2V, 16384, 2, 2, true>" in cpp and "TPipe<1, Direction::DIR_V2C, 8192, 2, 2, true>" in cpp


@pytest.mark.parametrize("family", ["hand_pipes", "events"])
def test_golden(family, two_pipes, tmp_path):
    tree = two_pipes.output_dir if family == "hand_pipes" else \
        ptokit.compile(PP.SyncSetWait, output_dir=tmp_path).output_dir
    check_tree_golden(tree, GOLDEN.parent / family)


@pytest.mark.parametrize("dual,runtime", [(False, RUNTIMES[0]), (False, RUNTIMES[1]), (True, RUNTIMES[1])])
def test_two_pipes_run(dual, runtime, two_pipes, tmp_path):
    c = two_pipes if (not dual and runtime == RUNTIMES[0]) else \
        ptokit.compile(PP.TwoPipesDual if dual else PP.TwoPipes, output_dir=tmp_path, runtime=runtime)
    if dual:
        assert "MixedKernels mk_t0 = {0, 1, 1};" in (c.output_dir / "orchestration" / "main.cpp").read_text()
    a, b, w = _inputs()
    h = np.zeros((64, 64), np.float32)
    y = np.zeros((64, 64), np.float32)
    c(a, b, w, h, y)
    href = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0)
    np.testing.assert_allclose(h, href, rtol=1e-4, atol=1e-5)
    yref = href.astype(np.float16).astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(y, yref, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("runtime,static", [(RUNTIMES[0], False), (RUNTIMES[1], False), (RUNTIMES[0], True)])
def test_pop_with_valid_shape(runtime, static, tmp_path):
    c = ptokit.compile(PP.StaticValidPop if static else PP.ValidPop, output_dir=tmp_path, runtime=runtime)
    pto = (c.output_dir / "ptoas" / "group.pto").read_text()
    vr = "%c20_index" if static else "%arg4"
    assert f"= pto.tpop_from_aic({vr}, %c64_index) {{split = 0}} -> !pto.tile_buf<loc=vec" in pto
    a, b, _ = _inputs()
    y = np.full((64, 64), -1.0, np.float32)
    c(a, b, y, 20)
    ref = np.exp(a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(y[:20], ref[:20], rtol=1e-4)
    assert (y[20:] == -1).all()


@pytest.mark.parametrize("kind,message", [
    ("dir_mask", "pipe id=0: cube initializes it with dir_mask=3 but vector with dir_mask=1"),
    ("no_pipe", r"pl.tpush_to_aiv\(id=2\) needs an initialized C2V pipe: no pl.aic_initialize_pipe\(..., id=2\)"),
    ("import", r"pl.import_peer_buffer\(name='c2x'\): vector never reserves a buffer of that name"),
    ("size", "buffer 'c2v' holds 16384 bytes, but pipe id=0 keeps 2 slots of 16384 bytes here"),
    ("slot", r"pushes 32768 bytes \(.*\), but the slots of pipe id=0 hold 16384 bytes"),
])
def test_misuse_is_located(kind, message, tmp_path):
    with pytest.raises(CompileError, match=message) as info:
        ptokit.compile(PP.broken(kind), output_dir=tmp_path)
    assert info.value.loc.file == PP.__file__


def test_pop_without_free_is_located(tmp_path):
    with pytest.raises(CompileError, match=r"the tile popped here \(pipe id=0\) is never freed: call "
                                           r"pl.tfree_to_aic\(tile\)") as info:
        ptokit.compile(PP.NoFree, output_dir=tmp_path)
    assert info.value.loc.file == PP.__file__ and "tpop_from_aic" in str(info.value)


def test_pipe_ops_outside_a_group_are_located(tmp_path):
    import ptokit.language as pl

    @pl.program
    class Lone:
        @pl.function(type=pl.FunctionType.AIV)
        def vector(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            buf = pl.reserve_buffer(name="c2v", size=32768)
            pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=16384, slot_num=2)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            self.vector(y)

    with pytest.raises(CompileError, match="which no Group function calls"):
        ptokit.compile(Lone, output_dir=tmp_path)


def test_id_in_a_pl_move_kernel_is_refused(tmp_path):
    import ptokit.language as pl

    @pl.program
    class Implicit:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
            pl.tpush_to_aiv(acc, id=1)
            v = pl.tpop_from_aic(shape=[64, 64], dtype=pl.FP32, id=1)
            pl.store(v, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            self.k(a, y)

    with pytest.raises(CompileError, match=r"pl.tpush_to_aiv\(id=1\): a kernel whose transfers become pl.move"):
        ptokit.compile(Implicit, output_dir=tmp_path)


# ---------------------------------------------------------------- events and barriers (E4)
from ptokit.errors import RuntimeFailure  # noqa: E402
from ptokit.runtime.config import RunConfig  # noqa: E402

BLOCKS = PP.BLOCKS


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_sync_set_wait_between_cube_and_vector(runtime, tmp_path):
    c = ptokit.compile(PP.SyncSetWait, output_dir=tmp_path, runtime=runtime)
    pto = (c.output_dir / "ptoas" / "group.pto").read_text()
    assert "pto.set_ffts %arg2 : !pto.ptr<i64>" in pto
    assert "pto.sync.set <PIPE_FIX>, 4 loc(" in pto and "pto.sync.wait <PIPE_MTE2>, 4 loc(" in pto
    a, b, _ = _inputs()
    ws = np.zeros(256, np.int64)
    p = np.zeros((64, 64), np.float32)
    y = np.zeros((64, 64), np.float32)
    c(a, b, ws, p, y)
    np.testing.assert_allclose(y, a.astype(np.float64) @ b.astype(np.float64) + 1, rtol=1e-4, atol=1e-5)


def test_ffts_mode_2_waits_for_both_lanes(tmp_path):
    c = ptokit.compile(PP.BothLanesSetFfts, output_dir=tmp_path)
    pto = (c.output_dir / "ptoas" / "group.pto").read_text()
    assert "pto.sync.set <PIPE_MTE3>, 1 {ffts_mode = 2 : i32}" in pto
    assert "MixedKernels mk_t0 = {0, 1, 1};" in (c.output_dir / "orchestration" / "main.cpp").read_text()
    x, w, _ = _inputs()
    ws = np.zeros(256, np.int64)
    t = np.zeros((64, 64), np.float16)
    y = np.zeros((64, 64), np.float32)
    c(x, w, ws, t, y)
    np.testing.assert_allclose(y, (2 * x).astype(np.float64) @ w.astype(np.float64), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("runtime,submit", [(RUNTIMES[0], False), (RUNTIMES[1], False), (RUNTIMES[0], True)])
def test_syncall_across_8_blocks(runtime, submit, tmp_path):
    c = ptokit.compile(PP.SyncAllSubmit if submit else PP.SyncAll, output_dir=tmp_path, runtime=runtime)
    pto = (c.output_dir / "ptoas" / "step.pto").read_text()
    assert "pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>" in pto
    orch = (c.output_dir / "orchestration" / "main.cpp").read_text()
    if not submit:
        assert "int32_t n = rt_available_cluster_count();" in orch and "launch_spec.set_block_num(n);" in orch
    assert "launch_spec.set_sync_start(true);" in orch
    x = np.random.default_rng(3).standard_normal((128, 64)).astype(np.float32)
    t = np.zeros_like(x)
    y = np.zeros_like(x)
    # the program takes one block per available cluster and its data is sized for 8: a sync-start
    # launch of a run-time block count otherwise gets the platform's every cluster
    c(x, t, y, config=RunConfig(clusters=8))
    np.testing.assert_array_equal(t, 2 * x)
    ref = (np.roll(2 * x.reshape(8, 16, 64), -1, axis=0) + 1).reshape(128, 64)
    np.testing.assert_array_equal(y, ref)


@pytest.mark.parametrize("program, line", [(PP.BothLanesSet, "pl.system.sync_wait(1, pipe=pl.PipeType.MTE2)"),
                                           (PP.NeverRaised, "pl.system.sync_wait(3, pipe=pl.PipeType.MTE2)")])
def test_a2a3_cross_core_events_need_set_ffts_in_the_function(tmp_path, program, line):
    """The real assembler's A3 rule, at the DSL line of the function's first event op; a5 needs none."""
    with pytest.raises(CompileError) as ei:
        ptokit.compile(program, output_dir=tmp_path / "a2a3")
    assert ei.value.message.startswith("A3 inter-core sync requires explicit `pto.set_ffts` in the same function")
    assert line in ei.value.loc.source_line
    ptokit.compile(program, output_dir=tmp_path / "a5", platform="a5sim")


def test_unsatisfiable_wait_times_out_naming_kernel_lane_and_event(tmp_path):
    c = ptokit.compile(PP.NeverRaisedFfts, output_dir=tmp_path)
    a = np.zeros((64, 64), np.float16)
    ws = np.zeros(256, np.int64)
    y = np.zeros((64, 64), np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        c(a, ws, y, config=RunConfig(timeout=0.5))
    assert ei.value.code == 101
    msg = ei.value.message
    assert "kernel 'waiter'" in msg
    assert "SYNC_WAIT: timed out on AIV0 waiting for cross-core event 3, which the peer core never raised" in msg


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_syncall_skipped_by_one_block_times_out_naming_kernel_core_and_barrier(runtime, tmp_path):
    """Block 0 skips pl.system.syncall under `if b != 0`: the barrier can never complete, so the run
    fails with code 101 naming the kernel, the waiting core and the barrier (never a hang)."""
    c = ptokit.compile(PP.SyncAllSkipped, output_dir=tmp_path, runtime=runtime)
    x = np.zeros((BLOCKS * 16, 64), np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        c(x, np.zeros_like(x), np.zeros_like(x), config=RunConfig(timeout=0.5))
    assert ei.value.code == 101
    msg = ei.value.message
    assert "kernel 'skipper'" in msg
    assert re.search(r"SYNCALL: timed out on AIV[01] at the SYNCALL barrier \(core_type aiv_only\) of the task's 8 "
                     r"cores: 7 arrived, the first block short of its cores is 0 ", msg), msg
    assert "not skip it under an if on its block index" in msg
    assert re.search(r"in task 0 \(id 0x[0-9a-f]+\), block [1-7] on core \d+", msg), msg


@pytest.mark.parametrize("call,message", [
    ("pl.system.sync_set(4, pipe=pl.PipeType.MTE3, ffts_mode=5)", "ffts_mode=5; 0, 1 or 2"),
    ("pl.system.sync_wait(1, pipe=7)", "pipe=7; one of pl.PipeType"),
    ("pl.system.syncall(mode=\"soft\")", "needs gm_workspace="),
    ("pl.system.syncall(core_type=\"all\")", "core_type='all'; one of 'mix', 'aiv_only', 'aic_only'"),
])
def test_event_misuse_is_located(call, message, tmp_path, monkeypatch):
    src = (f"import ptokit.language as pl\n\n@pl.program\nclass E:\n"
           f"    @pl.function(type=pl.FunctionType.InCore)\n"
           f"    def k(self, y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
           f"        {call}\n\n"
           f"    @pl.function(type=pl.FunctionType.Orchestration)\n"
           f"    def main(self, y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
           f"        self.k(y)\n")
    path = tmp_path / "events_misuse.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("events_misuse", path)
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "events_misuse", mod)
    spec.loader.exec_module(mod)
    with pytest.raises(CompileError, match=message) as info:
        ptokit.compile(mod.E, output_dir=tmp_path / "out")
    assert info.value.loc.file == str(path) and info.value.loc.line == 7


def test_cross_core_slot_sets_the_ring_depth(tmp_path):
    c = ptokit.compile(PP.DeepRing, output_dir=tmp_path)
    pto = (c.output_dir / "ptoas" / "deep.pto").read_text()
    assert "pto.aic_initialize_pipe {dir_mask = 1, slot_size = 16384, slot_num = 4}" in pto
    assert 'pto.reserve_buffer {name = "c2v_slot_buffer", size = 65536,' in pto
    a, b, _ = _inputs()
    y = np.zeros((256, 64), np.float32)
    c(a, b, y)
    e = np.exp(a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(y, np.concatenate([e + i for i in range(4)]), rtol=1e-4)


def test_cross_core_slot_validates_its_count():
    import ptokit.language as pl
    with pytest.raises(ValueError, match="slot count is a positive integer"):
        pl.cross_core_slot(slot_num=0)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_split_pop_through_a_run_time_window(runtime, tmp_path):
    # the consumer's 4-slot buffer sets the local ring (a2a3: local_slot_num = 4, the GM ring keeps 8)
    c = ptokit.compile(PP.SplitWindowPop, output_dir=tmp_path, runtime=runtime)
    pto = (c.output_dir / "ptoas" / "group.pto").read_text()
    assert "pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024, local_slot_num = 4}" in pto
    rng = np.random.default_rng(11)
    a, b = ((rng.standard_normal((16, 16)) / 4).astype(np.float16) for _ in range(2))
    y = np.full((16, 16), -7.0, np.float32)
    c(a, b, y, 5, 12)
    ref = a.astype(np.float64) @ b.astype(np.float64) + 1.0
    np.testing.assert_allclose(y[:5, :12], ref[:5, :12], rtol=1e-4, atol=1e-4)   # lane 0's window
    assert (y[:5, 12:] == -7).all() and (y[5:8] == -7).all()
