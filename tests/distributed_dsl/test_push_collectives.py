"""Kernel allgather / all_to_all whose source is a plain pl.Tensor of the rank (pypto's push form: the
rank writes its rows into every peer's target, then one signal round), and a collective's window
bound to a second name.  Against numpy at W = 2 and 3, rows of 20 FP32 (80 bytes: a padded tile)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
import ptokit.language.distributed as pld
from ptokit.errors import CompileError

L = 20
LP = 24                    # a tile row of 96 bytes, 20 of its elements valid


def push_program(w: int):
    @pl.program
    class PushGather:
        @pl.function(type=pl.FunctionType.InCore)
        def swap(self, a: pl.Tensor[[1, L], pl.FP32], b: pl.Tensor[[w, L], pl.FP32],
                 ga: pl.Out[pl.Tensor[[w, L], pl.FP32]], gb: pl.Out[pl.Tensor[[w, L], pl.FP32]],
                 wa: pld.DistributedTensor[[w, L], pl.FP32], wb: pld.DistributedTensor[[w, L], pl.FP32],
                 sig: pld.DistributedTensor[[w, 1], pl.INT32]):
            wa = pld.tensor.allgather(a, wa, sig)
            got = pld.tensor.all_to_all(b, wb, sig)          # another name for wb from here on
            for s in pl.range(w):
                ga = pl.store(pl.mul(pl.load(wa, [s, 0], [1, LP], valid_shape=[1, L]), 2.0), [s, 0], ga)
                gb = pl.store(pl.load(got, [s, 0], [1, LP], valid_shape=[1, L]), [s, 0], gb)
            return gb

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, a: pl.Tensor[[1, L], pl.FP32], b: pl.Tensor[[w, L], pl.FP32],
                 ga: pl.Out[pl.Tensor[[w, L], pl.FP32]], gb: pl.Out[pl.Tensor[[w, L], pl.FP32]],
                 wa: pld.DistributedTensor[[w, L], pl.FP32], wb: pld.DistributedTensor[[w, L], pl.FP32],
                 sig: pld.DistributedTensor[[w, 1], pl.INT32]):
            gb = self.swap(a, b, ga, gb, wa, wb, sig)
            return gb

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, a: pl.Tensor[[w, 1, L], pl.FP32], b: pl.Tensor[[w, w, L], pl.FP32],
                 ga: pl.Out[pl.Tensor[[w, w, L], pl.FP32]], gb: pl.Out[pl.Tensor[[w, w, L], pl.FP32]]):
            ba = pld.alloc_window_buffer([w, L], dtype=pl.FP32)
            bb = pld.alloc_window_buffer([w, L], dtype=pl.FP32)
            bs = pld.alloc_window_buffer([w, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                va = pld.window(ba, [w, L], dtype=pl.FP32)
                vb = pld.window(bb, [w, L], dtype=pl.FP32)
                vs = pld.window(bs, [w, 1], dtype=pl.INT32)
                self.chip(a[r], b[r], ga[r], gb[r], va, vb, vs, device=r)
    return PushGather


@pytest.mark.parametrize("w", [2, 3])
def test_push_allgather_and_all_to_all(w, tmp_path):
    c = ptokit.compile(push_program(w), output_dir=tmp_path / "push",
                       distributed_config=ptokit.DistributedConfig(device_ids=list(range(w))))
    rng = np.random.default_rng(7)
    a = rng.standard_normal((w, 1, L)).astype(np.float32)
    b = rng.standard_normal((w, w, L)).astype(np.float32)            # b[r, d]: rank r's row for rank d
    ga, gb = np.zeros((w, w, L), np.float32), np.zeros((w, w, L), np.float32)
    for _ in range(2):                                               # the shared signal is reusable
        ga[:], gb[:] = 0, 0
        c(a, b, ga, gb)
        np.testing.assert_array_equal(ga, np.broadcast_to(2.0 * a[:, 0, :], (w, w, L)))
        np.testing.assert_array_equal(gb, b.transpose(1, 0, 2))      # on rank r, row s = b[s, r]


def _kernel_error(body_rows: int, rebind: bool, tmp_path):
    @pl.program
    class Bad:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[body_rows, L], pl.FP32], y: pl.Out[pl.Tensor[[2, L], pl.FP32]],
              t: pld.DistributedTensor[[2, L], pl.FP32], sig: pld.DistributedTensor[[2, 1], pl.INT32]):
            res = pld.tensor.all_to_all(a, t, sig)
            if rebind:
                res = pl.load(a, [0, 0], [2, LP], valid_shape=[2, L])     # mistake: res names the window
                y = pl.store(res, [0, 0], y)
            else:
                y = pl.store(pl.load(res, [0, 0], [2, LP], valid_shape=[2, L]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, a: pl.Tensor[[body_rows, L], pl.FP32], y: pl.Out[pl.Tensor[[2, L], pl.FP32]],
                 t: pld.DistributedTensor[[2, L], pl.FP32], sig: pld.DistributedTensor[[2, 1], pl.INT32]):
            y = self.k(a, y, t, sig)
            return y

    with pytest.raises(CompileError) as info:
        ptokit.compile(Bad, output_dir=tmp_path / "bad")
    return info.value


def test_plain_source_of_the_wrong_rows_is_located(tmp_path):
    err = _kernel_error(3, False, tmp_path)
    assert "pld.tensor.all_to_all input must be a static [W, n] (W = 2, the signal's rows) tensor or window" \
        in str(err)
    assert err.loc is not None and err.loc.file == __file__


def test_rebinding_a_collectives_second_name_is_located(tmp_path):
    err = _kernel_error(2, True, tmp_path)
    assert "'res' names the window 't'" in str(err)
    assert err.loc is not None and err.loc.file == __file__
    assert "# mistake: res names the window" in open(__file__).read().splitlines()[err.loc.line - 1]
