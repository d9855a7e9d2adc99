"""DSL chip programs of the distributed bench rows ``dist_dsl_*`` (bench_distributed.py): put/get
of a window region, a loop of kernel barriers."""
import ptokit.language as pl
import ptokit.language.distributed as pld

ROWS, COLS = 16, 4096          # 256 KiB of FP32: 16 staged pieces of 16 KiB


@pl.program
class DslPutGet:
    """Rank 0 moves the [ROWS, COLS] window to / from rank 1 ``nrep`` times (mode 0 put, 1 get)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pld.DistributedTensor[[ROWS, COLS], pl.FP32], dst: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
          nrep: pl.Scalar[pl.INT64], mode: pl.Scalar[pl.INT64]):
        if pld.rank(pld.get_comm_ctx(src)) == 0:
            for i in pl.range(nrep):
                if mode == 0:
                    pld.tensor.put(dst, 1, src)
                else:
                    pld.tensor.get(dst, 1, src)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, src: pld.DistributedTensor[[ROWS, COLS], pl.FP32], dst: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
             nrep: pl.Scalar[pl.INT64], mode: pl.Scalar[pl.INT64]):
        self.k(src, dst, nrep, mode)


def dsl_barriers(W):
    """``nb`` rounds of pld.tensor.barrier on a [W, 1] signal."""
    @pl.program
    class DslBarriers:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, sig: pld.DistributedTensor[[W, 1], pl.INT32], nb: pl.Scalar[pl.INT64]):
            for i in pl.range(nb):
                pld.tensor.barrier(sig)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, sig: pld.DistributedTensor[[W, 1], pl.INT32], nb: pl.Scalar[pl.INT64]):
            self.k(sig, nb)
    return DslBarriers
