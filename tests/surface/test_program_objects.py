"""What pypto users read off a program: ``@pl.program`` objects, their functions, ``as_python()``
(valid DSL that parses back to the same program), and ``@pl.function`` text."""
import importlib.util
import sys

import numpy as np
import pytest

import programs as P
import ptokit
import ptokit.language as pl
from ptokit.ir import nodes as N
from ptokit.language.decorators import ProgramSpec

from . import fns as F

ROUND_TRIP = ["Elementwise", "ScalarOperand", "DynamicRows", "LoopSum", "SoftmaxRows", "LayerNormish",
              "MatmulKLoop", "FFN", "ControlFlow", "Graphs", "WindowRowBlocks"]
# while loops, break/continue, scalar forms, unrolled and pipelined loops
MORE_ROUND_TRIP = [("parity.loop_programs", "KernelLoops"), ("parity.loop_programs", "OrchestrationLoops"),
                   ("parity.scalar_programs", "Scalars"), ("parity.scalar_programs", "UnrollPipeline"),
                   ("parity.scalar_programs", "YieldLoops")]


def reparse(text: str, name: str, tmp_path) -> ProgramSpec:
    """Import ``text`` as a module of its own and return its program ``name``."""
    path = tmp_path / f"rt_{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"rt_{name}_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_program_attributes():
    prog = P.Elementwise
    assert prog.name == "Elementwise"
    fns = prog.functions
    assert [gv.name for gv in fns] == ["add", "mul_exp", "main"]
    gv = next(iter(fns))
    assert isinstance(gv, N.GlobalVar) and gv == "add" and hash(gv) == hash("add")
    assert fns[N.GlobalVar("main")] is fns["main"] is prog.get_function("main") is prog["main"]
    assert prog.get_function("nope") is None
    main = prog["main"]
    assert main.name == "main"
    assert main.func_type is pl.FunctionType.Orchestration
    assert prog["add"].func_type is pl.FunctionType.InCore
    assert [(p.name, p.direction) for p in main.params] == [("a", N.Direction.IN), ("b", N.Direction.IN),
                                                           ("y", N.Direction.OUT), ("z", N.Direction.OUT)]
    assert main.params[0].name_hint == "a"
    assert str(main.params[0].type) == "pl.Tensor[[64, 64], pl.FP32]"
    assert main.param_directions == [p.direction for p in main.params]
    assert isinstance(main.attrs, dict)


def test_missing_function_is_a_key_error_listing_the_names():
    with pytest.raises(KeyError, match="has no function 'nope'; its functions are add, mul_exp, main"):
        P.Elementwise["nope"]


def test_parsing_is_lazy_and_cached():
    @pl.program
    class Lazy:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
            out = pl.store(pl.exp(pl.load(a, [0, 0], [16, 16])), [0, 0], out)
            return out

    assert Lazy._ir is None                  # decorating parses nothing
    first = Lazy.functions
    assert Lazy._ir is not None and Lazy.functions is first and Lazy.ir is Lazy.ir


def test_a_program_with_an_error_reports_it_on_first_use():
    @pl.program
    class Broken:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 16], pl.FP32]):
            t = pl.no_such_op(a)
            return t

    with pytest.raises(ptokit.errors.CompileError, match="no_such_op"):
        Broken.functions


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_as_python_parses_back_to_the_same_program(name, tmp_path):
    prog = getattr(P, name)
    text = prog.as_python()
    again = reparse(text, prog.name, tmp_path)
    assert again.as_python() == text
    assert [f.name for f in again.functions.values()] == [f.name for f in prog.functions.values()]
    assert [f.func_type for f in again.functions.values()] == [f.func_type for f in prog.functions.values()]


@pytest.mark.parametrize("module, name", MORE_ROUND_TRIP)
def test_as_python_round_trips_loops_and_scalars(module, name, tmp_path):
    prog = getattr(importlib.import_module(module), name)
    text = prog.as_python()
    assert reparse(text, prog.name, tmp_path).as_python() == text


def test_the_reparsed_program_computes_the_same_numbers(tmp_path):
    again = reparse(P.DynamicRows.as_python(), "DynamicRows", tmp_path)
    x = np.random.default_rng(0).standard_normal((96, 64)).astype(np.float32)
    y1, y2 = np.zeros_like(x), np.zeros_like(x)
    ptokit.compile(P.DynamicRows, output_dir=tmp_path / "a")(x, 1.5, y1)
    ptokit.compile(again, output_dir=tmp_path / "b")(x, 1.5, y2)
    np.testing.assert_allclose(y1, x * 1.5, rtol=1e-6)
    np.testing.assert_array_equal(y1, y2)


def test_function_as_python():
    text = P.Elementwise["add"].as_python()
    assert text.lstrip().startswith("@pl.function(type=pl.FunctionType.InCore)")
    assert "def add(self, a: pl.Tensor[[64, 64], pl.FP32]" in text
    # the decorated method itself prints the same text, from its program
    assert P.Elementwise.cls.__dict__["add"].as_python() == text


def test_module_level_function_as_python_parses_alone(tmp_path):
    text = F.scale.as_python()
    assert text.startswith("@pl.function(type=pl.FunctionType.InCore)\ndef scale(x: pl.Tensor[[32, 32], pl.FP32]")
    module = tmp_path / "fn_alone.py"
    module.write_text("import ptokit.language as pl\n\n\n" + text + "\n")
    spec = importlib.util.spec_from_file_location("fn_alone", module)
    m = importlib.util.module_from_spec(spec)
    sys.modules["fn_alone"] = m
    spec.loader.exec_module(m)
    assert m.scale.as_python() == text


def test_module_level_function_error_is_located():
    with pytest.raises(ptokit.errors.CompileError, match=r"fns\.py:\d+:\d+: .*no_such_op"):
        F.broken.as_python()


def test_lowered_and_compiled_programs_have_the_surface_too(tmp_path):
    c = ptokit.compile(P.Elementwise, output_dir=tmp_path / "t")
    assert c.program.name == "Elementwise" and c.program.get_function("add") is not None
    assert all(isinstance(k, N.GlobalVar) for k in c.program.functions)
