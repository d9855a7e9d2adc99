"""torch CPU tensors through every entry point a pypto user passes them to: a compiled program
(in and out), a @pl.jit call (in place and return style), ``ptokit.runtime.run`` with torch-typed
``TensorSpec``s and a golden, a distributed example with --torch. They run where torch is installed
(CI installs it); elsewhere they skip, saying so."""
import subprocess
import os
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install torch)")

import programs as P                                  # noqa: E402
import ptokit                                         # noqa: E402
from ptokit.runtime import RunConfig, TensorSpec, run  # noqa: E402

from jit import progs                                 # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ew(tmp_path_factory):
    return ptokit.compile(P.Elementwise, output_dir=tmp_path_factory.mktemp("torch") / "Elementwise")


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_compiled_program_in_place_and_return_style(ew, runtime):
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    y, z = torch.zeros(64, 64), torch.zeros(64, 64)
    ew(a, b, y, z, config=RunConfig(runtime=runtime))
    torch.testing.assert_close(y, a + b)
    torch.testing.assert_close(z, torch.exp(a * b), rtol=1e-5, atol=1e-5)
    y2, z2 = ew(a, b)
    assert isinstance(y2, torch.Tensor) and isinstance(z2, torch.Tensor)
    torch.testing.assert_close(y2, y)


def test_a_wrong_torch_dtype_is_an_argument_error(ew):
    a = torch.randn(64, 64)
    with pytest.raises(ptokit.errors.ArgumentError, match="must have dtype FP32"):
        ew(a, a.to(torch.int32))


def test_jit_with_torch_tensors():
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    c = torch.zeros(64, 64)
    progs.tile_add(a, b, c)
    torch.testing.assert_close(c, a + b)
    out = progs.tile_add(a, b)              # the output left out: allocated as a torch tensor and returned
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    torch.testing.assert_close(out, a + b)
    # a bfloat16 specialization is a different one, and runs too (on a5: a2a3 adds no bf16 tiles)
    a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
    out16 = torch.zeros_like(a16)
    progs.tile_add.compile(a16, b16, out16, platform="a5sim")(a16, b16, out16)
    assert out16.dtype == torch.bfloat16
    torch.testing.assert_close(out16.float(), (a16.float() + b16.float()).to(torch.bfloat16).float())


def test_runtime_run_with_torch_tensor_specs():
    specs = [TensorSpec("a", [64, 64], torch.float32, init_value=torch.randn),
             TensorSpec("b", [64, 64], torch.float32, init_value=torch.randn),
             TensorSpec("y", [64, 64], torch.float32, is_output=True),
             TensorSpec("z", [64, 64], torch.float32, is_output=True)]
    seen = {}

    def golden(t):
        seen.update({k: type(v) for k, v in t.items()})
        t["y"][:] = t["a"] + t["b"]
        t["z"][:] = torch.exp(t["a"] * t["b"])

    result = run(P.Elementwise, specs, golden, RunConfig(rtol=1e-4, atol=1e-4))
    assert result.passed, result.error
    assert seen and all(v is torch.Tensor for v in seen.values()), seen

    def wrong(t):
        golden(t)
        t["y"][3, 5] += 1.0

    result = run(P.Elementwise, specs, wrong, RunConfig(rtol=1e-4, atol=1e-4))
    assert not result.passed and "y: 1 of 4096 elements differ" in result.error


def test_distributed_example_with_torch(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "examples" / "distributed" / "01_hello_rank.py"), "--torch",
                        "--clusters", "2", "--output-dir", str(tmp_path / "tree")],
                       env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "OK"
