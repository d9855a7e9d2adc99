"""A6, A8, A9: Opaque functions, module-level functions joining a program, returns in every form,
names first bound in a loop or branch, pl.at outlined in a program, declarations."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.passes.context import PassContext
from ptokit.passes.outline_scopes import outline_incore_scopes

from . import function_programs as F

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def located(err, needle):
    assert err.loc is not None and err.loc.file == F.__file__, err
    assert needle in str(err).splitlines()[1], str(err)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_opaque_and_module_level_functions(tmp_path, runtime):
    prog = F.OpaqueDefaults.ir
    kinds = {n: f.kind for n, f in prog.functions.items()}
    assert kinds["main"] is N.FunctionType.Orchestration and kinds["via_name"] is N.FunctionType.InCore
    assert {"scale_kernel", "bump_kernel"} <= set(kinds)
    x = rand(16, 64)
    ys = [np.zeros_like(x) for _ in range(6)]
    ptokit.compile(F.OpaqueDefaults, output_dir=tmp_path / "out", runtime=runtime)(x, *ys)
    np.testing.assert_allclose(ys[0], np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(ys[1], -x)
    np.testing.assert_allclose(ys[2], x * 3, rtol=1e-6)
    np.testing.assert_allclose(ys[3], x * 3 + 1, rtol=1e-6)
    np.testing.assert_array_equal(ys[4], np.abs(x))
    np.testing.assert_array_equal(ys[5], np.maximum(x, 0))


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [1, 5])
def test_names_bound_in_a_loop_or_branch_live_after_it(tmp_path, runtime, n):
    x = rand(64, 64, seed=1)
    y, z = np.zeros_like(x), np.zeros((16, 64), np.float32)
    ptokit.compile(F.LastIteration, output_dir=tmp_path / "out", runtime=runtime)(x, n, y, z)
    np.testing.assert_allclose(y, x * 2, rtol=1e-6)
    last = x[48:] + 0.5
    np.testing.assert_allclose(z, (last * 4 if n > 2 else last) + 30, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_pl_at_in_a_program_is_outlined_with_unique_names(tmp_path, runtime):
    names = set(outline_incore_scopes(F.AtOutlined.ir, PassContext(platform="a2a3sim")).functions)
    assert names == {"main", "main_main", "main_main_0"}
    x = rand(16, 64, seed=2)
    y, z = np.zeros_like(x), np.zeros_like(x)
    ptokit.compile(F.AtOutlined, output_dir=tmp_path / "out", runtime=runtime)(x, y, z)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(z, np.exp(x) + 1, rtol=1e-6)


def test_func_attr_and_declarations_accepted(tmp_path):
    x = rand(16, 64, seed=3)
    y = np.zeros_like(x)
    ptokit.compile(F.FuncAttrs, output_dir=tmp_path / "out")(x, y)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("program,message,needle", [
    (F.StrictRebind, "'t' is assigned a second time, but this function is strict_ssa=True", "t = pl.exp(t)"),
    (F.SplitAttr, "attrs={'split': 3}: the split mode is pl.SplitMode.NONE (0), UP_DOWN (1) or LEFT_RIGHT (2)",
     "def k(self"),
    (F.UnknownAttr, "unknown function attribute 'unroll_all'", "def k(self"),
    (F.NoAutoScope, "auto_scope=False is not supported yet", "def main(self"),
    (F.AnnotatedCallMismatch, "annotation says pl.Tile[[16, 32]", "u: pl.Tile[[16, 32]"),
])
def test_declaration_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value)
    located(info.value, needle)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_annotated_assignment_from_a_call(tmp_path, runtime):
    x = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(F.AnnotatedCalls, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, 2 * x)


TEXT = '''
@pl.program
class FromText:
    @pl.inline
    def twice(self, t: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
        return pl.add(t, t)

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tuple[pl.Tensor[[16, 64], pl.FP32],
                                                             pl.Tensor[[16, 64], pl.FP32]]:
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(self.twice(t), [0, 0], y)          # an Inline helper's value inside an expression
        z = pl.store(pl.muls(self.twice(t), 0.5), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y, z = self.k(x, y, z)
        return y, z
'''


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_parse_and_loads_text_with_inline_and_tuple(tmp_path, runtime):
    import ptokit.language as pl
    path = tmp_path / "prog.py"
    path.write_text(TEXT)
    for prog in (pl.parse(TEXT), pl.loads(path)):
        x = rand(16, 64)
        y, z = np.zeros_like(x), np.zeros_like(x)
        ptokit.compile(prog, output_dir=tmp_path / f"out{id(prog)}", runtime=runtime)(x, y, z)
        np.testing.assert_array_equal(y, x + x)
        np.testing.assert_array_equal(z, x)


def test_parse_errors_point_into_the_text(tmp_path):
    import ptokit.language as pl
    from ptokit.errors import UserError
    with pytest.raises(CompileError) as info:
        ptokit.compile(pl.parse(TEXT.replace("pl.add(t, t)", "pl.nosuch(t)"), filename="mine.py"),
                       output_dir=tmp_path / "o")
    assert info.value.loc.file == "mine.py" and info.value.loc.line == 6
    assert "return pl.nosuch(t)" in str(info.value) and "^" in str(info.value)
    with pytest.raises(UserError, match=r"mine.py:3:\d+: invalid syntax|mine.py:3:"):
        pl.parse("x = 1\n\ndef (:\n", filename="mine.py")
    with pytest.raises(UserError, match="defines no @pl.program and 0 @pl.function"):
        pl.parse("x = 1\n")
    with pytest.raises(UserError, match="cannot read"):
        pl.loads(tmp_path / "missing.py")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_callees_are_parsed_before_their_callers(tmp_path, runtime):
    x, y = rand(16, 64), np.zeros((16, 64), np.float32)
    ptokit.compile(F.InlineCallsKernel, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, x + 2, rtol=1e-6)


def test_an_inline_value_inside_an_expression_is_one_value():
    with pytest.raises(CompileError) as err:
        F.InlinePairInExpression.ir
    located(err.value, "self.pair(")
    assert "pair returns 2 values; call it as `a, b = pair(...)`" in str(err.value)
