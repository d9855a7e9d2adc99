"""Step 01, hello rank: every rank adds its own index to its slice, y[r] = x[r] + r.

The three levels of a distributed program, smallest form:
  * ``@pl.jit.host`` (H) runs in the caller's process and loops over the ranks, dispatching the
    per-device function once per rank with ``device=r``;
  * ``@pl.jit`` (D) is one rank's orchestration; here it only forwards to the kernel;
  * ``@pl.jit.incore`` (K) is the kernel on that rank's cores.
The rank index travels down as an ordinary scalar argument (tensors first, scalars last).

    python examples/distributed/01_hello_rank.py -p a2a3sim -d 0,1
    python examples/distributed/01_hello_rank.py -p a2a3 --compile-only
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
def add_rank(x: pl.Tensor[[SIZE, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]],
             rank: pl.Scalar[pl.INT32]):
    tile = pl.load(x, [0, 0], [SIZE, SIZE])
    r = pl.cast(rank, target_type=pl.FP32)
    y = pl.store(pl.adds(tile, r), [0, 0], y)
    return y


@pl.jit
def per_rank(x: pl.Tensor[[SIZE, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]],
             rank: pl.Scalar[pl.INT32]):
    return add_rank(x, y, rank)


@pl.jit.host
def rank_program(x: pl.Tensor[[N_RANKS, SIZE, SIZE], pl.FP32],
                 y: pl.Out[pl.Tensor[[N_RANKS, SIZE, SIZE], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], r, device=r)


def main() -> int:
    args = parser("01_hello_rank", N_RANKS).parse_args()
    ids = device_ids(args, N_RANKS)
    xp = arrays(args)
    x = xp.asarray(np.random.default_rng(1).standard_normal((N_RANKS, SIZE, SIZE)), dtype=xp.float32)
    y = xp.zeros((N_RANKS, SIZE, SIZE), dtype=xp.float32)
    if not compile_and_run(args, rank_program, (x, y), config(args, ids)):
        return 0
    expected = x + xp.arange(N_RANKS, dtype=xp.float32).reshape(N_RANKS, 1, 1)
    assert xp.allclose(y, expected, rtol=1e-5, atol=1e-5), f"hello_rank mismatch: {y} vs {expected}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
