"""In one process, no ranks: ExternalTensor arguments used in place, the extra GM ranges a run
accepts, atomic-add TSTORE into plain GM from several cores, and signals in plain GM between two
cores of one run."""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from ptokit.errors import RuntimeFailure
from ptokit.runtime import ExternalTensor
from ptokit.runtime.build import INCLUDE_DIR, BuildJob, build_many
from ptokit.runtime.config import RunConfig
from ptokit.runtime.sim import KernelBinary, run_binaries

CASES = Path(__file__).resolve().parent / "cases"
IN, OUT, INOUT, SCALAR = 1, 2, 3, 0


def _build(kernel, kinds, blocks=1):
    k, o = build_many([
        BuildJob(CASES / "comm_kernels.cpp", ("__CPU_SIM", "__DAV_VEC__", f"K_{kernel}"), [INCLUDE_DIR], ["-Werror"],
                 name_hint=f"disttest:{kernel}"),
        BuildJob(CASES / "generic_orch.cpp", ("__CPU_SIM", f'ARG_KINDS="{kinds}"', f"BLOCKS={blocks}"), [INCLUDE_DIR],
                 ["-Werror"], name_hint=f"disttest:orch_{kinds}_{blocks}")])
    return str(o), [KernelBinary(0, str(k), kernel.lower(), "aiv")]


def test_external_tensor_is_used_in_place():
    orch, kernels = _build("TO_WINDOW", "IW")          # w = x, w an inout tensor argument
    x = np.arange(256, dtype=np.float32).reshape(1, 256)
    big = np.full(512, -1.0, np.float32)               # the view starts 64 elements into a bigger buffer
    ext = ExternalTensor(big.ctypes.data, big.nbytes, (1, 256), np.float32, offset=64 * 4)
    run_binaries(orch, kernels, [x, ext], RunConfig(clusters=1), signature=[IN, INOUT])
    np.testing.assert_array_equal(big[64:320], x[0])   # written where it lives, no copy back involved
    assert (big[:64] == -1).all() and (big[320:] == -1).all()


@pytest.mark.parametrize("kw, match", [
    (dict(addr=4096, nbytes=100, shape=(1, 64), dtype="FP32"), "needs 256 bytes, the buffer has 100"),
    (dict(addr=4096, nbytes=4096, shape=(8,), dtype=np.float32, offset=2), "not a multiple of the float32 element size"),
    (dict(addr=-1, nbytes=4, shape=(1,), dtype=np.int32), "addr=-1"),
    (dict(addr=0, nbytes=4, shape=(1,), dtype=np.int32), "addr=0 with a non-empty buffer"),
    (dict(addr=4096, nbytes=4, shape=(1,), dtype=np.complex64), "complex64"),
])
def test_external_tensor_validation(kw, match):
    with pytest.raises(ValueError, match=match):
        ExternalTensor(**kw)


def test_extra_gm_ranges_are_accepted_and_only_they():
    orch, kernels = _build("POKE", "O")
    cell = (ctypes.c_int32 * 1024)()
    addr = ctypes.addressof(cell)
    y = np.zeros((1, 8), np.int32)
    run_binaries(orch, kernels, [y, addr], RunConfig(clusters=1), signature=[OUT, SCALAR], extra_gm=[(addr, 4096)])
    assert cell[0] == 5 and y[0, 0] == 1
    cell[0] = 0
    with pytest.raises(RuntimeFailure) as ei:           # the next run has no extra ranges: the cell is foreign
        run_binaries(orch, kernels, [y, addr], RunConfig(clusters=1), signature=[OUT, SCALAR])
    assert ei.value.code == 101 and "TNOTIFY" in ei.value.message and "is not inside one window" in ei.value.message
    assert cell[0] == 0


def test_atomic_add_tstore_from_many_cores():
    orch, kernels = _build("ATOMIC_LOCAL", "IWW", blocks=8)
    x = np.arange(64, dtype=np.float32).reshape(1, 64)
    y = np.full((1, 64), 0.5, np.float32)
    h = np.full((1, 64), 1.0, np.float16)
    run_binaries(orch, kernels, [x, y, h], RunConfig(clusters=2), signature=[IN, INOUT, INOUT])
    np.testing.assert_array_equal(y, 0.5 + 8 * x)       # small integers plus 0.5: exact in any order
    np.testing.assert_array_equal(h, np.full((1, 64), 9.0, np.float16))


def test_signal_between_two_cores_of_one_run():
    orch, kernels = _build("LOCAL_SIGNAL", "W", blocks=2)
    y = np.zeros((1, 8), np.int32)
    run_binaries(orch, kernels, [y], RunConfig(clusters=1, timeout=10), signature=[INOUT])
    assert list(y[0, :2]) == [41, 42]
