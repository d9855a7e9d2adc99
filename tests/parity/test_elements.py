"""Element access in kernels: pto.tgetval / tsetval on tiles, pto.load_scalar / store_scalar on
tensors, against numpy; an index outside a tensor is a run-time error, never a neighbour's element."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError, RuntimeFailure

from . import element_programs as E

RNG = np.random.default_rng(4)
X = RNG.standard_normal((16, 64)).astype(np.float32)
S = np.arange(32, dtype=np.int32).reshape(4, 8)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("i", [0, 3])
def test_element_reads_and_writes(tmp_path, runtime, i):
    y, z = np.zeros_like(X), np.full((4, 8), -1, np.int32)
    ptokit.compile(E.Elements, output_dir=tmp_path / "out", runtime=runtime)(X, S, i, y, z)
    want = X.copy()
    want[0, 0] = X[2, 3] + X[1, 5] + X[1, 6]
    want[0, 1] = S[i, 2] + S[3, 7]
    np.testing.assert_array_equal(y, want)
    want_z = np.full((4, 8), -1, np.int32)
    want_z[0, 0], want_z[3, 7] = 2 * S[i, 2], S[3, 7] + 1
    np.testing.assert_array_equal(z, want_z)
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    for form in ("pto.tgetval ins(", ") outs : f32", "pto.tsetval ins(", "pto.load_scalar %arg1[",
                 "pto.store_scalar "):
        assert form in pto, form


def test_a_runtime_index_outside_the_tensor_fails(tmp_path):
    y, z = np.zeros_like(X), np.zeros((4, 8), np.int32)
    with pytest.raises(RuntimeFailure) as info:
        ptokit.compile(E.Elements, output_dir=tmp_path / "out")(X, S, 9, y, z)
    assert "LOAD_SCALAR" in info.value.message


@pytest.mark.parametrize("program,message,needle", [
    (E.ConstantIndexOutside, "index 4 is outside axis 0 of the pl.Tensor[[4, 8], pl.INT32] (0 .. 3)", "s[4, 0]"),
    (E.WriteIntoInput, "kernel k writes 's', an input parameter", "s[0, 0] = 1"),
    (E.WrongIndexCount, "takes 2 indices, got 3", "pl.read(s, [1, 2, 3])"),
    (E.TaskIdArrayInKernel, "an array of task ids (pl.TASK_ID) belongs to the orchestration", "pl.array.create(2"),
])
def test_element_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value), str(info.value)
    assert needle in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_kernel_arrays(tmp_path, runtime):
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    y = np.zeros((16, 64), np.float32)
    ptokit.compile(E.KernelArrays, output_dir=tmp_path / "out", runtime=runtime)(x, 2, y)
    b = x.reshape(4, 16, 64)
    np.testing.assert_allclose(y, b[0] + b[2] + b[1] + b[0] + (7 + 16), rtol=1e-6)
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    assert "pto.declare_local_array -> !pto.local_array<4xi32>" in pto
    assert pto.count("pto.local_array_set") == 2 and pto.count("pto.local_array_get") == 3


def test_a_kernel_array_index_outside_fails(tmp_path):
    x = np.zeros((64, 64), np.float32)
    with pytest.raises(RuntimeFailure) as info:
        ptokit.compile(E.KernelArrays, output_dir=tmp_path / "out")(x, 4, np.zeros((16, 64), np.float32))
    assert "index 4 is outside the local array of 4 elements" in info.value.message
