"""The simulator uses the caller's arrays in place (issue 19, item 3).

A C-contiguous, element-aligned, native-order array is the device buffer itself; anything else
is copied (and the run says which and why, ``RunResult.copied``). Inputs are never written:
the simulator refuses a write into an input used in place. Outputs end exactly as before.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import RuntimeFailure
from ptokit.runtime import launcher
from ptokit.runtime.config import RunConfig
from ptokit.runtime.sim import driver

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Elementwise, Graphs, N, R  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "sim_cases"))
from sim_util import SimCases  # noqa: E402

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
IN, OUT = 1, 2


@pl.program
class WriteThenFail:
    """y = x, then z = y read from row k: k > 0 reads past y's end (the second task fails)."""

    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, a: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(a, [0, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def shifted(self, a: pl.Tensor[[R, N], pl.FP32], k: pl.Scalar[pl.INDEX],
                o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.load(a, [k, 0], [R, N]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], k: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[R, N], pl.FP32]], z: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.copy(x, y)
        z = self.shifted(y, k, z)
        return y, z


_TREES = {}


def tree(program, runtime, tmp_path_factory):
    key = (program, runtime)
    if key not in _TREES:
        out = tmp_path_factory.mktemp(f"inplace_{program.name}_{runtime}")
        _TREES[key] = ptokit.compile(program, output_dir=out, runtime=runtime)
    return _TREES[key]


def rand(*shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def graphs_args(seed=0):
    x, w = rand(R, N, seed=seed), rand(R, N, seed=seed + 1)
    acc = rand(R, N, seed=seed + 2)
    return [x, w, np.zeros((R, N), np.float32), acc, np.zeros((R, N), np.float32), np.zeros((R, N), np.float32)]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_in_place_results_equal_copied_results_and_inputs_keep_their_bytes(runtime, tmp_path_factory):
    c = tree(Graphs, runtime, tmp_path_factory)
    placed, copied = graphs_args(), graphs_args()
    before = [a.copy() for a in placed]
    r1 = c(*placed)
    r2 = c(*copied, config=RunConfig(in_place=False))
    for a, b in zip(placed, copied):
        np.testing.assert_array_equal(a, b)            # bit for bit
    assert r1.in_place == (0, 1, 2, 3, 4, 5) and r1.copied == ()
    assert r2.in_place == () and r2.copied == tuple((i, "RunConfig(in_place=False)") for i in range(6))
    # inputs (x, w) unchanged to the byte; the INOUT acc and the outputs are what numpy says
    assert placed[0].tobytes() == before[0].tobytes() and placed[1].tobytes() == before[1].tobytes()
    x, w, acc0 = before[0], before[1], before[3]
    t1 = x + 1
    np.testing.assert_allclose(placed[2], np.exp(t1) + t1 * 2, rtol=1e-5)
    np.testing.assert_array_equal(placed[3], ((acc0 + x) + x) + x)
    np.testing.assert_allclose(placed[4], w + 1, rtol=1e-6)


def test_inout_sharing_an_input_array_is_copied_and_matches_the_copying_run(tmp_path_factory):
    """x (IN) and acc (INOUT) are one array: acc's copy is written, then copied back, as before."""
    c = tree(Graphs, RUNTIMES[0], tmp_path_factory)
    runs = []
    for in_place in (True, False):
        args = graphs_args(seed=5)
        args[3] = args[0]                              # acc is x
        res = c(*args, config=RunConfig(in_place=in_place))
        runs.append((args, res))
    (a1, r1), (a2, r2) = runs
    for p, q in zip(a1, a2):
        np.testing.assert_array_equal(p, q)
    assert dict(r1.copied) == {3: "written, and shares memory with argument 0"}
    assert r1.in_place == (0, 1, 2, 4, 5)
    x0 = rand(R, N, seed=5)
    np.testing.assert_allclose(a1[0], x0 * 4, rtol=1e-6)   # acc = x + x + x + x, x read before any write


def test_arrays_the_device_cannot_use_are_copied(tmp_path_factory):
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    base = rand(N, 2 * N, seed=7)
    a = base[:, ::2]                                              # not C-contiguous
    raw = np.zeros(N * N * 4 + 2, np.uint8)
    b = raw[2:].view(np.float32).reshape(N, N)                    # 2 bytes off a 4-byte element
    b[:] = rand(N, N, seed=8)
    y, z = np.zeros((N, N), np.float32), np.zeros((N, N), np.float32)
    a_before, b_before = a.copy(), b.copy()
    res = c(a, b, y, z)
    assert dict(res.copied) == {0: "not C-contiguous", 1: "address not a multiple of its 4-byte element"}
    assert res.in_place == (2, 3)
    assert "arrays: 2 used in place, 2 copied; argument 0: not C-contiguous; argument 1: address not a " \
           "multiple of its 4-byte element" in res.summary().format()
    np.testing.assert_array_equal(y, a_before + b_before)
    np.testing.assert_allclose(z, np.exp(a_before * b_before), rtol=1e-6)
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_array_equal(b, b_before)
    # a read-only input is read in place (nothing writes it)
    ro = np.ascontiguousarray(a_before)
    ro.setflags(write=False)
    res = c(ro, b_before, y, z)
    assert res.in_place == (0, 1, 2, 3) and res.copied == ()
    np.testing.assert_array_equal(y, a_before + b_before)


def test_other_byte_order_is_converted_both_ways(tmp_path_factory):
    """run_tree takes any array: a big-endian input is read converted, a big-endian output
    receives the result in its own byte order."""
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    a, b = rand(N, N, seed=14), rand(N, N, seed=15)
    y, z = np.zeros((N, N), ">f4"), np.zeros((N, N), np.float32)
    res = launcher.run_tree(c.output_dir, [a.astype(">f4"), b, y, z])
    assert dict(res.copied) == {0: "not in native byte order", 2: "not in native byte order"}
    np.testing.assert_array_equal(y, a + b)
    np.testing.assert_allclose(z, np.exp(a * b), rtol=1e-6)


def test_a_write_into_an_input_used_in_place_is_refused(tmp_path_factory):
    """The add's output declared IN: its TSTORE is refused before a byte lands; copied, the
    write goes to the device copy and the array keeps its bytes too."""
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    prepared = launcher.prepare_tree(c.output_dir)
    img = driver.load_image(prepared.image, prepared.kernel_names, prepared.kernel_core_types)
    a, b = rand(N, N, seed=9), rand(N, N, seed=10)
    y = np.full((N, N), 7.0, np.float32)
    z = np.zeros((N, N), np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        driver.run_binaries(img.orchestration, img.kernels, [a, b, y, z], RunConfig(), func_name=img.func_name,
                            signature=[IN, IN, IN, OUT])
    msg = ei.value.message
    assert "TSTORE: writes 16384 bytes at byte 0 of the program's argument 2, an input (IN) array: " \
           "inputs are never written" in msg, msg
    assert (y == 7.0).all()
    res = driver.run_binaries(img.orchestration, img.kernels, [a, b, y, z], RunConfig(in_place=False),
                              func_name=img.func_name, signature=[IN, IN, IN, OUT])
    assert (y == 7.0).all() and res.copied[2] == (2, "RunConfig(in_place=False)")
    np.testing.assert_allclose(z, np.exp(a * b), rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_failed_run_leaves_what_it_wrote_in_outputs_used_in_place(runtime, tmp_path_factory):
    """docs/decisions.md: in place, y holds the first task's result and z (never written) its
    old bytes; RunConfig(in_place=False) leaves both untouched, as before."""
    c = tree(WriteThenFail, runtime, tmp_path_factory)
    x = rand(R, N, seed=11)
    y, z = np.full((R, N), -1.0, np.float32), np.full((R, N), -2.0, np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        c(x, 1, y, z)
    assert ei.value.code == 101
    assert "the output arrays used in place, arguments 2, 3, hold what the run wrote before it stopped" \
        in ei.value.message, ei.value.message
    np.testing.assert_array_equal(y, x)
    assert (z == -2.0).all()
    y[:] = -1.0
    with pytest.raises(RuntimeFailure) as ei:
        c(x, 1, y, z, config=RunConfig(in_place=False))
    assert "used in place" not in ei.value.message
    assert (y == -1.0).all() and (z == -2.0).all()
    c(x, 0, y, z)                                              # and the good run is fine
    np.testing.assert_array_equal(z, x)


def test_a_timed_out_run_keeps_its_in_place_arrays_alive():
    """A kernel that outlives the run's timeout is abandoned; it may still write the output it
    was given, so the arrays used in place stay referenced (never freed under it)."""
    sim = SimCases()
    x = np.zeros(64, np.float32)
    tmp, out = np.full(64, 5.0, np.float32), np.zeros(64, np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ORDER", [x, tmp, out, 1500], signature=[IN, OUT, OUT, 0], timeout=0.3)
    assert ei.value.code == 100
    assert "kernels that did not stop may still write them, and ptokit keeps them alive" in ei.value.message
    assert any(any(k is tmp for k in kept) for kept in driver._zombie_buffers)


def test_a_prepared_tree_is_reused_until_a_file_changes(tmp_path_factory):
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    args = [rand(N, N, seed=12), rand(N, N, seed=13), np.zeros((N, N), np.float32), np.zeros((N, N), np.float32)]
    c(*args)
    first = launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform))
    assert launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform)) is first
    src = Path(first.config.kernels[0].source)
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))   # the stat changes, the bytes do not
    again = launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform))
    assert again is not first and again.image == first.image
    assert launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform)) is again
    c(*args)
    np.testing.assert_allclose(args[2], args[0] + args[1], rtol=1e-6)


def test_torch_tensors_are_used_in_place(tmp_path_factory):
    torch = pytest.importorskip("torch")
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    a, b = torch.randn(N, N), torch.randn(N, N)
    y, z = torch.zeros(N, N), torch.zeros(N, N)
    a0 = a.clone()
    res = c(a, b, y, z)
    assert res.in_place == (0, 1, 2, 3)
    assert torch.equal(y, a + b) and torch.equal(a, a0)
    res = c(a.t(), b, y, z)                                      # a transposed view: copied
    assert dict(res.copied) == {0: "not C-contiguous"}
    assert torch.allclose(y, a.t() + b)


def test_a_file_added_to_the_tree_folder_is_seen(tmp_path_factory):
    """The tree's own folder is checked once (not twice), and still: a file added to it makes
    the next call take the full build-cache check."""
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    first = launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform))
    assert launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform)) is first
    (c.output_dir / "notes.txt").write_text("added\n")
    again = launcher.prepare_tree(c.output_dir, RunConfig(platform=c.platform))
    assert again is not first and again.image == first.image


def test_each_call_runs_with_its_own_config(tmp_path_factory):
    """Calls remember the config they resolved; a call with another RunConfig uses that one."""
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    args = [rand(N, N, seed=14), rand(N, N, seed=15), np.zeros((N, N), np.float32), np.zeros((N, N), np.float32)]
    assert c(*args).copied == ()
    copied = c(*args, config=RunConfig(platform=c.platform, in_place=False)).copied
    assert len(copied) == 4 and all(why == "RunConfig(in_place=False)" for _, why in copied)
    again = c(*args)
    assert again.copied == () and again.in_place == (0, 1, 2, 3)
    np.testing.assert_allclose(args[2], args[0] + args[1], rtol=1e-6)


# ---------------------------------------------------------------- aliasing by memory (issue 31, finding 3)

def _mapped_twice(tmp_path, data):
    """``data`` saved as one .npy file and mapped twice: read-only and writable."""
    path = tmp_path / "shared.npy"
    np.save(path, data)
    return np.load(path, mmap_mode="r"), np.load(path, mmap_mode="r+"), path


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_one_file_mapped_as_an_input_and_an_inout_is_not_written_mid_run(runtime, tmp_path, tmp_path_factory):
    """x (IN) and acc (INOUT) are two maps of one file: different addresses, the same bytes. acc is
    copied, so the run reads x unchanged and acc = x + x + x + x; in place it read its own writes
    (8 x)."""
    c = tree(Graphs, runtime, tmp_path_factory)
    x0 = rand(R, N, seed=11)
    x, acc, path = _mapped_twice(tmp_path, x0)
    assert x.ctypes.data != acc.ctypes.data
    args = graphs_args(seed=11)
    args[0], args[3] = x, acc
    res = c(*args)
    assert dict(res.copied) == {3: "written, and shares memory with argument 0"}
    np.testing.assert_allclose(acc, x0 * 4, rtol=1e-6)
    np.testing.assert_allclose(args[2], np.exp(x0 + 1) + (x0 + 1) * 2, rtol=1e-5)   # read x, not acc's writes
    del x, acc, args
    np.testing.assert_allclose(np.load(path), x0 * 4, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_an_input_mapped_twice_read_only_is_used_in_place_twice(runtime, tmp_path, tmp_path_factory):
    """Two read-only maps of one file share bytes but nothing writes them: both stay in place."""
    c = tree(Elementwise, runtime, tmp_path_factory)
    a0 = rand(N, N, seed=12)
    path = tmp_path / "a.npy"
    np.save(path, a0)
    a, b = np.load(path, mmap_mode="r"), np.load(path, mmap_mode="r")
    y, z = np.zeros((N, N), np.float32), np.zeros((N, N), np.float32)
    res = c(a, b, y, z)
    assert res.copied == () and res.in_place == (0, 1, 2, 3)
    np.testing.assert_array_equal(y, a0 + a0)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("how", ["same_array", "overlapping_views", "file_mapped_twice"])
def test_two_outputs_sharing_memory_are_refused(runtime, how, tmp_path, tmp_path_factory):
    """y and z are outputs of different tasks: sharing memory, one result would be lost silently."""
    c = tree(Elementwise, runtime, tmp_path_factory)
    a, b = rand(N, N, seed=13), rand(N, N, seed=14)
    if how == "same_array":
        y = z = np.zeros((N, N), np.float32)
    elif how == "overlapping_views":
        base = np.zeros((N + 1, N), np.float32)
        y, z = base[:N], base[1:]
    else:
        _, y, path = _mapped_twice(tmp_path, np.zeros((N, N), np.float32))
        z = np.load(path, mmap_mode="r+")
    y_before = np.array(y)
    with pytest.raises(ValueError) as ei:
        c(a, b, y, z)
    msg = str(ei.value)
    assert "argument 2 (y) and argument 3 (z) are both outputs and share memory" in msg
    assert "pass a separate array for each output" in msg
    np.testing.assert_array_equal(y, y_before)                     # nothing ran


def test_interleaved_output_views_that_share_no_element_are_accepted(tmp_path_factory):
    c = tree(Elementwise, RUNTIMES[0], tmp_path_factory)
    a, b = rand(N, N, seed=15), rand(N, N, seed=16)
    base = np.zeros((N, 2 * N), np.float32)
    y, z = base[:, 0::2], base[:, 1::2]                             # same byte range, no common element
    c(a, b, y, z)
    np.testing.assert_array_equal(y, a + b)
    np.testing.assert_allclose(z, np.exp(a * b), rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_big_endian_arrays_are_copied_in_native_order(runtime, tmp_path_factory):
    """docs/simulator.md: an array not in native byte order is copied (issue 31, item 6); a
    big-endian output was refused as an unsupported dtype."""
    c = tree(Elementwise, runtime, tmp_path_factory)
    a0, b0 = rand(N, N, seed=17), rand(N, N, seed=18)
    swapped = np.dtype(np.float32).newbyteorder("S")
    a = a0.astype(swapped)
    y, z = np.zeros((N, N), swapped), np.zeros((N, N), np.float32)
    res = c(a, b0, y, z)
    assert dict(res.copied) == {0: "not in native byte order", 2: "not in native byte order"}
    assert y.dtype == swapped
    np.testing.assert_array_equal(y, a0 + b0)
    np.testing.assert_allclose(z, np.exp(a0 * b0), rtol=1e-6)


def test_a_raw_mmap_and_a_memmap_of_one_file_are_one_memory(tmp_path):
    """np.memmap views are placed by their file name and offset, other buffers through
    /proc/self/maps: both name the same bytes of the same file; numpy's own arrays never share."""
    import mmap
    from ptokit.runtime.sim import aliasing
    path = tmp_path / "m.npy"
    np.save(path, np.zeros((N, N), np.float32))
    mm = np.load(path, mmap_mode="r")[1:]                      # a view: rows 1.. of the map
    with open(path, "r+b") as f:
        raw = mmap.mmap(f.fileno(), 0)
    header = path.stat().st_size - N * N * 4
    other = np.frombuffer(raw, np.float32, count=N, offset=header + N * 4)       # row 1, not a memmap
    own = np.zeros((N, N), np.float32)
    arrays = {0: mm, 1: other, 2: own}
    ranges = {i: (a.ctypes.data, a.ctypes.data + a.nbytes) for i, a in arrays.items()}
    real = aliasing.backed_spans(ranges, arrays)
    assert aliasing.provably_private(own) and not aliasing.provably_private(mm)
    assert real[0][0][0][0] == "file" and real[0][0][0] == real[1][0][0]
    assert real[0][0][1:] == (header + N * 4, header + N * N * 4)
    assert aliasing.overlapping(real[0], real[1]) and not aliasing.overlapping(real[0], real[2])
