"""pypto style: two @pl.jit.host programs with bare pl.Tensor parameters (shapes from the compile's
sample arrays), chip calls without device=, sharing one DistributedWorker and a resident tensor."""
from __future__ import annotations

import sys

import numpy as np
import pypto.language as pl
from pypto.ir.distributed_compiled_program import DistributedCompiledProgram, DistributedConfig
from pypto.runtime import DistributedWorker, RunConfig

R, C = 16, 64


@pl.jit.incore
def fill_state(seed: pl.Tensor, state: pl.Out[pl.Tensor]):
    t = pl.load(seed, [0, 0], [R, C])
    return pl.store(pl.mul(t, 3.0), [0, 0], state)


@pl.jit
def init_chip(seed: pl.Tensor, state: pl.Out[pl.Tensor]):
    out = fill_state(seed, state)
    return out


@pl.jit.host
def init(seed: pl.Tensor, state: pl.Out[pl.Tensor]):
    out = init_chip(seed, state)
    return out


@pl.jit.incore
def use_state(x: pl.Tensor, state: pl.Tensor, y: pl.Out[pl.Tensor]):
    t = pl.add(pl.load(x, [0, 0], [R, C]), pl.load(state, [0, 0], [R, C]))
    return pl.store(t, [0, 0], y)


@pl.jit
def step_chip(x: pl.Tensor, state: pl.Tensor, y: pl.Out[pl.Tensor]):
    out = use_state(x, state, y)
    return out


@pl.jit.host
def step(x: pl.Tensor, state: pl.Tensor, y: pl.Out[pl.Tensor]):
    out = step_chip(x, state, y)
    return out


if __name__ == "__main__":
    cfg = RunConfig(platform="a2a3sim", runtime=sys.argv[1],
                    distributed_config=DistributedConfig(device_ids=[0], runtime=sys.argv[1]))
    seed = np.arange(R * C, dtype=np.float32).reshape(R, C) / 100
    x, y = np.zeros((R, C), np.float32), np.zeros((R, C), np.float32)
    sample = np.zeros((R, C), np.float32)
    init_c = init.compile(seed, sample, config=cfg)
    step_c = step.compile(x, sample, y, config=cfg)
    assert isinstance(init_c, DistributedCompiledProgram) and isinstance(step_c, DistributedCompiledProgram)
    with DistributedWorker([init_c, step_c]) as rt:
        state = rt.alloc_tensor((R, C), np.float32)
        rt.run(init_c, seed, state)
        for k in range(2):
            x.fill(float(k))
            rt.run(step_c, x, state, y)
            np.testing.assert_allclose(y, 3 * seed + k, rtol=1e-6)
    print(f"OK {sys.argv[1].lower()} steps=2")
    # a call specializes on its arrays' shapes: another shape is another compile, not a stale one
    for rows in (R, 2 * R):
        s2 = np.ones((rows, C), np.float32)
        y2 = np.zeros((rows, C), np.float32)
        init(s2, y2, config=cfg)
        np.testing.assert_allclose(y2[:R], 3.0, rtol=1e-6)
        assert not y2[R:].any()                 # the kernel writes its first R rows
    print("OK calls")
