"""Hand-written AIC/AIV groups with a split AIV function (attrs={"split": 1|2}, pypto-parity E1/E3):
both lanes run it on their halves.  .pto forms, golden files, runs against numpy under both runtime
kinds, and a located error per misuse."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from .golden_util import check_tree_golden

_NAME = "ptokit_tests_mixed_hand_split_programs"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("hand_split_programs.py"))
    sys.modules[_NAME] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules[_NAME])
HP = sys.modules[_NAME]

GOLDEN = Path(__file__).parent / "golden" / "hand_split"
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def _inputs(n=2):
    rng = np.random.default_rng(11)
    return [(rng.standard_normal((64, 64)) / 8).astype(np.float16) for _ in range(n)]


@pytest.fixture(scope="module")
def softmax(tmp_path_factory):
    return ptokit.compile(HP.HandSoftmax, output_dir=tmp_path_factory.mktemp("hand_softmax"))


def test_pto_forms(softmax):
    pto = (softmax.output_dir / "ptoas" / "group.pto").read_text()
    assert "pto.tpush_to_aiv(%acc : " in pto and "{split = 1}" in pto
    # the AIV function is written at full size; each lane pops and works on its [32, 64] half
    assert "pto.tpop_from_aic {split = 1} -> !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=64" in pto
    assert "pto.tfree_from_aic {split = 1}" in pto
    orch = (softmax.output_dir / "orchestration" / "main.cpp").read_text()
    assert "MixedKernels mk_t0 = {0, 1, 1};" in orch        # both lanes run the AIV function


def test_golden(softmax):
    check_tree_golden(softmax.output_dir, GOLDEN)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_softmax_up_down_run(runtime, softmax, tmp_path):
    c = softmax if runtime == RUNTIMES[0] else ptokit.compile(HP.HandSoftmax, output_dir=tmp_path, runtime=runtime)
    a, b = _inputs()
    y = np.zeros((64, 64), np.float32)
    c(a, b, y)
    s = a.astype(np.float64) @ b.astype(np.float64)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_v2c_left_right_run(runtime, tmp_path):
    c = ptokit.compile(HP.HandV2CLeftRight, output_dir=tmp_path, runtime=runtime)
    pto = (c.output_dir / "ptoas" / "group.pto").read_text()
    assert "pto.tpop_from_aiv {split = 2} -> !pto.tile_buf<loc=mat, dtype=f16, rows=64, cols=64" in pto
    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    (w,) = _inputs(1)
    y = np.zeros((64, 64), np.float32)
    c(x, w, y)
    ref = np.maximum(x, 0).astype(np.float16).astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_run_time_valid_rows_per_lane(runtime, tmp_path):
    c = ptokit.compile(HP.HandRuntimeValid, output_dir=tmp_path, runtime=runtime)
    pto = (c.output_dir / "ptoas" / "group.pto").read_text()
    assert "%t = pto.tpop_from_aic(%s4, %c64_index) {split = 1} -> !pto.tile_buf<loc=vec, dtype=f32, rows=32" in pto
    (a,) = _inputs(1)
    ref = np.exp(a.astype(np.float64) @ a.astype(np.float64))
    for n in (40, 20):          # lane 1 holds 8 rows, then none
        y = np.full((64, 64), -1.0, np.float32)
        c(a, y, n)
        np.testing.assert_allclose(y[:n], ref[:n], rtol=1e-4)
        assert (y[n:] == -1).all()


@pytest.mark.parametrize("prog,message,where", [
    (lambda: HP.softmax(mode=1, push_split=2),
     r"pl.tpush_to_aiv\(split=2\) in cube, but vector is split UP_DOWN \(attrs split=1\): every push and pop "
     r"of group group says split=1", "tpush_to_aiv"),
    (lambda: HP.softmax(cube_attrs={"split": 2}),
     r"cube has attrs split=2 \(LEFT_RIGHT\), but vector split=1 \(UP_DOWN\); the functions of group group share "
     r"one split mode", "def cube"),
    (lambda: HP.HandOneRow,
     r"vector is split UP_DOWN, but the .* crossing pipe id=0 has one row: it has no halves", "tpop_from_aiv"),
    (lambda: HP.col_max(1),
     r"kernel vector is split UP_DOWN .*: col_max reduces across the split axis \(rows\)", "col_max"),
])
def test_misuse_is_located(prog, message, where, tmp_path):
    with pytest.raises(CompileError, match=message) as info:
        ptokit.compile(prog(), output_dir=tmp_path)
    assert info.value.loc.file == HP.__file__ and where in str(info.value)


def test_split_under_ptoas_compat_027_is_located(tmp_path):
    with pytest.raises(CompileError, match=r"vector: attrs split= under ptoas_compat=\"0.27\"") as info:
        ptokit.compile(HP.HandSoftmax, output_dir=tmp_path, ptoas_compat="0.27")
    assert info.value.loc.file == HP.__file__
