"""Step 02, the programming model: the three levels labelled, y[r] = x[r] * (r + 1).

  * host orchestrator ``@pl.jit.host`` (H): the caller's process; the only level that knows
    all ranks: it holds the world-shaped tensors [N_RANKS, ...] and slices them with ``x[r]``;
  * per-device orchestration ``@pl.jit`` (D): one instance per rank; forwards its slice;
  * device kernel ``@pl.jit.incore`` (K): the compute on one rank's cores.
The rank index reaches the kernel as an INT32 scalar, cast to FP32 and folded into tile ops
(x * r + x == x * (r + 1)).

    python examples/distributed/02_programming_model.py -p a2a3sim -d 0,1
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import ptokit.language as pl  # noqa: E402
import ptokit.language.distributed as pld  # noqa: E402
from _common import arrays, compile_and_run, config, device_ids, parser  # noqa: E402

N_RANKS = 2
SIZE = 8


@pl.jit.incore
def scale_by_rank(x: pl.Tensor[[SIZE, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]],
             rank: pl.Scalar[pl.INT32]):
    tile = pl.load(x, [0, 0], [SIZE, SIZE])
    r = pl.cast(rank, target_type=pl.FP32)
    scaled = pl.mul(tile, r)                      # K: x * r
    y = pl.store(pl.add(scaled, tile), [0, 0], y)  # + x  ==  x * (r + 1)
    return y


@pl.jit
def per_rank(x: pl.Tensor[[SIZE, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]],
             rank: pl.Scalar[pl.INT32]):
    return scale_by_rank(x, y, rank)


@pl.jit.host
def scale_program(x: pl.Tensor[[N_RANKS, SIZE, SIZE], pl.FP32],
                 y: pl.Out[pl.Tensor[[N_RANKS, SIZE, SIZE], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], r, device=r)


def main() -> int:
    args = parser("02_programming_model", N_RANKS).parse_args()
    ids = device_ids(args, N_RANKS)
    xp = arrays(args)
    x = xp.asarray(np.random.default_rng(1).standard_normal((N_RANKS, SIZE, SIZE)), dtype=xp.float32)
    y = xp.zeros((N_RANKS, SIZE, SIZE), dtype=xp.float32)
    if not compile_and_run(args, scale_program, (x, y), config(args, ids)):
        return 0
    expected = x * xp.arange(1, N_RANKS + 1, dtype=xp.float32).reshape(N_RANKS, 1, 1)
    assert xp.allclose(y, expected, rtol=1e-5, atol=1e-5), f"programming_model mismatch: {y} vs {expected}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
