"""pl.prefetch (make_context / async_prefetch / session / wait): the .pto golden and the generated
kernel wrapper (the hidden SDMA workspace), numpy results under both runtime kinds (a prefetch
changes no value), located misuse in the DSL and in .pto text."""
import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError, CompileError

from . import prefetch_programs as pp

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
GOLDEN = Path(__file__).parent / "golden" / "prefetch"
INCLUDE = Path(ptokit.__file__).parent / "runtime" / "include"
_TREES = {}


def tree(runtime, tmp_path_factory):
    if runtime not in _TREES:
        _TREES[runtime] = ptokit.compile(pp.Prefetch, output_dir=tmp_path_factory.mktemp(f"prefetch_{runtime}"),
                                         runtime=runtime)
    return _TREES[runtime]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_prefetch_changes_no_value(runtime, tmp_path_factory):
    c = tree(runtime, tmp_path_factory)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, pp.N)).astype(np.float32)
    y = rng.standard_normal(pp.N).astype(np.float32)
    h = rng.standard_normal((1, pp.N)).astype(np.float16)
    out = np.zeros((1, pp.N), np.float32)
    hout = np.zeros((1, pp.N), np.float16)
    c(x, y, h, out, hout)
    np.testing.assert_allclose(out, x * y + x, rtol=1e-6, atol=1e-6)
    assert np.array_equal(hout, h)


def test_golden_and_hidden_workspace(tmp_path_factory):
    t = tree(RUNTIMES[0], tmp_path_factory).output_dir
    pto = (t / "ptoas" / "k.pto").read_text()
    # the workspace is the last parameter (after the five user tensors); the task has no extra argument
    assert "func.func @k(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f16>, %arg3: !pto.ptr<f32>, " \
           "%arg4: !pto.ptr<f16>, %arg5: !pto.ptr<i8>)" in pto
    assert "%ctx = pto.make_prefetch_async_context(%arg5 : !pto.ptr<i8>) -> !pto.prefetch_async_context" in pto
    assert "%ev_y = pto.tprefetch_async(%y_pview, %ctx : !pto.partition_tensor_view<256xf32>, " \
           "!pto.prefetch_async_context) -> !pto.async_event" in pto
    assert "%s = pto.get_prefetch_async_session %ctx : !pto.prefetch_async_context -> !pto.async_session" in pto
    assert "%done = pto.comm.wait_async_event(%ev_h, %s : !pto.async_event, !pto.async_session) -> i1" in pto
    wrapper = (t / "kernels" / "aiv" / "k.cpp").read_text()
    assert '#include "intrinsic.h"' in wrapper
    assert "__gm__ int8_t* __pypto_sdma_workspace = reinterpret_cast<__gm__ int8_t*>(get_dma_workspace(args, " \
           "DMA_WORKSPACE_SDMA));" in wrapper
    assert "    k(x, y, h, out, hout, __pypto_sdma_workspace);" in wrapper
    orch = (t / "orchestration" / "main.cpp").read_text()
    assert "sdma" not in orch.lower() and "workspace" not in orch.lower()
    for rel in ("ptoas/k.pto", "kernels/aiv/k.cpp"):
        g = GOLDEN / rel
        if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
            g.parent.mkdir(parents=True, exist_ok=True)
            g.write_text((t / rel).read_text())
        assert (t / rel).read_text() == g.read_text(), f"{rel} differs from {g}"
    r = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", "-D__DAV_VEC__",
                        f"-I{INCLUDE}", str(t / "kernels" / "aiv" / "k.cpp")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_kernel_without_prefetch_has_no_workspace(tmp_path_factory):
    import ptokit.language as pl

    from . import view_programs as vp
    c = ptokit.compile(vp.make_transpose3(pl.FP32, pl.FP32, pl.FP32), output_dir=tmp_path_factory.mktemp("nopf"))
    wrapper = (c.output_dir / "kernels" / "aiv" / "k.cpp").read_text()
    assert "get_dma_workspace" not in wrapper and "!pto.ptr<i8>" not in (c.output_dir / "ptoas" / "k.pto").read_text()


_PROGRAM = '''
import ptokit.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 64], pl.FP32], v: pl.Tensor[[1, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        ctx = pl.prefetch.make_context()
{body}
        out = pl.store(pl.load(v, [0, 0], [1, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], v: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
{orch}
        out = self.k(x, v, out)
        return out
'''

_MISUSE = [
    ("ev = pl.prefetch.async_prefetch(x, ctx)", "",
     "pl.prefetch.async_prefetch: src must be a flat 1-D region: every dimension but the last is 1 ([N], [1, N]), "
     "got [4, 64]", "ev = pl.prefetch.async_prefetch(x, ctx)", "x"),
    ("t = pl.load(v, [0, 0], [1, 64])\n        ev = pl.prefetch.async_prefetch(t, ctx)", "",
     "pl.prefetch.async_prefetch: src is a global tensor (a kernel parameter), got pl.Tile[[1, 64], pl.FP32, "
     "pl.Mem.Vec]", "ev = pl.prefetch.async_prefetch(t, ctx)", "t, ctx"),
    ("ev = pl.prefetch.async_prefetch(v, 3)", "",
     "pl.prefetch.async_prefetch: ctx is the handle pl.prefetch.make_context() returns, got pl.Scalar[pl.INDEX]",
     "ev = pl.prefetch.async_prefetch(v, 3)", "3"),
    ("ev = pl.prefetch.async_prefetch(v, ctx)\n        pl.prefetch.wait(ctx, pl.prefetch.session(ctx))", "",
     "pl.prefetch.wait: event is the handle pl.prefetch.async_prefetch(...) returns, got a prefetch context",
     "pl.prefetch.wait(ctx, pl.prefetch.session(ctx))", "ctx"),
    ("ev = pl.prefetch.async_prefetch(v, ctx)\n        pl.prefetch.wait(ev, ev)", "",
     "pl.prefetch.wait: session_handle is the handle pl.prefetch.session(ctx) returns, got a prefetch event",
     "pl.prefetch.wait(ev, ev)", "ev)"),
    ("s = pl.prefetch.session(v)", "",
     "pl.prefetch.session: ctx is the handle pl.prefetch.make_context() returns, got pl.Tensor[[1, 64], pl.FP32]",
     "s = pl.prefetch.session(v)", "v"),
    ("ev = pl.prefetch.async_prefetch(v[0:1, 0:32], ctx)", "",
     "pl.prefetch.async_prefetch: src must be a whole tensor parameter of the kernel",
     "ev = pl.prefetch.async_prefetch(v[0:1, 0:32], ctx)", "pl.prefetch.async_prefetch("),
    ("pass", "        c = pl.prefetch.make_context()",
     "pl.prefetch.make_context runs on a vector core: it belongs in a kernel (an InCore function), not in "
     "orchestration code", "c = pl.prefetch.make_context()", "pl.prefetch"),
]


@pytest.mark.parametrize("body,orch,message,line,caret_at", _MISUSE, ids=range(len(_MISUSE)))
def test_misuse_is_located(body, orch, message, line, caret_at, tmp_path):
    text = _PROGRAM.format(body="        " + body, orch=orch)
    name = "prefetch_misuse_" + hashlib.sha256(text.encode()).hexdigest()[:12]
    src = tmp_path / f"{name}.py"
    src.write_text(text)
    spec = importlib.util.spec_from_file_location(name, src)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    with pytest.raises(CompileError) as ei:
        spec.loader.exec_module(mod)
        ptokit.compile(mod.P, output_dir=tmp_path / "out")
    text = str(ei.value)
    assert message in text
    assert f"{src}:" in text and line in text
    caret_line = text.splitlines()[text.splitlines().index(next(x for x in text.splitlines() if line in x)) + 1]
    src_line = next(x for x in text.splitlines() if line in x)
    assert caret_line.index("^") == src_line.index(caret_at)


_PTO = """module {{
  func.func @k(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<{ws}>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %v = pto.make_tensor_view %arg0, shape = [%c4, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [{rows}, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<{shape}xf32>
    %ctx = pto.make_prefetch_async_context(%arg1 : !pto.ptr<{ws}>) -> !pto.prefetch_async_context
    %ev = pto.tprefetch_async(%p, %ctx : !pto.partition_tensor_view<{shape}xf32>, !pto.prefetch_async_context) -> !pto.async_event
    %s = pto.get_prefetch_async_session %ctx : !pto.prefetch_async_context -> !pto.async_session
    %d = pto.comm.wait_async_event({wait} : !pto.async_event, !pto.async_session) -> i1
    return
  }}
}}
"""


def test_pto_text_assembles():
    cpp = assemble_text(_PTO.format(ws="i8", rows="%c1", shape="1x64", wait="%ev, %s"), "t.pto")
    assert "TPREFETCH_ASYNC(" in cpp and "TWAIT_ASYNC_EVENT(" in cpp and "pto::PrefetchAsyncContext" in cpp


@pytest.mark.parametrize("ws,rows,shape,wait,message", [
    ("i32", "%c1", "1x64", "%ev, %s", "'pto.make_prefetch_async_context': the SDMA workspace is a !pto.ptr<i8>, "
                                     "got !pto.ptr<i32>"),
    ("i8", "%c4", "4x64", "%ev, %s", "'pto.tprefetch_async': the prefetched region must be a static flat 1-D view "
                                    "(every extent but the last 1), got !pto.partition_tensor_view<4x64xf32>"),
    ("i8", "%c1", "1x64", "%s, %ev", "type mismatch: '%s' has type !pto.async_session but is used here as "
                                    "!pto.async_event"),
])
def test_pto_misuse_is_located(ws, rows, shape, wait, message):
    with pytest.raises(AssemblerError) as ei:
        assemble_text(_PTO.format(ws=ws, rows=rows, shape=shape, wait=wait), "t.pto")
    assert message in str(ei.value) and ei.value.loc is not None and ei.value.loc.file == "t.pto"


def test_prefetch_in_a_cube_kernel_is_located(tmp_path):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(pp.PrefetchInACubeKernel, output_dir=tmp_path)
    text = str(ei.value)
    assert "prefetch_programs.py:" in text and "ctx = pl.prefetch.make_context()" in text
    assert "pl.prefetch.make_context runs on a vector core (its SDMA scratch lives in the vector buffer); 'k' is a " \
           "cube kernel" in text


_MIXED = {}


def _mixed_tree(name, runtime, tmp_path_factory):
    if (name, runtime) not in _MIXED:
        _MIXED[(name, runtime)] = ptokit.compile(getattr(pp, name), runtime=runtime,
                                                 output_dir=tmp_path_factory.mktemp(f"pf_{name}_{runtime[:4]}"))
    return _MIXED[(name, runtime)]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", ["PrefetchMixed", "PrefetchSplit", "PrefetchAt"])
def test_prefetch_in_a_mixed_kernel(name, runtime, tmp_path_factory):
    """The prefetch goes to the vector side of a mixed kernel (unsplit, split UP_DOWN, a pl.at block)
    and changes no value."""
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal((64, 64)) * 0.2).astype(np.float16), (rng.standard_normal((64, 64)) * 0.2).astype(np.float16)
    v = rng.standard_normal((1, 64)).astype(np.float32)
    y = np.full((64, 64), -7, np.float32)
    _mixed_tree(name, runtime, tmp_path_factory)(a, b, v, y)
    np.testing.assert_allclose(y, a.astype(np.float64) @ b.astype(np.float64) + v, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["PrefetchMixed", "PrefetchSplit"])
def test_mixed_kernel_workspace_reaches_the_vector_side_only(name, tmp_path_factory):
    t = _mixed_tree(name, RUNTIMES[0], tmp_path_factory).output_dir
    pto = (t / "ptoas" / "k.pto").read_text()
    aic, aiv = pto.split("func.func @k_aiv(")
    assert "!pto.ptr<i8>" not in aic.split("\n")[1] and "prefetch_async" not in aic
    assert aiv.split(")")[0].count("!pto.ptr<i8>") == 1            # the hidden SDMA workspace
    for op in ("pto.make_prefetch_async_context", "pto.tprefetch_async", "pto.get_prefetch_async_session",
               "pto.comm.wait_async_event"):
        assert aiv.count(op) == 1, op
    assert "get_dma_workspace" in (t / "kernels" / "aiv" / "k_aiv.cpp").read_text()
    assert "get_dma_workspace" not in (t / "kernels" / "aic" / "k_aic.cpp").read_text()
    for side in ("aic", "aiv"):
        r = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM",
                            "-D__DAV_VEC__" if side == "aiv" else "-D__DAV_CUBE__", f"-I{INCLUDE}",
                            str(t / "kernels" / side / f"k_{side}.cpp")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_prefetch_flag_read_by_cube_work_is_located(tmp_path):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(pp.PrefetchFlagOnTheCube, output_dir=tmp_path)
    err = ei.value
    assert "'done' comes from pl.prefetch, which runs on the vector side of mixed kernel 'k'" in str(err)
    assert err.loc is not None and err.loc.file.endswith("prefetch_programs.py") and "if done:" in str(err)
    assert err.loc.col == err.loc.source_line.index("done") + 1, str(err)
