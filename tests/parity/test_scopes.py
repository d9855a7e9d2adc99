"""A3, A4, B: runtime scopes (pl.scope, pl.manual_scope, pl.cluster), pl.submit, SPMD forms
(for i in pl.spmd, with pl.spmd(core_num=, sync_start=, deps=) as tid, pl.at inside pl.spmd,
runtime block counts), under both runtime kinds."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.ir.nodes import copy_program
from ptokit.passes.context import PassContext
from ptokit.passes.outline_scopes import outline_incore_scopes
from ptokit.runtime import RunConfig

from . import scope_programs as S

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_scopes_and_submit(tmp_path, runtime):
    x = rand(64, 64)
    y, a, b = (np.zeros_like(x) for _ in range(3))
    c = ptokit.compile(S.Scopes, output_dir=tmp_path / "out", runtime=runtime)
    c(x, y, a, b)
    np.testing.assert_allclose(y, x + 4, rtol=1e-6)
    np.testing.assert_allclose(a, (x + 4) * 2, rtol=1e-6)
    np.testing.assert_allclose(b, (x + 4) * 3, rtol=1e-6)
    orch = (c.output_dir / "orchestration" / "main.cpp").read_text()
    assert "PTO2_SCOPE_MANUAL() {   // pl.scope(mode=MANUAL)" in orch and "PTO2_SCOPE() {   // pl.scope(mode=AUTO)" in orch
    assert ".add_dep(t0)" in orch


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [2, 4])
def test_spmd_forms(tmp_path, runtime, n):
    x = rand(64, 64, seed=1)
    ys = [np.zeros_like(x) for _ in range(4)]
    c = ptokit.compile(S.SpmdForms, output_dir=tmp_path / "out", runtime=runtime)
    assert not {"ex", "neg"} & set(S.SpmdForms.ir.functions)       # as parsed: blocks of kernel code
    lowered = outline_incore_scopes(copy_program(S.SpmdForms.ir), PassContext(platform="a2a3sim"))
    assert {"ex", "neg"} <= set(lowered.functions)
    c(x, n, *ys)
    np.testing.assert_allclose(ys[0], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(ys[1], x * 10, rtol=1e-6)
    want3 = np.zeros_like(x)
    want3[:16 * n] = x[:16 * n] * 100
    np.testing.assert_allclose(ys[2], want3, rtol=1e-6)
    np.testing.assert_array_equal(ys[3], -x)
    orch = (c.output_dir / "orchestration" / "main.cpp").read_text()
    assert "set_sync_start(true)" in orch and "pl.cluster()" in orch


def test_jit_spmd_loop(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = rand(64, 64, seed=2)
    y = np.zeros_like(x)
    S.jit_spmd_loop(x, y, config=RunConfig(runtime="host_build_graph"))
    np.testing.assert_allclose(y, x + 5, rtol=1e-6)


@pytest.mark.parametrize("program,message,needle", [
    (S.NestedManual, "a MANUAL scope cannot be nested in another MANUAL scope", "with pl.scope(mode=pl.ScopeMode.MANUAL):"),
    (S.ScopeInKernel, "pl.scope is a runtime scope of the orchestration; it cannot be in kernel code", "with pl.scope():"),
    (S.Predicate, "predicate= takes one comparison of a tensor element with an integer literal: predicate=(t[i] > 0); "
                  "the left side must be a tensor element t[i, ...]", "predicate=(x > 0)"),
    (S.EscapesScope, "tensor 't' is created by a task inside a pl.scope and used after that scope ends",
     "y = self.inc(t, y)"),
])
def test_scope_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value)
    assert info.value.loc.file == S.__file__ and needle in str(info.value).splitlines()[1]
