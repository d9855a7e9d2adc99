"""CtrlFlowTransform: the front end keeps break / continue as written; the pass leaves structured
loops (IR in, IR out).  The golden (golden/CtrlFlowTransform.txt) shows the combined case; the
programs run against Python's loops in tests/parity/test_loops.py."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError, InternalError
from ptokit.ir import nodes as N
from ptokit.ir.printer import print_function
from ptokit.ir.verifier import verify_properties
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.ctrl_flow import ctrl_flow_transform

from . import programs as P

CTX = PassContext(platform="a2a3sim")


def _escapes(prog):
    return [s for f in prog.functions.values() for s in N.walk_stmts(f.body) if isinstance(s, (N.Break, N.Continue))]


def test_front_end_keeps_break_and_continue_and_the_pass_removes_them():
    prog = parse_program(P.BreakContinue)
    assert sorted(type(s).__name__ for s in _escapes(prog)) == ["Break", "Break", "Continue", "Continue"]
    with pytest.raises(InternalError, match="structured_ctrl_flow"):
        verify_properties(prog, "the front end", {"structured_ctrl_flow"})
    out = ctrl_flow_transform(prog, CTX)
    assert _escapes(out) == []
    verify_properties(out, "CtrlFlowTransform", {"structured_ctrl_flow"})


@pl.program
class AfterNestedContinue:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(n):
            if i < 4:
                if i == 1:
                    continue
                t = pl.adds(t, 1.0)
            t = pl.muls(t, 2.0)
        y = pl.store(t, [0, 0], y)
        return y


def test_statements_after_an_if_that_may_continue_go_into_its_arms():
    out = ctrl_flow_transform(parse_program(AfterNestedContinue), CTX)
    text = print_function(out.functions["k"], method=False)
    loop = text[text.index("for i"):text.index("pl.store")].split("\n")
    body = [ln.strip() for ln in loop if ln.strip()]
    assert body == [
        "for i in pl.range(0, n, 1):",
        "if (i < 4):",
        "if (i == 1):",
        "pass",
        "else:",
        "t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.adds(t, 1.0)",
        "t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.muls(t, 2.0)",
        "else:",
        "t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.muls(t, 2.0)",
    ], text
    assert "__break" not in text      # no break: no flag


def test_break_in_parallel_is_refused_at_the_break():
    from tests.parity import loop_programs as L
    with pytest.raises(CompileError, match="`break` in a pl.parallel loop") as info:
        ctrl_flow_transform(parse_program(L.BreakParallel), CTX)
    assert info.value.loc.file == L.__file__ and "break" in str(info.value).splitlines()[1]
