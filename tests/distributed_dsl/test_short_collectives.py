"""pypto's host-only short forms of the collectives (pld.all_reduce, pld.all_gather, pld.broadcast,
pld.reduce_scatter, pld.all_to_all: the signal is a private one; pld.barrier takes its signal, here a
[W] window sized with pld.world_size()), their results bound to new names, against numpy at W = 2
and 3; and the located errors of their misuse."""
import sys

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
import ptokit.language.distributed as pld
from ptokit.errors import CompileError

M = 32


def short_forms(w: int, root: int):
    @pl.program
    class Short:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, x: pl.Tensor[[w, M], pl.FP32], a: pld.DistributedTensor[[1, M], pl.FP32],
                 rows: pld.DistributedTensor[[w, M], pl.FP32]):
            pl.store(pl.load(x, [0, 0], [1, M]), [0, 0], a)
            pl.store(pl.load(x, [0, 0], [w, M]), [0, 0], rows)

        @pl.function(type=pl.FunctionType.Orchestration)
        def stage(self, x: pl.Tensor[[w, M], pl.FP32], a: pld.DistributedTensor[[1, M], pl.FP32],
                  rows: pld.DistributedTensor[[w, M], pl.FP32], sig: pld.DistributedTensor[[w], pl.INT32]):
            self.fill(x, a, rows)

        @pl.function(type=pl.FunctionType.InCore)
        def drain(self, a: pld.DistributedTensor[[w, M], pl.FP32], y: pl.Out[pl.Tensor[[w, M], pl.FP32]]):
            y = pl.store(pl.load(a, [0, 0], [w, M]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def out(self, a: pld.DistributedTensor[[w, M], pl.FP32], y: pl.Out[pl.Tensor[[w, M], pl.FP32]]):
            y = self.drain(a, y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def drain1(self, a: pld.DistributedTensor[[1, M], pl.FP32], y: pl.Out[pl.Tensor[[1, M], pl.FP32]]):
            y = pl.store(pl.load(a, [0, 0], [1, M]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def out1(self, a: pld.DistributedTensor[[1, M], pl.FP32], y: pl.Out[pl.Tensor[[1, M], pl.FP32]]):
            y = self.drain1(a, y)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[w, w, M], pl.FP32], mx: pl.Out[pl.Tensor[[w, 1, M], pl.FP32]],
                 bc: pl.Out[pl.Tensor[[w, 1, M], pl.FP32]], ag: pl.Out[pl.Tensor[[w, w, M], pl.FP32]],
                 rs: pl.Out[pl.Tensor[[w, w, M], pl.FP32]], tt: pl.Out[pl.Tensor[[w, w, M], pl.FP32]]):
            s1 = pld.alloc_window_buffer([1, M], dtype=pl.FP32)
            s2 = pld.alloc_window_buffer([1, M], dtype=pl.FP32)
            s3 = pld.alloc_window_buffer([w, M], dtype=pl.FP32)
            s4 = pld.alloc_window_buffer([w, M], dtype=pl.FP32)
            s5 = pld.alloc_window_buffer([w, M], dtype=pl.FP32)
            s6 = pld.alloc_window_buffer(pld.world_size() * 4)
            a = pld.window(s1, [1, M], dtype=pl.FP32)
            b = pld.window(s2, [1, M], dtype=pl.FP32)
            rows = pld.window(s3, [w, M], dtype=pl.FP32)
            g = pld.window(s4, [w, M], dtype=pl.FP32)
            t = pld.window(s5, [w, M], dtype=pl.FP32)
            sig = pld.window(s6, [pld.world_size()], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                self.stage(x[r], a, rows, sig, device=r)
                self.stage(x[r], b, g, sig, device=r)
            sig = pld.barrier(sig)
            top = pld.all_reduce(a, op=pld.ReduceOp.Max)
            got = pld.all_gather(b, g)
            b = pld.broadcast(b, root=root)
            every = pld.all_to_all(rows, t)
            rows = pld.reduce_scatter(rows)
            for r in pl.range(pld.world_size()):
                self.out1(top, mx[r], device=r)
                self.out1(b, bc[r], device=r)
                self.out(got, ag[r], device=r)
                self.out(rows, rs[r], device=r)
                self.out(every, tt[r], device=r)
    return Short


@pytest.mark.parametrize("w", [2, 3])
def test_short_forms(w, tmp_path):
    root = w - 1
    c = ptokit.compile(short_forms(w, root), output_dir=tmp_path / "short",
                       distributed_config=ptokit.DistributedConfig(device_ids=list(range(w))))
    x = np.random.default_rng(w).standard_normal((w, w, M)).astype(np.float32)   # x[r]: rank r's rows
    mx, bc = np.zeros((w, 1, M), np.float32), np.zeros((w, 1, M), np.float32)
    ag, rs, tt = (np.zeros((w, w, M), np.float32) for _ in range(3))
    c(x, mx, bc, ag, rs, tt)
    first = x[:, 0, :]                                                 # each rank's [1, M] window
    np.testing.assert_array_equal(mx, np.broadcast_to(first.max(axis=0), (w, 1, M)))
    np.testing.assert_array_equal(bc, np.broadcast_to(first[root], (w, 1, M)))
    np.testing.assert_array_equal(ag, np.broadcast_to(first, (w, w, M)))
    np.testing.assert_array_equal(tt, x.transpose(1, 0, 2))           # on rank r, row s = rank s's row r
    fold = x[0].copy()
    for k in range(1, w):
        fold = fold + x[k]
    for r in range(w):
        np.testing.assert_array_equal(rs[r, r], fold[r])               # reduce_scatter: row r on rank r


_BAD_HOST = """
import ptokit.language as pl
import ptokit.language.distributed as pld


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pld.DistributedTensor[[1, 32], pl.FP32]):
        pl.store(pl.full([1, 32], dtype=pl.FP32, value=1.0), [0, 0], a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pld.DistributedTensor[[1, 32], pl.FP32]):
        self.k(a)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[2, 1, 32], pl.FP32]):
        s = pld.alloc_window_buffer([1, 32], dtype=pl.FP32)
        a = pld.window(s, [1, 32], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(a, device=r)
        MISTAKE
"""
_MISTAKES = {
    0: 'a = pld.all_reduce(a, mode="ring")                     # mistake 0: ring without nranks',
    1: 'a = pld.all_reduce(a, mode="ring", nranks=3)           # mistake 1: nranks is not W',
    2: 'pld.barrier()                                          # mistake 2: barrier without its signal',
    3: 'pld.all_to_all_v(a, a, a, a, nranks=2)                 # mistake 3: a P3 name',
}


def bad_host(kind: int, tmp_path):
    """The host program with mistake ``kind``, from a file of its own (host code has no static if)."""
    import importlib.util
    path = tmp_path / f"bad_host_{kind}.py"
    path.write_text(_BAD_HOST.replace("MISTAKE", _MISTAKES[kind]))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod                   # where the front end finds the class's source file
    spec.loader.exec_module(mod)
    return mod.Bad, str(path)


def bad_kernel():
    @pl.program
    class BadKernel:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pld.DistributedTensor[[1, M], pl.FP32]):
            pld.all_reduce(a)                                          # mistake 4: a host form in a kernel

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, a: pld.DistributedTensor[[1, M], pl.FP32]):
            self.k(a)
    return BadKernel


@pytest.mark.parametrize("kind, words", [
    (0, "pld.all_reduce(mode='ring') needs nranks="),
    (1, "pld.all_reduce nranks= is the static world size (2), got 3"),
    (2, "pld.barrier takes the signal window"),
    (3, "pld.all_to_all_v is not supported yet"),
    (4, "pld.all_reduce is host code"),
])
def test_short_form_mistakes_are_located(kind, words, tmp_path):
    prog, file = bad_host(kind, tmp_path) if kind < 4 else (bad_kernel(), __file__)
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "bad", **({} if kind == 4 else {
            "distributed_config": ptokit.DistributedConfig(device_ids=[0, 1])}))
    err = info.value
    assert words in str(err), str(err)
    assert err.loc is not None and err.loc.file == file
    assert f"# mistake {kind}:" in open(file).read().splitlines()[err.loc.line - 1]
