"""A loop body ends with the flags its next iteration needs, not pipe_barrier(PIPE_ALL): on the same
`.pto` the real ptoas writes no barrier in the loop, only flags (MTE2 -> V, V -> MTE3 in the body and the
loop-carried MTE3 -> MTE2: the next load into the one buffer waits for this iteration's store)."""
import re

import ptokit
import ptokit.language as pl

T = pl.Tensor[[256, 64], pl.FP32]


@pl.program
class StreamExp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, c: pl.Out[T]):
        for i in pl.range(4):
            t = pl.load(a, [i * 64, 0], [64, 64])
            u = pl.exp(t)
            c = pl.store(u, [i * 64, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, c: pl.Out[T]):
        c = self.k(a, c)
        return c


def _loop_body(tmp_path):
    ptokit.compile(StreamExp, output_dir=tmp_path, platform="a2a3sim")
    lines = [ln.strip() for ln in (tmp_path / "ptoas" / "k.cpp").read_text().splitlines()
             if ln.strip() and not ln.strip().startswith(("//", "PTO_EST("))]
    start = next(i for i, ln in enumerate(lines) if ln.startswith("for ("))
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    return lines[start + 1:end]


def _pairs(lines):
    return [re.match(r"wait_flag\(PIPE_(\w+), PIPE_(\w+)", ln).groups() for ln in lines if ln.startswith("wait_flag")]


def test_a_loop_body_ends_with_its_loop_carried_flags_not_a_full_barrier(tmp_path):
    body = _loop_body(tmp_path)
    assert "pipe_barrier(PIPE_ALL);" not in body
    store = max(i for i, ln in enumerate(body) if ln.startswith("TSTORE("))
    assert _pairs(body[:store]) == [("MTE2", "V"), ("V", "MTE3")]
    assert _pairs(body[store:]) == [("MTE3", "MTE2")]      # the next load reuses the buffer the store reads
