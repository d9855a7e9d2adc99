"""Every user error of the front end and passes: located (file:line:col, the line, a
caret) and saying what was expected."""
import re

import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.passes import PassContext, runtime_kind_from_name, runtime_kind_to_name, RuntimeKind

from . import bad_programs as bad

SRC = bad.__file__


def _line_of(text):
    for i, line in enumerate(open(SRC), start=1):
        if text in line:
            return i
    raise AssertionError(text)


def compile_error(program, tmp_path) -> CompileError:
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    return info.value


def assert_located(err, needle_in_line):
    line = _line_of(needle_in_line)
    assert err.loc is not None and err.loc.file == SRC and err.loc.line == line, (err.loc, line)
    text = str(err)
    assert text.startswith(f"{SRC}:{line}:{err.loc.col}: error: ")
    shown, caret = text.splitlines()[1:3]
    assert needle_in_line in shown
    assert caret.strip() == "^"
    # the caret sits under the reported column of the shown line
    assert len(caret) - len(caret.lstrip()) == 4 + err.loc.col - 1


def test_shape_mismatch_names_both_sides(tmp_path):
    err = compile_error(bad.ShapeMismatch, tmp_path)
    assert "tile.add requires compatible shapes, but got [64, 64] and [32, 32]" in str(err)
    assert_located(err, "pl.add(ta, tb)")
    assert str(err).splitlines()[2].index("^") == 4 + str(err).splitlines()[1][4:].index("pl.add")


def test_undefined_name(tmp_path):
    err = compile_error(bad.UndefinedName, tmp_path)
    assert "name 'missing' is not defined" in str(err)
    assert_located(err, "missing)")


def test_capacity_error_has_the_numbers(tmp_path):
    err = compile_error(bad.TooBigForUB, tmp_path)
    msg = str(err)
    assert "does not fit in Vec (UB)" in msg
    assert "capacity on a2a3 is 188416 bytes" in msg
    assert "196608 bytes needed for the tiles live here" in msg, msg
    assert "[128, 128] FP32 needs 65536 B" in msg
    assert_located(err, "w = pl.add(t, u)")


def test_capacity_depends_on_platform(tmp_path):
    # three live 64 KiB tiles = 192 KiB: over a2a3's 184 KiB, within a5's 240 KiB
    c = ptokit.compile(bad.TooBigForUB, output_dir=tmp_path / "a5", platform="a5sim")
    assert (c.output_dir / "kernels" / "aiv" / "k.cpp").exists()


def test_loop_carried_type_change(tmp_path):
    err = compile_error(bad.LoopTypeChange, tmp_path)
    assert "loop-carried 't' changes type" in str(err)
    assert "pl.Tile[[64, 64]" in str(err) and "pl.Tile[[32, 64]" in str(err)


def test_wrong_argument_count(tmp_path):
    err = compile_error(bad.WrongArgCount, tmp_path)
    assert "k is missing its 'out' argument" in str(err)
    assert_located(err, "self.k(a)")


def test_illegal_move(tmp_path):
    err = compile_error(bad.IllegalMove, tmp_path)
    assert "tile.move Vec->Left is not a legal move on a2a3" in str(err)
    assert_located(err, "pl.move(t")


def test_bad_annotation(tmp_path):
    err = compile_error(bad.BadAnnotation, tmp_path)
    assert "expected a dtype such as pl.FP32 in pl.Tensor[...], got 64" in str(err)
    assert_located(err, "a: pl.Tensor[[64, 64]]")


def test_scalar_loop_bound_must_be_integer(tmp_path):
    err = compile_error(bad.ScalarLoopBound, tmp_path)
    assert "loop bounds must be integers" in str(err)
    assert_located(err, "pl.range(s)")


def test_load_window_exceeds_tensor(tmp_path):
    err = compile_error(bad.LoadWindowTooBig, tmp_path)
    assert "exceeds the tensor's shape [32, 64]" in str(err)


def test_tile_shape_rules(tmp_path):
    err = compile_error(bad.BadTileShape, tmp_path)
    assert "cols * 4 bytes to be a multiple of 32" in str(err)


def test_orchestration_required(tmp_path):
    err = compile_error(bad.NoOrchestration, tmp_path)
    assert "exactly one Orchestration function" in str(err)


def test_runtime_kind_names_round_trip():
    for kind in RuntimeKind:
        assert runtime_kind_from_name(runtime_kind_to_name(kind)) is kind
    assert runtime_kind_to_name(RuntimeKind.HOST_BUILD_GRAPH) == "host_build_graph"
    with pytest.raises(ValueError, match="'tensormap_and_ringbuffer', 'host_build_graph'"):
        runtime_kind_from_name("ringbuffer")


def test_runtime_given_twice_is_an_error(tmp_path):
    import programs
    with PassContext(runtime="host_build_graph"):
        with pytest.raises(ValueError, match="give it in one place only"):
            ptokit.compile(programs.Elementwise, output_dir=tmp_path, runtime="tensormap_and_ringbuffer")


def test_runtime_from_pass_context_reaches_kernel_config(tmp_path):
    import programs
    with PassContext(runtime=RuntimeKind.HOST_BUILD_GRAPH):
        c = ptokit.compile(programs.Elementwise, output_dir=tmp_path)
    assert '"runtime": "host_build_graph"' in (c.output_dir / "kernel_config.py").read_text()
    assert c.config.runtime is RuntimeKind.HOST_BUILD_GRAPH


def test_unknown_platform_lists_valid_ones(tmp_path):
    import programs
    with pytest.raises(ValueError, match="a2a3sim, a5sim, a2a3, a5"):
        ptokit.compile(programs.Elementwise, output_dir=tmp_path, platform="gpu")


def test_ir_compile_alias():
    import ptokit.ir
    assert ptokit.ir.compile is ptokit.compile


def test_public_surface_is_reachable_from_import_ptokit():
    import subprocess
    import sys
    code = ("import ptokit; c = ptokit.runtime.RunConfig(platform='a5sim'); "
            "assert ptokit.ir.compile is ptokit.compile; "
            "from ptokit.passes import runtime_kind_to_name; "
            "print(c.platform, ptokit.RuntimeKind.HOST_BUILD_GRAPH.value, ptokit.PassContext.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["a5sim", "host_build_graph", "PassContext"]


def test_too_many_tensors_for_one_task(tmp_path):
    from . import too_many_tensors
    with pytest.raises(CompileError) as info:
        ptokit.compile(too_many_tensors.TooManyTensors, output_dir=tmp_path)
    err = info.value
    assert "kernel k takes 33 tensors and 0 scalars; a task passes at most 32 tensors and 16 scalars" in str(err)
    assert err.loc is not None and err.loc.file == too_many_tensors.__file__ and err.loc.line == 8


def test_dtype_mismatch_names_both_dtypes(tmp_path):
    err = compile_error(bad.DtypeMismatch, tmp_path)
    assert "tile.mul requires matching dtypes, but got pl.FP32 and pl.FP16" in str(err)
    assert_located(err, "pl.mul(pl.load(a")


def test_argument_type_mismatch(tmp_path):
    err = compile_error(bad.ArgumentType, tmp_path)
    assert ("argument 'a' of k expects pl.Tensor[[64, 64], pl.FP32], but got pl.Tensor[[64, 64], pl.FP16]"
            in str(err))
    assert_located(err, "self.k(a16, y)")


def test_a_parameter_rebound_to_a_number_is_that_number(tmp_path):
    """``a = 3`` then ``pl.load(a, ...)`` loaded the tensor parameter ``a`` silently (issue 31, item 6):
    the name is the number from then on, as in Python, so the load is a located error."""
    err = compile_error(bad.TensorParamRebound, tmp_path)
    assert "tile.load requires a tensor, but got pl.Scalar[pl.INDEX]" in str(err)
    assert_located(err, "pl.load(a, [0, 0], [64, 64])  # the rebound a")


@pl.program
class ScalarParamRebound:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        s = 2.0
        out = pl.store(pl.muls(pl.load(a, [0, 0], [64, 64]), s), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, s, y)
        return y


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_a_scalar_parameter_rebound_to_a_number_uses_the_number(tmp_path, runtime):
    import numpy as np
    c = ptokit.compile(ScalarParamRebound, output_dir=tmp_path / "out", runtime=runtime)
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    c(x, 5.0, y)                              # s = 2.0 in the kernel: the argument 5.0 is not used
    np.testing.assert_array_equal(y, x * np.float32(2.0))
