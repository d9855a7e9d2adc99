"""Step 03, window memory: y = x through a window, each rank on its own slice (no communication).

  * ``pld.alloc_window_buffer(shape, dtype=...)`` (H) allocates a slot of the symmetric window:
    the same offset on every rank, zero-filled, alive for one host call;
  * ``pld.window(buf, shape, dtype=...)`` (H) is a ``pld.DistributedTensor`` view of that slot;
    passed down to the per-device function and its kernel, it is the executing rank's slice;
  * in the kernel, ``pl.load`` / ``pl.store`` on a window touch the local slice like any tensor.
Here every rank stages its x[r] into its window slot and reads it back into y[r].

    python examples/distributed/03_window_buffer.py -p a2a3sim -d 0,1
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import ptokit.language as pl  # noqa: E402
import ptokit.language.distributed as pld  # noqa: E402
from _common import arrays, compile_and_run, config, device_ids, parser  # noqa: E402

N_RANKS = 2
SIZE = 256


@pl.jit.incore
def through_window(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                   buf: pld.DistributedTensor[[1, SIZE], pl.FP32]):
    buf = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], buf)      # stage into this rank's slot
    y = pl.store(pl.load(buf, [0, 0], [1, SIZE]), [0, 0], y)        # and read it back
    return y


@pl.jit
def per_rank(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
             buf: pld.DistributedTensor[[1, SIZE], pl.FP32]):
    return through_window(x, y, buf)


@pl.jit.host
def window_program(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
                   y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    slot = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)       # SIZE * 4 bytes on every rank
    for r in pl.range(pld.world_size()):
        buf = pld.window(slot, [1, SIZE], dtype=pl.FP32)
        per_rank(x[r], y[r], buf, device=r)


def main() -> int:
    args = parser("03_window_buffer", N_RANKS).parse_args()
    ids = device_ids(args, N_RANKS)
    xp = arrays(args)
    x = xp.asarray(np.random.default_rng(3).standard_normal((N_RANKS, 1, SIZE)), dtype=xp.float32)
    y = xp.zeros((N_RANKS, 1, SIZE), dtype=xp.float32)
    if not compile_and_run(args, window_program, (x, y), config(args, ids)):
        return 0
    assert xp.allclose(y, x, rtol=1e-5, atol=1e-5), f"window_buffer mismatch: {y} vs {x}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
