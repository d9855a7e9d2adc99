"""The one annotation reader (language/annotations.py) and the one binder (language/binder.py):
every annotation form, Python's binding rules at every kind of call, and each binding mistake as
a located error whose words are the same at a DSL call site and at a run-time call."""
import ast
import inspect

import numpy as np
import pytest

import ptokit.language as pl
import ptokit.language.distributed as pld
from ptokit.errors import ArgumentError, CompileError, SourceLoc
from ptokit.ir import nodes as N
from ptokit.ir.types import DType, MemorySpace, ScalarType, TensorLayout, TensorType, TileType
from ptokit.language.annotations import function_params, read_annotation
from ptokit.language.binder import Given, bind, bind_call, parameter
from ptokit.language.signatures import arg_problem
from ptokit.language.types import DimExpr

from . import binder_programs as P

SRC = P.__file__
LOC = SourceLoc("prog.py", 3, 7, "    def k(a: X):\n")
M = pl.dynamic("M")


def _line_of(text):
    for i, line in enumerate(open(SRC), start=1):
        if text in line:
            return i
    raise AssertionError(text)


def located(err, needle, col_at=None, src=SRC):
    """``err`` is reported at the line of ``src`` holding ``needle``, with the caret under ``col_at``."""
    lines = open(src).read().splitlines()
    line = next(i for i, text in enumerate(lines, start=1) if needle in text)
    assert err.loc is not None and err.loc.file == src and err.loc.line == line, (err.loc, line, str(err))
    text = str(err)
    assert text.startswith(f"{src}:{line}:{err.loc.col}: error: ")
    shown, caret = text.splitlines()[1:3]
    assert needle in shown and caret.strip() == "^"
    if col_at is not None:
        assert err.loc.col - 1 == lines[line - 1].index(col_at), (err.loc, col_at)


# ---------------------------------------------------------------- the reader: every form

def test_a_full_tensor_with_a_dynamic_dimension():
    a = read_annotation(pl.Tensor[[64, M], pl.FP32], LOC, "x")
    assert (a.kind, a.direction, a.dtype, a.name, a.bare) == ("tensor", "IN", DType.FP32, "x", False)
    assert a.shape[0] == 64 and isinstance(a.shape[1], DimExpr) and a.shape[1].text == "M"
    assert a.ir_type(LOC) == (TensorType((64, "M"), DType.FP32), N.Direction.IN)


def test_a_dimension_expression_stays_symbolic():
    a = read_annotation(pl.Tensor[[M * 2, 16], pl.FP16], LOC)
    assert a.shape[0].text == "(M) * (2)"
    assert a.ir_type(LOC)[0].shape[1] == 16


@pytest.mark.parametrize("wrap, direction", [(pl.Out, "OUT"), (pl.InOut, "INOUT")])
def test_out_and_inout_give_the_direction(wrap, direction):
    a = read_annotation(wrap[pl.Tensor[[8, 8], pl.INT32]], LOC)
    assert (a.kind, a.direction, a.writes) == ("tensor", direction, True)
    assert a.ir_type(LOC)[1] is N.Direction(direction)
    bare = read_annotation(wrap[pl.Tensor], LOC)
    assert bare.bare and bare.direction == direction


def test_a_bare_tensor_is_for_jit_only():
    a = read_annotation(pl.Tensor, LOC)
    assert a.kind == "tensor" and a.bare and a.dtype is None
    with pytest.raises(CompileError, match="a bare pl.Tensor needs a shape and dtype here") as info:
        a.ir_type(LOC)
    assert info.value.loc == LOC


def test_a_window_is_read_and_written():
    a = read_annotation(pld.DistributedTensor[[4, 64], pl.FP32], LOC)
    assert a.window and a.direction == "INOUT"
    assert a.ir_type(LOC) == (TensorType((4, 64), DType.FP32, window=True), N.Direction.INOUT)


def test_tiles_with_and_without_a_memory_space():
    a = read_annotation(pl.Tile[[16, 32], pl.FP16, pl.Mem.Left], LOC)
    assert (a.kind, a.shape, a.dtype, a.memory) == ("tile", (16, 32), DType.FP16, MemorySpace.Left)
    t, _ = a.ir_type(LOC)
    assert isinstance(t, TileType) and t.memory is MemorySpace.Left and tuple(t.shape) == (16, 32)
    plain = read_annotation(pl.Tile[[16, 32], pl.FP16], LOC)
    assert plain.memory is None and plain.ir_type(LOC)[0].memory is MemorySpace.Vec
    assert read_annotation(pl.Tile, LOC).bare


def test_scalars_numbers_and_nothing():
    s = read_annotation(pl.Scalar[pl.INT32], LOC)
    assert (s.kind, s.dtype) == ("scalar", DType.INT32) and s.ir_type(LOC)[0] == ScalarType(DType.INT32)
    assert read_annotation(pl.Scalar, LOC).ir_type(LOC)[0] == ScalarType(DType.INDEX)
    d = read_annotation(pl.FP32, LOC)
    assert (d.kind, d.dtype) == ("number", DType.FP32) and d.ir_type(LOC)[0] == ScalarType(DType.FP32)
    i = read_annotation(int, LOC)
    assert (i.kind, i.py_type, i.dtype) == ("number", int, None)
    assert read_annotation(None, LOC).kind == "any"
    assert read_annotation(inspect.Parameter.empty, LOC).kind == "any"


def test_a_tensor_view_gives_its_valid_region_where_it_is_taken():
    view = pl.TensorView(valid_shape=[8, 64], layout=pl.TensorLayout.ND)
    a = read_annotation(pl.Tensor[[16, 64], pl.FP32, view], LOC)
    valid = []
    assert a.ir_type(LOC, valid)[0] == TensorType((16, 64), DType.FP32) and valid == [(8, 64)]
    with pytest.raises(CompileError, match="here it would mean nothing"):
        a.ir_type(LOC)


def test_an_mx_scale_layout():
    a = read_annotation(pl.Tensor[[32, 4], pl.FP8E8M0, pl.TensorLayout.MX_A_ZZ], LOC)
    assert a.layout is TensorLayout.MX_A_ZZ and a.ir_type(LOC)[0].layout is TensorLayout.MX_A_ZZ


@pytest.mark.parametrize("annot, words", [
    (pl.Out[pl.Scalar[pl.INT32]], "pl.Out[...] wraps a tensor"),
    (pl.InOut[pl.Tile[[16, 16], pl.FP32]], "pl.InOut[...] wraps a tensor"),
    (pl.Tensor[[0, 4], pl.FP32], "shape dimensions must be positive, got 0"),
    (pl.Tensor[[4, 2.5], pl.FP32], "expected a shape dimension (int constant or pl.dynamic), got 2.5"),
    (pl.Tensor[[4, 4], "fp32"], "expected a dtype such as pl.FP32 in pl.Tensor[...]"),
    (pl.Tile[[16], pl.FP32], "expected a static tile shape of rank 2 or more"),
    (pl.Tile[[16, M], pl.FP32], "expected a static tile shape of rank 2 or more"),
    (pl.Tile[[16, 16], 3], "expected a dtype such as pl.FP16 in pl.Tile[...]"),
    (pl.Scalar["i32"], "expected a dtype such as pl.INT32 in pl.Scalar[...]"),
    (pl.Scalar[pl.INT4], "scalars of pl.INT4 do not exist"),
    (pl.Tensor[[32, 4], pl.FP32, pl.TensorLayout.MX_A_ZZ], "the tensor must hold pl.FP8E8M0"),
    (pl.Tensor[[4, 4], pl.FP32, pl.TensorLayout.NZ], "layout are not supported"),
    ("pl.Tensor", "expected a type annotation such as pl.Tensor[[64, 64], pl.FP32]"),
])
def test_malformed_annotations_are_located(annot, words):
    with pytest.raises(CompileError) as info:
        read_annotation(annot, LOC)
    assert words in str(info.value) and info.value.loc == LOC


@pytest.mark.parametrize("annot", [int, None])
def test_a_program_parameter_needs_a_type(annot):
    with pytest.raises(CompileError, match="expected a type annotation such as") as info:
        read_annotation(annot, LOC).ir_type(LOC)
    assert info.value.loc == LOC


def test_function_params_reads_kinds_defaults_and_locations():
    params = function_params(P.entry_with_default.fn)
    assert [(sp.name, sp.kind.name, sp.default) for sp, _, _ in params] == [
        ("x", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty), ("y", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
        ("k", "POSITIONAL_OR_KEYWORD", 0.25), ("twice", "KEYWORD_ONLY", False)]
    kinds = [(a.name, a.kind, a.direction) for _, a, _ in params]
    assert kinds == [("x", "tensor", "IN"), ("y", "tensor", "OUT"), ("k", "number", "IN"), ("twice", "number", "IN")]
    assert params[0][2].file == SRC and params[0][2].line == _line_of("def entry_with_default")


def test_string_annotations_are_evaluated_in_the_function_scope():
    from . import binder_strings
    params = function_params(binder_strings.make().fn)
    x, y, k = (a for _, a, _ in params)
    assert x.shape[0].text == "R" and x.shape[1] == 8 and x.dtype is DType.FP16
    assert y.direction == "INOUT" and (k.kind, k.dtype) == ("number", DType.FP32)
    assert params[2][0].default == 1.0


# ---------------------------------------------------------------- the binder: Python's rules

PARAMS = [inspect.Parameter("a", inspect.Parameter.POSITIONAL_ONLY), parameter("b"), parameter("c", 7),
          parameter("d", 1.5, keyword_only=True)]


def _fail(msg, at):
    return ValueError(msg, at)


def test_positional_keyword_and_default():
    out = bind("f", PARAMS, [1, 2], {"d": 4}, _fail)
    assert list(out) == ["a", "b", "c", "d"]
    assert out["a"] == 1 and out["b"] == 2 and isinstance(out["c"], Given) and out["c"].value == 7 and out["d"] == 4
    again = bind("f", PARAMS, [1], {"b": 5, "c": 6}, _fail)
    assert (again["b"], again["c"], again["d"].value) == (5, 6, 1.5)


def test_bind_agrees_with_inspect():
    sig = inspect.Signature(PARAMS)
    for args, kwargs in [((1, 2), {}), ((1,), {"b": 2, "d": 3}), ((1, 2, 3), {"d": 0})]:
        ours = {k: (v.value if isinstance(v, Given) else v) for k, v in bind("f", PARAMS, list(args), kwargs, _fail).items()}
        theirs = sig.bind(*args, **kwargs)
        theirs.apply_defaults()
        assert ours == dict(theirs.arguments)


@pytest.mark.parametrize("args, kwargs, words, at", [
    ([1, 2, 3, 4], {}, "f takes 3 positional arguments, but 4 were given", 3),
    ([1], {"e": 2}, "f has no parameter 'e' (parameters: a, b, c, d)", "e"),
    ([1, 2], {"b": 3}, "f got two values for its 'b' argument", "b"),
    ([], {"a": 1, "b": 2}, "f takes its 'a' argument by position only", "a"),
    ([1], {}, "f is missing its 'b' argument", None),
])
def test_each_binding_mistake(args, kwargs, words, at):
    with pytest.raises(ValueError) as info:
        bind("f", PARAMS, args, kwargs, _fail)
    assert info.value.args == (words, at)
    with pytest.raises(TypeError):             # Python refuses the same call
        inspect.Signature(PARAMS).bind(*args, **kwargs)


def test_an_omittable_parameter_is_left_out():
    out = bind("f", [parameter("x"), parameter("y")], [1], {}, _fail, omittable=["y"])
    assert out == {"x": 1}


def test_the_singular_of_one_positional_argument():
    with pytest.raises(ValueError, match="g takes 1 positional argument, but 2 were given"):
        bind("g", [parameter("x")], [1, 2], {}, _fail)


def _call(text):
    return ast.parse(text).body[0].value


def _err(msg, node):
    return CompileError(msg, SourceLoc("t.py", node.lineno, node.col_offset + 1))


@pytest.mark.parametrize("text, words, col", [
    ("f(1, 2, 3, 4)", "f takes 3 positional arguments, but 4 were given", 12),
    ("f(1, e=2)", "f has no parameter 'e'", 8),
    ("f(1, *xs)", "f does not take *arguments", 6),
    ("f(1, **kw)", "f does not take **kwargs", 8),
    ("f()", "f is missing its 'a' argument", 1),
])
def test_a_dsl_call_site_is_located_at_the_argument(text, words, col):
    with pytest.raises(CompileError) as info:
        bind_call("f", PARAMS, _call(text), _err)
    assert words in str(info.value) and info.value.loc.col == col


def test_arg_problem():
    t = TensorType((16, "M"), DType.FP32)
    assert arg_problem(TensorType((16, 8), DType.FP32), t, "a", "k") is None
    assert arg_problem(TensorType((8, 8), DType.FP32), t, "a", "k") == \
        "argument 'a' of k expects pl.Tensor[[16, M], pl.FP32], but got pl.Tensor[[8, 8], pl.FP32]"
    assert arg_problem(ScalarType(DType.INT32), "tensor", "a", "k") == \
        "argument 'a' of k must be a tensor, but got pl.Scalar[pl.INT32]"
    tile = TileType.of_nd((16, 16), DType.FP32, MemorySpace.Vec)
    assert arg_problem(TileType.of_nd((8, 16), DType.FP32, MemorySpace.Vec), tile, "t", "h").startswith(
        "argument 't' of h expects")
    assert arg_problem(tile, "scalar", "s", "h") == f"argument 's' of h must be a scalar, but got {tile}"
    assert arg_problem(TensorType((4,), DType.FP32), TensorType((4,), DType.FP32, window=True), "w", "k")


# ---------------------------------------------------------------- program functions

def test_program_functions_take_keywords_and_defaults():
    main = P.Keywords.ir.functions["main"]
    call = next(s.expr for s in N.walk_stmts(main.body) if isinstance(getattr(s, "expr", None), N.FuncCall))
    assert [getattr(a, "name", None) for a in call.args[:2]] == ["a", "y"]
    assert isinstance(call.args[2], N.Const) and call.args[2].value == 2.0


@pytest.mark.parametrize("program, words, needle, col_at", [
    (P.TooMany, "k takes 2 positional arguments, but 3 were given", "y = self.k(a, y, a)", "a)"),
    (P.UnknownKeyword, "k has no parameter 'output' (parameters: a, out)", "y = self.k(a, output=y)", "y)"),
    (P.TwoValues, "k got two values for its 'a' argument", "y = self.k(a, y, a=y)", "y)"),
    (P.Missing, "k is missing its 'out' argument", "y = self.k(a)\n", "self.k(a)"),
    (P.Starred, "k does not take *arguments", "y = self.k(*[a, y])", "*[a, y]"),
    (P.WrongType, "argument 'a' of k expects pl.Tensor[[16, 16], pl.FP32], but got pl.Tensor[[16, 32], pl.FP32]",
     "y = self.k(out=y, a=a)", "a)"),
    (P.VarArgs, "k: parameter *rest is not supported", "def k(self, a: T, *rest)", "rest"),
    (P.TensorDefault, "parameter 'a': only a scalar parameter takes a default value", "def k(self, a: T = None)",
     "a: T"),
    (P.OpTooMany, "pl.exp takes 1 positional argument, but 2 were given", "u = pl.exp(t, t)", "t)"),
    (P.OpAliasTwice, "pl.not_ got two values for its 'tile' argument", "s = pl.not_(tile=t, input=t)", "t)"),
])
def test_program_call_mistakes_are_located(program, words, needle, col_at):
    with pytest.raises(CompileError) as info:
        program.ir
    assert words in str(info.value)
    located(info.value, needle.rstrip("\n"), col_at)


# ---------------------------------------------------------------- @pl.jit: helpers and run-time values

def _x():
    return np.arange(256, dtype=np.float32).reshape(16, 16) / 256


def test_jit_helpers_take_keywords_and_defaults():
    prog = P.helper_keywords.parse(_x())
    text = prog.as_python()
    assert "0.5" in text and "3.0" in text


@pytest.mark.parametrize("fn, words, needle, col_at", [
    (P.helper_unknown_keyword, "scaled has no parameter 'scale' (parameters: t, k)", "u = scaled(t, scale=2.0)", "2.0"),
    (P.helper_missing, "scaled is missing its 't' argument", "u = scaled(k=2.0)", "scaled(k"),
    (P.helper_wrong_tile, "argument 't' of sized expects pl.Tile[[16, 16], pl.FP32", "u = sized(t)", "t)"),
])
def test_jit_helper_mistakes_are_located(fn, words, needle, col_at):
    with pytest.raises(CompileError) as info:
        fn.parse(_x())
    assert words in str(info.value)
    located(info.value, needle, col_at)


def test_jit_entry_defaults_and_keyword_only_parameters():
    specs, _, _, _ = P.entry_with_default.specialize(_x())
    assert [(s.name, s.kind, s.value) for s in specs[2:]] == [("k", "const", 0.25), ("twice", "const", False)]
    specs, _, _, _ = P.entry_with_default.specialize(_x(), k=0.5, twice=True)
    assert [s.value for s in specs[2:]] == [0.5, True]
    folded = [P.entry_with_default.parse(_x(), **kw).as_python() for kw in ({}, {"twice": True})]
    assert "pl.muls(t, 0.25)" in folded[0] and "if False:" in folded[0] and "if True:" in folded[1]


def test_an_output_defaulting_to_none_is_allocated_and_returned():
    specs, run_args, outputs, returned = P.out_default_none.specialize(_x())
    assert returned and outputs[0].shape == (16, 16) and run_args[1] is outputs[0] and specs[1].direction == "OUT"


def test_a_keyword_only_tensor_of_a_jit_entry_is_a_parameter():
    prog = P.keyword_only_tensor.parse(_x(), y=np.zeros((16, 16), np.float32))
    entry = prog.functions["keyword_only_tensor"]
    assert [(p.name, p.direction.value) for p in entry.params] == [("x", "IN"), ("y", "OUT")]


HERE = __file__


@pytest.mark.parametrize("call, words", [
    (lambda: P.entry_with_default.specialize(_x(), None, 1.0, 2.0), "entry_with_default takes 3 positional arguments, but 4 were given"),
    (lambda: P.entry_with_default.specialize(_x(), scale=2.0), "entry_with_default has no parameter 'scale'"),
    (lambda: P.entry_with_default.specialize(_x(), x=_x()), "entry_with_default got two values for its 'x' argument"),
    (lambda: P.entry_with_default.specialize(k=1.0), "entry_with_default is missing its 'x' argument"),
])
def test_run_time_binding_mistakes_are_located_at_the_caller(call, words):
    with pytest.raises(ArgumentError) as info:
        call()
    assert words in str(info.value) and isinstance(info.value, TypeError)
    # the caller's line: the lambda in this file that made the call, with a caret under the call
    located(info.value, words, "P.entry_with_default", src=HERE)


def test_the_same_words_at_a_dsl_call_and_a_run_time_call():
    with pytest.raises(CompileError) as dsl:
        P.Missing.ir
    with pytest.raises(ArgumentError) as run:
        P.entry_with_default.specialize(k=1.0)
    shape = "{} is missing its {} argument"
    assert shape.format("k", "'out'") in dsl.value.message
    assert run.value.message.startswith(shape.format("entry_with_default", "'x'"))


def test_a_tile_is_no_jit_entry_parameter():
    with pytest.raises(CompileError, match="a @pl.jit function takes tensors") as info:
        P.entry_with_tile.specialize(_x())
    located(info.value, "def entry_with_tile(x: pl.Tile[[16, 16], pl.FP32])", "pl.Tile")
