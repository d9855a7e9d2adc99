"""Step 07, a dynamic rank count: one source for any number of ranks P.

``NR = pl.dynamic("NR")`` names the leading dimension of the host tensors: it is bound to the
world size W = len(device_ids) when the program is compiled (one artifact tree per W, a rank
count other than NR is a TypeError), so nothing in the source names a rank count.  Kernels learn
W at run time from ``pld.nranks(pld.get_comm_ctx(window))``.  The step is 06's ring, with 06's
chip functions: ``--mode put``: y[r] = x[(r - 1) % P]; ``--mode get``: y[r] = x[(r + 1) % P].
With P = 2 both directions coincide; run with three or more devices to see them differ.

    python examples/distributed/07_dynamic_rank_count.py -p a2a3sim -d 0,1,2 --mode put
    python examples/distributed/07_dynamic_rank_count.py -p a2a3sim -d 0,1,2,3 --mode get
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import ptokit.language as pl  # noqa: E402
import ptokit.language.distributed as pld  # noqa: E402
from _common import arrays, compile_and_run, config, device_ids, load as _load, parser  # noqa: E402

NR = pl.dynamic("NR")         # the rank count: bound to len(device_ids) at compile time
SIZE = 64


# The chip functions and kernels are step 06's, unchanged: they take W from pld.nranks at run time.
_step06 = _load("06_put_get")
per_rank_put, per_rank_get = _step06.per_rank_put, _step06.per_rank_get


@pl.jit.host
def ring_put(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        per_rank_put(x[r], y[r], src, dst, signal, device=r)


@pl.jit.host
def ring_get(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        per_rank_get(x[r], y[r], src, dst, signal, device=r)


def main() -> int:
    args = parser("07_dynamic_rank_count", modes=("put", "get")).parse_args()
    ids = device_ids(args)
    P = len(ids)
    xp = arrays(args)
    x = xp.asarray(np.random.default_rng(7).standard_normal((P, 1, SIZE)), dtype=xp.float32)
    y = xp.zeros((P, 1, SIZE), dtype=xp.float32)
    program = ring_get if args.mode == "get" else ring_put
    if not compile_and_run(args, program, (x, y), config(args, ids)):
        return 0
    step = 1 if args.mode == "get" else -1
    expected = xp.stack([x[(r + step) % P] for r in range(P)])
    assert xp.allclose(y, expected, rtol=1e-5, atol=1e-5), f"{args.mode} mismatch at P={P}: {y} vs {expected}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
