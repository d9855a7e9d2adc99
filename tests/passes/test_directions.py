"""DeriveArgDirections: how each task passes each tensor to the runtime, and where the runtime
allocates a pl.create_tensor intermediate (for its first writer, or where it is created)."""
import ptokit.language as pl
from ptokit.ir import nodes as N
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE


def directed(program):
    prog, ctx = parse_program(program), PassContext(platform="a2a3sim")
    for p in PIPELINE:
        prog = p.run(prog, ctx)
        if p.name == "DeriveArgDirections":
            return prog.functions["main"]
    raise AssertionError("no DeriveArgDirections")


def _kinds(fn):
    return [(c.callee, c.attrs["arg_kinds"]) for _, c in N.walk_calls(fn.body)]


def _creates(fn):
    return [(s.targets[0].name, bool(s.value.attrs.get("zero_alloc"))) for s in N.walk_stmts(fn.body)
            if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.op == "create_tensor"]


@pl.program
class BandsThenRead:
    @pl.function(type=pl.FunctionType.InCore)
    def band(self, x: pl.Tensor[[64, 32], pl.FP32], r: pl.Scalar[pl.INDEX],
             tmp: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        tmp = pl.store(pl.load(x, [r, 0], [16, 32]), [r, 0], tmp)
        return tmp

    @pl.function(type=pl.FunctionType.InCore)
    def drain(self, tmp: pl.Tensor[[64, 32], pl.FP32], y: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        y = pl.store(pl.load(tmp, [0, 0], [64, 32]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        tmp = pl.create_tensor([64, 32], dtype=pl.FP32)
        for i in pl.range(4):
            tmp = self.band(x, i * 16, tmp)
        y = self.drain(tmp, y)
        return y


def test_first_writer_in_a_loop_then_a_read_after_it_allocates_where_created():
    main = directed(BandsThenRead)
    assert _creates(main) == [("tmp", True)]
    assert _kinds(main) == [("band", ["input", "scalar", "output"]), ("drain", ["input", "output"])]



def test_first_writer_beside_its_creation_allocates_the_tensor():
    from . import programs as P          # its golden: DeriveArgDirections.txt
    main = directed(P.CubeAndVector)
    assert _creates(main) == [("c", False)]
    assert any("output_new" in kinds for _, kinds in _kinds(main))
