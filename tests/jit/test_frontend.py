"""@pl.jit front end: specialization, pl.at outlining, helpers, tensor-level ops (compile only)."""
import ml_dtypes
import numpy as np
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError, UserError
from ptokit.ir import nodes as N
from ptokit.ir.printer import print_program
from ptokit.ir.types import DType, ScalarType, TensorType
from ptokit.passes.context import PassContext
from ptokit.passes.outline_scopes import outline_incore_scopes

from . import progs


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))


def arr(shape=(64, 64), dtype=np.float32):
    return np.zeros(shape, dtype=dtype)


def outlined(prog):
    """The program after OutlineIncoreScopes: its pl.at blocks as kernels."""
    return outline_incore_scopes(prog, PassContext(platform="a2a3sim"))


def calls_in(fn):
    return [e for s in N.walk_stmts(fn.body) for x in N.stmt_exprs(s) for e in N.walk_expr(x)
            if isinstance(e, N.FuncCall)]


def ops_in(fn):
    return [e.op for s in N.walk_stmts(fn.body) for x in N.stmt_exprs(s) for e in N.walk_expr(x)
            if isinstance(e, N.OpCall)]


def test_hello_world_specialized_from_arrays():
    prog = outlined(progs.tile_add.parse(arr(), arr(), arr()))
    assert set(prog.functions) == {"tile_add", "tile_add_incore_0"}
    orch, k = prog.functions["tile_add"], prog.functions["tile_add_incore_0"]
    assert orch.kind is N.FunctionType.Orchestration and k.kind is N.FunctionType.InCore
    assert [(p.name, p.type, p.direction) for p in k.params] == [
        ("a", TensorType((64, 64), DType.FP32), N.Direction.IN),
        ("b", TensorType((64, 64), DType.FP32), N.Direction.IN),
        ("c", TensorType((64, 64), DType.FP32), N.Direction.OUT)]
    [call] = calls_in(orch)
    assert call.callee == "tile_add_incore_0" and [a.name for a in call.args] == ["a", "b", "c"]
    assert [p.direction for p in orch.params] == [N.Direction.IN, N.Direction.IN, N.Direction.OUT]


def test_dtype_specialization_fp16_and_bf16():
    p16 = outlined(progs.tile_add.parse(arr(dtype=np.float16), arr(dtype=np.float16), arr(dtype=np.float16)))
    assert p16.functions["tile_add_incore_0"].params[0].type.dtype is DType.FP16
    bf = ml_dtypes.bfloat16
    pbf = progs.tile_add.parse(arr(dtype=bf), arr(dtype=bf), arr(dtype=bf))
    assert pbf.functions["tile_add"].params[2].type == TensorType((64, 64), DType.BF16)


def test_multi_helper_program():
    prog = outlined(progs.multi.parse(arr(), arr(), 0.5, 2, arr()))
    f = prog.functions
    assert set(f) == {"multi", "axpy", "axpy_tile", "scale_rows", "add_one"}
    assert f["axpy_tile"].kind is N.FunctionType.Inline
    assert [p.name for p in f["axpy_tile"].params] == ["x", "y"]          # alpha folded
    muls = [e for s in N.walk_stmts(f["axpy_tile"].body) for x in N.stmt_exprs(s) for e in N.walk_expr(x)
            if isinstance(e, N.OpCall) and e.op == "muls"]
    assert isinstance(muls[0].args[1], N.Const) and muls[0].args[1].value == 2.0
    orch = f["multi"]
    assert [p.name for p in orch.params] == ["a", "b", "s", "y"]         # s runtime, alpha folded
    assert orch.params[2].type == ScalarType(DType.FP32)
    assert [c.callee for c in calls_in(orch)] == ["axpy", "scale_rows", "add_one"]
    assert [p.direction for p in f["add_one"].params] == [N.Direction.IN, N.Direction.OUT]   # inferred
    assert [p.direction for p in f["axpy"].params] == [N.Direction.IN, N.Direction.IN, N.Direction.OUT]
    text = print_program(prog)
    assert "with pl.at() as t0:" in text


def test_scalar_param_folded_changes_program():
    p1 = print_program(progs.multi.parse(arr(), arr(), 0.5, 2, arr()))
    p2 = print_program(progs.multi.parse(arr(), arr(), 0.5, 3, arr()))
    assert "pl.muls(x, 2.0)" in p1 and "pl.muls(x, 3.0)" in p2


def test_loop_variable_becomes_scalar_kernel_param():
    prog = outlined(progs.rowwise.parse(arr(), arr()))
    k = prog.functions["rowwise_incore_0"]
    assert [(p.name, type(p.type).__name__) for p in k.params] == [("x", "TensorType"), ("out", "TensorType"),
                                                                   ("i", "ScalarType")]
    assert k.params[1].direction is N.Direction.OUT


def test_tensor_level_ops_lowered_to_tiles():
    prog = outlined(progs.tensor_ops.parse(arr(), arr(), arr()))
    k = prog.functions["tensor_ops_incore_0"]
    assert ops_in(k) == ["store", "load", "exp", "sub"]      # kept as written: the load reads exp's value
    assert [p.direction for p in k.params] == [N.Direction.IN, N.Direction.IN, N.Direction.OUT]
    from ptokit.passes.context import PassContext
    from ptokit.passes.tensor_to_tile import convert_tensor_to_tile_ops
    k = convert_tensor_to_tile_ops(prog, PassContext(platform="a2a3sim")).functions["tensor_ops_incore_0"]
    assert ops_in(k) == ["load", "load", "store", "exp", "sub"]
    x = outlined(progs.inplace_scale.parse(arr(), 3.0)).functions["scale_inplace"]
    assert x.params[0].direction is N.Direction.INOUT


def test_tensor_level_op_too_large_is_a_clear_error():
    with pytest.raises(CompileError, match="as a 262144-byte tile, more than the 188416-byte Vec buffer on a2a3"):
        progs.tensor_ops.lower(arr((256, 256)), arr((256, 256)), arr((256, 256)))


def test_lower_runs_the_passes():
    prog = progs.multi.lower(arr(), arr(), 0.5, 2, arr())
    kinds = {n: f.kind for n, f in prog.functions.items()}
    assert "axpy_tile" not in kinds                       # inlined
    assert kinds["axpy"] is N.FunctionType.AIV
    assert "kernel_ids" in prog.functions["multi"].attrs
    assert "class multi" in print_program(prog)


def test_return_style_allocates_outputs():
    specs, run_args, outputs, ret = progs.tensor_ops.specialize(arr(), arr())
    assert ret and len(outputs) == 1 and outputs[0].shape == (64, 64) and outputs[0].dtype == np.float32
    assert run_args[2] is outputs[0]
    assert specs[2].direction == "OUT"


def test_wrong_arguments():
    with pytest.raises(UserError, match="tile_add is missing its 'b' argument"):
        progs.tile_add.parse(arr())
    with pytest.raises(UserError, match="numpy array or a torch tensor"):
        progs.tile_add.parse([[1.0]], arr(), arr())
    with pytest.raises(UserError, match="unsupported array dtype"):
        progs.tile_add.parse(arr(dtype=np.complex64), arr(), arr())
    with pytest.raises(UserError, match="contiguous"):
        progs.tile_add.parse(arr(), arr(), arr((64, 128))[:, ::2])


def test_compile_writes_tree(tmp_path):
    c = progs.tile_add.compile(arr(), arr(), arr())
    assert (c.output_dir / "kernels" / "aiv" / "tile_add_incore_0.cpp").is_file()
    assert (c.output_dir / "orchestration" / "tile_add.cpp").is_file()
    assert c.config.kernels[0].name == "tile_add_incore_0"
    assert c.config.orchestration.signature == ["IN", "IN", "OUT"]
    out = progs.tile_add.compile(arr(), arr(), arr(), output_dir=tmp_path / "copy")
    assert (tmp_path / "copy" / "kernel_config.py").is_file() and out.output_dir == (tmp_path / "copy").resolve()


def test_errors_located_in_user_source(tmp_path):
    import importlib.util
    src = tmp_path / "bad_jit_mod.py"
    src.write_text(
        "import ptokit.language as pl\n\n"
        "@pl.jit\n"
        "def outside(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    t = pl.load(a, [0, 0], [64, 64])\n"
        "    pl.store(t, [0, 0], c)\n\n"
        "@pl.jit.incore\n"
        "def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    c[:] = pl.exp(a)\n\n"
        "@pl.jit\n"
        "def nested(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        k(a, c)\n\n"
        "@pl.jit\n"
        "def no_kernel(a: pl.Tensor):\n"
        "    return a\n\n"
        "@pl.jit\n"
        "def tile_outside(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        t = pl.load(a, [0, 0], [64, 64])\n"
        "        n = pl.tensor.dim(a, 0)\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        pl.store(t, [n - 64, 0], c)\n")
    spec = importlib.util.spec_from_file_location("bad_jit_mod", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(CompileError, match=r"bad_jit_mod.py:5:.*inside a `with pl.at"):
        mod.outside.parse(arr(), arr())
    # a pl.at block that only calls a @pl.jit.incore helper is a scope around that task (as in programs)
    nested = mod.nested.parse(arr(), arr())
    assert nested.functions["k"].kind is N.FunctionType.InCore
    scope = nested.functions["nested"].body[0]
    assert isinstance(scope, N.Scope) and scope.kind == "at" and scope.body[0].expr.callee == "k"
    with pytest.raises(CompileError, match="submits no kernel"):
        mod.no_kernel.parse(arr())
    # a tile crosses to the next block as an intermediate tensor (OutlineIncoreScopes); a scalar cannot
    with pytest.raises(CompileError, match=r"'n' is a scalar computed inside the pl.at block of kernel "
                                           r"'tile_outside_incore_0' \(line 25\)"):
        mod.tile_outside.parse(arr(), arr())


def test_helpers_are_not_callable_as_python():
    with pytest.raises(RuntimeError, match="@pl.jit"):
        progs.add_one(arr(), arr())
    with pytest.raises(TypeError, match="decorates a function"):
        pl.jit(42)


def test_dynamic_dims_stay_symbolic():
    prog = outlined(progs.dyn_relu.parse(arr((32, 64)), arr((32, 64))))
    assert prog.functions["dyn_relu"].params[0].type == TensorType(("M", 64), DType.FP32)
    k = prog.functions["dyn_relu_incore_0"]
    assert [p.name for p in k.params] == ["x", "out", "i"]
    with pytest.raises(UserError, match="dynamic dimension M is 32"):
        progs.dyn_relu.parse(arr((32, 64)), arr((64, 64)))
    with pytest.raises(UserError, match="dimension 1 must be 64"):
        progs.dyn_relu.parse(arr((32, 32)), arr((32, 32)))


def test_as_name_and_deps_reach_the_scope():
    orch = progs.chain.parse(arr(), arr()).functions["chain"]
    scopes = [s for s in orch.body if isinstance(s, N.Scope)]
    bound = scopes[0].body[-1]          # the `as` name: the block's task id, a value of the orchestration
    assert isinstance(bound, N.Assign) and bound.targets[0].name == "t0" and bound.value.op == "system.task_id"
    assert [d.name for d in scopes[1].attrs["deps"].items] == ["t0"]
    assert outlined(progs.chain.parse(arr(), arr())).functions["chain_incore_1"].params[0].direction is N.Direction.INOUT


class _FakeDevice:
    def __init__(self, kind):
        self.type = kind


class _FakeTorchTensor:
    """Duck-types a torch CPU tensor (torch is not a dependency): recognised by its module name."""
    __module__ = "torch"

    def __init__(self, shape, dtype, device="cpu"):
        self.shape, self.dtype, self.device = shape, dtype, _FakeDevice(device)

    def is_contiguous(self):
        return True


def test_torch_tensors_recognised_without_importing_torch():
    class DT:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return self.name

    t = _FakeTorchTensor((64, 64), DT("torch.bfloat16"))
    specs, run_args, _, _ = progs.tile_add.specialize(t, t, t)
    assert specs[0].dtype is DType.BF16 and specs[0].shape == (64, 64) and run_args[0] is t
    with pytest.raises(UserError, match="CPU tensors"):
        progs.tile_add.specialize(_FakeTorchTensor((64, 64), DT("torch.float32"), "cuda"), t, t)
    with pytest.raises(UserError, match="unsupported torch dtype"):
        progs.tile_add.specialize(_FakeTorchTensor((64, 64), DT("torch.complex64")), t, t)
