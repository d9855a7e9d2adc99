"""Tensor sizes computed at run time in orchestration code (pypto's dynamic shapes): a
``pl.create_tensor`` or ``pl.slice`` / ``x[a:b]`` window whose size is a scalar becomes a dynamic
dimension that the runtime sizes when it allocates the tensor or forms the view; kernels keep
static tiles.  Against numpy under both runtime kinds; the run-time checks are located errors."""
from pathlib import Path

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError, RuntimeFailure
from ptokit.ir import nodes as N
from ptokit.language.parser import parse_program
from ptokit.passes.valid_symbols import materialize_valid_shape_symbols

from .run_time_dim_programs import (BS, HD, QT, AnnotatedLocals, DimOfInput, ReadFromConfig, ValidSymbol,
                                    ValidSymbolInAnExpression)

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_dim_of_input(tmp_path, runtime):
    c = ptokit.compile(DimOfInput, output_dir=tmp_path / "o", runtime=runtime)
    for rows in (32, 48):
        x = np.random.default_rng(rows).standard_normal((rows, HD)).astype(np.float32)
        y = np.zeros_like(x)
        c(x, y)
        np.testing.assert_allclose(y, (x + 1) * 2, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_sizes_read_from_a_config_tensor(tmp_path, runtime):
    c = ptokit.compile(ReadFromConfig, output_dir=tmp_path / "o", runtime=runtime)
    x = np.random.default_rng(1).standard_normal((64, HD)).astype(np.float32)
    y = np.zeros_like(x)
    c(x, np.array([3, HD, QT // 2], np.int64), y)
    expect = np.zeros_like(x)
    expect[:3 * QT] = (x[:3 * QT] + 1) * 2
    np.testing.assert_allclose(y, expect, rtol=1e-6)


def test_the_run_time_sizes_are_dynamic_dimensions():
    main = parse_program(ReadFromConfig).functions["main"]
    created = [op for _, op in N.walk_ops(main.body, "create_tensor")]
    assert [op.type.shape for op in created] == [("__dim1", "hd")]     # half + half is held in a scalar
    views = [a for _, c in N.walk_calls(main.body) for a in c.args if isinstance(a, N.OpCall)]
    assert [v.type.shape for v in views] == [(QT, "hd"), ("__dim2", "hd")]
    assert all(v.attrs.get("check_contiguous") for v in views)


def test_a_window_cut_at_run_time_is_refused_there(tmp_path):
    c = ptokit.compile(ReadFromConfig, output_dir=tmp_path / "o")
    x = np.zeros((64, HD), np.float32)
    with pytest.raises(RuntimeFailure) as info:
        c(x, np.array([1, HD // 2, QT // 2], np.int64), np.zeros_like(x))
    assert info.value.code == 5
    src = (Path(__file__).parent / "run_time_dim_programs.py").read_text().splitlines()
    line = next(i for i, t in enumerate(src, 1) if "self.inc(pl.slice(x, [QT, hd]" in t)
    assert f"the window of x at run_time_dim_programs.py:{line} is not contiguous at run time" in str(info.value)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_valid_shape_symbol_is_passed_by_the_caller(tmp_path, runtime):
    c = ptokit.compile(ValidSymbol, output_dir=tmp_path / "o", runtime=runtime)
    x = np.random.default_rng(4).standard_normal((QT, BS)).astype(np.float32)
    y, z = np.zeros((QT, 1), np.float32), np.zeros((QT, 1), np.float32)
    c(x, 40, y, z)
    np.testing.assert_allclose(y[:, 0], x[:, :40].sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z[:, 0], x.sum(1), rtol=1e-5, atol=1e-5)


def test_the_symbol_becomes_a_scalar_parameter():
    prog = materialize_valid_shape_symbols(parse_program(ValidSymbol), None)
    k = prog.functions["row_sums"]
    assert [(p.name, str(p.type)) for p in k.params] == [
        ("s", "pl.Tensor[[16, BLK], pl.FP32]"), ("y", "pl.Tensor[[16, 1], pl.FP32]"),
        ("VALID", "pl.Scalar[pl.INDEX]")]
    calls = [call for _, call in N.walk_calls(prog.functions["main"].body)]
    assert [type(call.args[-1]).__name__ for call in calls] == ["Var", "Const"]     # n, then x's 64
    assert calls[0].args[-1].name == "n" and calls[1].args[-1].value == BS


def test_a_symbol_only_inside_an_expression_is_refused(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(ValidSymbolInAnExpression, output_dir=tmp_path / "o")
    assert "the valid_shape symbol 'VALID' of parameter 's' appears only inside the expression" in str(info.value)
    assert info.value.loc is not None and info.value.loc.file.endswith("run_time_dim_programs.py")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_annotations_name_run_time_scalars(tmp_path, runtime):
    c = ptokit.compile(AnnotatedLocals, output_dir=tmp_path / "o", runtime=runtime)
    x = np.random.default_rng(5).standard_normal((48, HD)).astype(np.float32)
    y = np.zeros_like(x)
    c(x, y)
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)
