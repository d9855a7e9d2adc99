"""A15, B: Python while loops, pl.while_ with pl.cond and init_values, break and continue, in
kernels and in orchestration, against Python's own loops."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import loop_programs as L

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [1, 3, 8])
def test_kernel_loops(tmp_path, runtime, n):
    x = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float32)
    y = np.zeros((16, 64), np.float32)
    ptokit.compile(L.KernelLoops, output_dir=tmp_path / "out", runtime=runtime)(x, n, y)
    b = x.reshape(8, 16, 64)
    seen = 1
    while seen * seen <= n:
        seen += 1
    want = (b[:max(n, 1)].sum(axis=0) + 3.0) * 2 ** 4 + seen
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_kernel_loops_are_scf_while(tmp_path):
    ptokit.compile(L.KernelLoops, output_dir=tmp_path / "out")
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    assert pto.count("scf.while") == 3 and pto.count("scf.condition(") == 3 and "^bb0(" in pto
    cpp = (tmp_path / "out" / "ptoas" / "k.cpp").read_text()
    assert cpp.count("while (true) {") == 3


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [0, 2])
def test_orchestration_loops(tmp_path, runtime, n):
    y = np.full((16, 64), 0.5, np.float32)
    ptokit.compile(L.OrchestrationLoops, output_dir=tmp_path / "out", runtime=runtime)(n, y)
    want = 0.5 + n + 30 + 2.5 + (1.0 + 100 * n + 243)
    np.testing.assert_allclose(y, np.full((16, 64), want, np.float32), rtol=1e-6)
    orch = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    assert orch.count("while (true) {") == 2 and "if (!(" in orch


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [0, 4, 8])
def test_nested_escapes(tmp_path, runtime, n):
    """A continue inside an if inside an if skips what follows both; a break after it ends the loop
    (CtrlFlowTransform takes the statements after such an if into its arms); break in pl.while_,
    continue in pl.unroll (the pass runs before UnrollLoops)."""
    x = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros((16, 64), np.float32)
    ptokit.compile(L.NestedEscapes, output_dir=tmp_path / "out", runtime=runtime)(x, n, y)
    want = x.copy()
    for i in range(8):
        if i < n:
            if i % 2 == 1:
                continue
            want = want + 1.0
        want = want * 2.0
        if i == 5:
            break
    k = 0
    while True:
        k += 1
        if k < 3:
            continue
        want = want + 0.5
        if k >= 4:
            break
    m = 0
    while m < 10:
        if m == 3:
            break
        want = want + 0.25
        m += 1
    for u in range(4):
        if u == 2:
            continue
        want = want * 3.0
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("program,message,needle", [
    (L.BreakParallel, "`break` in a pl.parallel loop", "break"),
    (L.BreakInWith, "`continue` inside a `with` block", "continue"),
    (L.WhileWithoutCond, "a pl.while_ body starts with its test, pl.cond(...)", "j2 = pl.yield_"),
    (L.CondElsewhere, "pl.cond(...) is the first statement of a", "pl.cond(i < 2)"),
    (L.WhileElse, "`while ... else` is not supported", "i = 0"),
    (L.WhileArgs, "pl.while_ takes only init_values=(...)", "pl.while_(4"),
    (L.TileCondition, "a loop condition must be a scalar", "while t:"),
])
def test_loop_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    text = str(info.value)
    assert message in text, text
    assert info.value.loc.file == L.__file__ and needle in text.splitlines()[1], text
