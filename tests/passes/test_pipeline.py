"""The pass pipeline's declared properties: a pass that needs a property no earlier pass
establishes is refused, and a pass that breaks a claimed property is caught by the verifier."""
import pytest

from ptokit.errors import InternalError
from ptokit.ir import nodes as N
from ptokit.ir.verifier import PROPERTIES
from ptokit.language.parser import parse_program
from ptokit.passes import manager
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE, Pass, run_passes

from . import programs as P


def test_pipeline_requirements_are_met_in_order():
    held = {"defined"}
    for p in PIPELINE:
        assert p.requires <= held, p.name
        held = (held - p.gives_up) | p.produces
    assert held >= {"ssa", "inlined", "flat", "classified", "planned", "directions", "split"}


def test_unknown_property_is_refused():
    with pytest.raises(ValueError, match="unknown IR properties"):
        Pass("Bad", lambda prog, ctx: prog, requires=frozenset({"sorted"}))
    assert "ssa" in PROPERTIES


def test_a_pass_out_of_order_is_an_internal_error(monkeypatch):
    order = [p for p in PIPELINE if p.name != "ConvertToSSA"]      # PlanMemory then lacks 'ssa'
    monkeypatch.setattr(manager, "PIPELINE", order)
    with pytest.raises(InternalError, match="pass FlattenTileNdTo2D needs IR properties \\['ssa'\\]"):
        run_passes(parse_program(P.Nested), PassContext(platform="a2a3sim"))


def _renest(prog, ctx):
    """Undo Flatten in the kernel: put the first tile-valued operand back inside its user."""
    fn = prog.functions["k"]
    defs = {s.targets[0].name: s.value for s in fn.body if isinstance(s, N.Assign)}
    for s in fn.body:
        if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall):
            for i, a in enumerate(s.value.args):
                if isinstance(a, N.Var) and isinstance(defs.get(a.name), N.OpCall) and defs[a.name].op == "exp":
                    s.value.args[i] = defs[a.name]
                    return prog
    raise AssertionError("nothing to re-nest")


def test_a_pass_that_breaks_a_claimed_property_is_caught(monkeypatch):
    i = [p.name for p in PIPELINE].index("Flatten")
    breaker = Pass("Renest", _renest)
    monkeypatch.setattr(manager, "PIPELINE", PIPELINE[:i + 1] + [breaker] + PIPELINE[i + 1:])
    with pytest.raises(InternalError, match="after Renest: k breaks 'flat': exp is nested in the arguments of add"):
        run_passes(parse_program(P.Nested), PassContext(platform="a2a3sim"))


def test_split_kernels_give_up_no_fifo():
    prog = run_passes(parse_program(P.MatmulExp), PassContext(platform="a2a3sim"))
    ops = {e.op for f in prog.functions.values() for _, e in N.walk_ops(f.body)}
    assert {"tpush_to_aiv", "tpop_from_aic"} <= ops
