"""Misuse of pld: located compile errors (file:line:col, the line, a caret), and the run-time
range checks (device=, peer) failing the run with a message naming them."""
import numpy as np
import pytest

import ptokit
import bad_programs as bad
from ptokit.errors import CompileError, DistributedRunFailure

SRC = bad.__file__
CFG = ptokit.DistributedConfig(device_ids=[0, 1])


def _line_of(text):
    for i, line in enumerate(open(SRC), start=1):
        if text in line:
            return i
    raise AssertionError(text)


def _located(err, mistake, *words):
    line = _line_of(f"# mistake: {mistake}")
    text = str(err)
    assert err.loc is not None and err.loc.file == SRC and err.loc.line == line, (err.loc, line, text)
    assert text.startswith(f"{SRC}:{line}:")
    assert text.splitlines()[2].strip() == "^"
    for w in words:
        assert w in text, (w, text)


def _compile_error(program, tmp_path, **kw):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out", **kw)
    return info.value


@pytest.mark.parametrize("kind, mistake, words", [
    (0, "notify on a pl.Tensor", ["must be a window", "pld.DistributedTensor"]),
    (1, "FP32 signal", ["INT32 signal window"]),
    (2, "world_size in a kernel", ["host code", "pld.nranks(pld.get_comm_ctx(t))"]),
    (3, "P3 name", ["pld.system.defer_wait is not supported yet"]),
    (4, "ring with a mesh signal", ["mode='ring' needs an INT32 [2(W-1), W] signal window"]),
    (5, "partial region", ["dst_offsets, src_offsets and shape together or none"]),
    (6, "remote_load of a pl.Tensor", ["must be a window"]),
])
def test_kernel_misuse_is_located(kind, mistake, words, tmp_path):
    _located(_compile_error(bad.KERNEL[kind], tmp_path), mistake, *words)


def test_comm_op_in_chip_code(tmp_path):
    _located(_compile_error(bad.NotifyInChip, tmp_path), "comm op in chip code", "kernel code")


def test_tensor_where_a_window_is_expected(tmp_path):
    _located(_compile_error(bad.TensorForWindow, tmp_path), "a pl.Tensor for a window", "window")


@pytest.mark.parametrize("kind, mistake, words", [
    (0, "host calls a kernel", ["is a kernel"]),
    (1, "window overflows its slot", ["needs 512 bytes", "holds 256"]),
    (2, "slot inside a loop", ["top level"]),
    (3, "windows without device=", ["needs device=r"]),
    (4, "host tensor for a window", ["pass a window"]),
    (5, "allgather without a target", ["'target' argument is missing"]),
])
def test_host_misuse_is_located(kind, mistake, words, tmp_path):
    _located(_compile_error(bad.HOST[kind], tmp_path, distributed_config=CFG), mistake, *words)


def test_host_program_without_a_distributed_config_runs_on_one_device(tmp_path):
    # pypto's rule: ir.compile of a host-level program without distributed_config uses
    # DistributedConfig() (one device, id 0)
    c = ptokit.compile(bad.HOST[6], output_dir=tmp_path / "out")
    assert c.device_ids == [0] and c.world_size == 1


def test_device_out_of_range_fails_before_ranks_start(tmp_path):
    c = ptokit.compile(bad.HOST[6], output_dir=tmp_path / "out", distributed_config=CFG)
    with pytest.raises(ValueError, match=r"device=2 is out of range: the program runs on 2 rank\(s\), 0..1"):
        c(np.zeros((2, 1, 64), np.float32))


def test_peer_out_of_range_fails_the_run(tmp_path):
    c = ptokit.compile(bad.PeerOutOfRange, output_dir=tmp_path / "out", distributed_config=CFG)
    with pytest.raises(DistributedRunFailure) as info:
        c(np.zeros((2, 1, 64), np.float32))
    assert "peer 2 is out of range" in str(info.value) and info.value.code == 101


@pytest.mark.parametrize("program, mistake, words", [
    (bad.SubWorkerWithSelf, "a SubWorker with self", ["SubWorker look takes no self"]),
    (bad.SubWorkerCall, "SubWorker argument count", ["look takes 1 positional argument, but 2 were given"]),
    (bad.ChipKeyword, "chip keyword", ["chip has no parameter 'out' (parameters: x, y)"]),
    (bad.ChipResultOfTwo, "one name for two outputs", ["chip writes 2 tensors",
                                                       "names the one pl.Out / pl.InOut tensor it writes"]),
    (bad.HostCreateTensor, "host tensor without dtype", ["pl.create_tensor needs dtype="]),
])
def test_sub_worker_and_chip_result_misuse_is_located(program, mistake, words, tmp_path):
    _located(_compile_error(program, tmp_path, distributed_config=ptokit.DistributedConfig()), mistake, *words)
