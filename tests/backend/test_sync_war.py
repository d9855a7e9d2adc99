"""The built-in assembler orders pipes around a reused buffer, as the real assembler's sync insertion
does: a load into a Mat buffer the planner reuses waits for the move still reading it (MTE1 -> MTE2,
write after read); two tiles at different addresses need no such flag."""
import re

import ptokit
import ptokit.language as pl

T16 = pl.Tensor[[128, 128], pl.FP16]
T32 = pl.Tensor[[128, 128], pl.FP32]


@pl.program
class LoadAfterMove:
    """B's Mat tile is planned where A's was: A is dead once moved to Left."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T16, b: T16, c: pl.Out[T32]):
        ta = pl.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        la = pl.move(ta, target_memory=pl.Mem.Left)
        tb = pl.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        rb = pl.move(tb, target_memory=pl.Mem.Right)
        c = pl.store(pl.matmul(la, rb), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16, b: T16, c: pl.Out[T32]):
        c = self.k(a, b, c)
        return c


@pl.program
class LoadsFirst:
    """Both Mat tiles live at once: different addresses, no write-after-read flag."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T16, b: T16, c: pl.Out[T32]):
        ta = pl.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        la = pl.move(ta, target_memory=pl.Mem.Left)
        rb = pl.move(tb, target_memory=pl.Mem.Right)
        c = pl.store(pl.matmul(la, rb), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T16, b: T16, c: pl.Out[T32]):
        c = self.k(a, b, c)
        return c


def _kernel_lines(prog, tmp_path):
    ptokit.compile(prog, output_dir=tmp_path, platform="a2a3sim")
    return [ln.strip() for ln in (tmp_path / "ptoas" / "k.cpp").read_text().splitlines()]


def _waits_before_second_load(lines):
    loads = [i for i, ln in enumerate(lines) if ln.startswith("TLOAD(")]
    assert len(loads) == 2
    between = lines[loads[0] + 1:loads[1]]
    return [re.match(r"wait_flag\(PIPE_(\w+), PIPE_(\w+)", ln).groups() for ln in between if ln.startswith("wait_flag")]


def test_a_load_into_a_buffer_a_move_still_reads_waits_for_the_move(tmp_path):
    lines = _kernel_lines(LoadAfterMove, tmp_path)
    assert ("MTE1", "MTE2") in _waits_before_second_load(lines)
    second = max(i for i, ln in enumerate(lines) if ln.startswith("TLOAD("))
    assert lines[second - 1].startswith("wait_flag(PIPE_MTE1, PIPE_MTE2")


def test_loads_into_separate_buffers_need_no_write_after_read_flag(tmp_path):
    assert ("MTE1", "MTE2") not in _waits_before_second_load(_kernel_lines(LoadsFirst, tmp_path))
