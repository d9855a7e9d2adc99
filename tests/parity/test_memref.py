"""pl.MemRef: declared allocations in tile annotations (issue 13; pypto-parity.md B)."""
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

from mixed.golden_util import check_tree_golden
from . import memref_programs as F

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
GOLDEN = Path(__file__).parent / "golden" / "memref_double_buffer"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_double_buffer_runtime_slot(tmp_path, runtime):
    x = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32)
    out = np.zeros((16, 64), np.float32)
    compiled = ptokit.compile(F.DoubleBuffer, output_dir=tmp_path / "out", runtime=runtime)
    compiled(x, out)
    np.testing.assert_allclose(out, np.exp(0.1 * 2 * x.reshape(4, 16, 64).sum(0)) + 1, rtol=1e-5)


def test_double_buffer_golden(tmp_path):
    """The .pto, kernel and orchestration files of DoubleBuffer (PTOKIT_UPDATE_GOLDEN=1 rewrites them),
    the C++ compiled with -Wall -Werror."""
    ptokit.compile(F.DoubleBuffer, output_dir=tmp_path / "out")
    check_tree_golden(tmp_path / "out", GOLDEN)


def test_double_buffer_placement(tmp_path):
    """The slot address is computed in the loop (base + (i % 2) * 4096); the two scratch tiles have one
    address, and no other tile is packed into either region."""
    ptokit.compile(F.DoubleBuffer, output_dir=tmp_path / "out")
    (pto,) = (tmp_path / "out" / "ptoas").glob("*.pto")
    lines = pto.read_text().splitlines()
    allocs = {ln.split("=")[0].strip(): ln.split("addr = ")[1].split()[0] for ln in lines if "pto.alloc_tile" in ln}
    assert allocs["%e"] == allocs["%f"] == "%c8192_i64"      # scratch: after ring's 2 x 4096 B
    slot = next(ln for ln in lines if "%t = pto.alloc_tile" in ln).split("addr = ")[1].split()[0]
    assert any(ln.strip().startswith(f"{slot} = arith.addi") for ln in lines)
    others = [a for n, a in allocs.items() if n not in ("%e", "%f", "%t")]
    assert others and all(int(a[2:-4]) >= 12288 for a in others), allocs


def _fp16_operands(seed: int, m: int):
    """An [m, 32] and a [32, 64] FP16 matmul operand."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * 0.3).astype(np.float16) for shape in ((m, 32), (32, 64))]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_cube_slots(tmp_path, runtime):
    a, b = _fp16_operands(5, 64)
    y = np.zeros((64, 64), np.float32)
    compiled = ptokit.compile(F.CubeSlots, output_dir=tmp_path / "out", runtime=runtime)
    compiled(a, b, y)
    np.testing.assert_allclose(y, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)
    pto = next((tmp_path / "out" / "ptoas").glob("*.pto")).read_text()
    assert "%acc = pto.alloc_tile addr = %s" in pto and "%ta = pto.alloc_tile addr = %s" in pto


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_tiles_of_one_memref_share_storage(tmp_path, runtime):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((16, 64)).astype(np.float32), rng.standard_normal((16, 64)).astype(np.float32)
    out = np.zeros((32, 64), np.float32)
    ptokit.compile(F.SharedSlot, output_dir=tmp_path / "out", runtime=runtime)(x, y, out)
    np.testing.assert_allclose(out[:16], 2 * y, rtol=1e-6)      # slot 0 twice: b overwrote a
    np.testing.assert_allclose(out[16:], x + y, rtol=1e-6)      # slots 1 and 0: apart


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_slot_from_a_scalar_parameter(tmp_path, runtime):
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((16, 64)).astype(np.float32), rng.standard_normal((16, 64)).astype(np.float32)
    compiled = ptokit.compile(F.ScalarSlot, output_dir=tmp_path / "out", runtime=runtime)
    for slot, want in ((0, x + y), (1, 2 * y)):
        out = np.zeros_like(x)
        compiled(x, y, slot, out)
        np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_memref_under_jit(runtime):
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    F.make_jit(runtime)(x, y)
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)


PRELUDE = '''
import ptokit.language as pl
buf = pl.MemRef(slots=2)
one = pl.MemRef()
alias = one
big = pl.MemRef(slots=64)
d1 = pl.MemRef("dup")
d2 = pl.MemRef("dup")
s0 = buf[0]
'''


def _program(body: str, params: str = "x: pl.Tensor[[16, 64], pl.FP32]", extra: str = ""):
    return pl.parse(PRELUDE + f'''
@pl.program
class M:
{extra}
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {params}, y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
{body}
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
''', filename="memref_case.py")


LOAD = "pl.load(x, [0, 0], [16, 64])"


@pytest.mark.parametrize("body,message,where", [
    (f"        t: pl.Tensor[[16, 64], pl.FP32, one] = x\n        y = pl.store({LOAD}, [0, 0], y)",
     "pl.MemRef places a tile in on-chip memory; a tensor lives in global memory and takes no pl.MemRef", "one"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef('z', slots=0)[0], pl.Mem.Vec] = {LOAD}\n"
     f"        y = pl.store(t, [0, 0], y)",
     "pl.MemRef slots= is a positive int (the number of equal slots), not 0", "slots=0"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, buf[2], pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "slot 2 of pl.MemRef 'buf' is out of range: it has 2 slots (0..1)", "buf[2]"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, buf, pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "pl.MemRef 'buf' has 2 slots: pick one, buf[i]", "buf"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, one] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "a tile placed in a pl.MemRef names its memory space: pl.Tile[shape, dtype, ref, pl.Mem.Vec]", "one"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, one, pl.Mem.Vec] = {LOAD}\n"
     f"        m: pl.Tile[[16, 64], pl.FP32, one, pl.Mem.Mat] = pl.load(x, [0, 0], [16, 64], "
     f"target_memory=pl.Mem.Mat)\n        y = pl.store(t, [0, 0], y)",
     "pl.MemRef 'one' holds tiles of two memory spaces: 't' is in Vec (UB) and 'm' in Mat (L1); one allocation "
     "lives in one space", "m: pl.Tile"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, big[0], pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "pl.MemRef 'big' does not fit in Vec (UB): 64 slots of 4096 B (its largest tile 't' [16, 64] FP32 is "
     "4096 B) = 262144 B, capacity on a2a3 is 188416 B", "big[0]"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, d1, pl.Mem.Vec] = {LOAD}\n"
     f"        u: pl.Tile[[16, 64], pl.FP32, d2, pl.Mem.Vec] = pl.exp(t)\n        y = pl.store(u, [0, 0], y)",
     "two distinct pl.MemRef declarations claim the name 'dup'", "d2"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, one, pl.Mem.Vec] = {LOAD}\n"
     f"        u: pl.Tile[[16, 64], pl.FP32, alias, pl.Mem.Vec] = pl.exp(t)\n        y = pl.store(u, [0, 0], y)",
     "one pl.MemRef is reached through two names, 'one'", "alias"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef('dup'), pl.Mem.Vec] = {LOAD}\n"
     f"        u: pl.Tile[[16, 64], pl.FP32, d1, pl.Mem.Vec] = pl.exp(t)\n        y = pl.store(u, [0, 0], y)",
     "two distinct pl.MemRef declarations claim the name 'dup'", "d1"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, buf[1], pl.Mem.Vec] = {LOAD}\n"
     f"        u: pl.Tile[[16, 64], pl.FP32, buf[1], pl.Mem.Vec] = pl.exp(t)\n"
     f"        y = pl.store(pl.add(t, u), [0, 0], y)",
     "tiles 't' and 'u' are both in slot 1 of pl.MemRef 'buf' and live at the same time: 'u' is written while "
     "'t' is still read later, so it would overwrite it", "u: pl.Tile"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(), pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     'an inline pl.MemRef names its allocation: pl.MemRef("name")', "pl.MemRef()"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, one, buf[0], pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "a tile annotation takes one pl.MemRef", "buf[0]"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, buf[1.5], pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "the slot of pl.MemRef 'buf' is an integer, not 1.5", "1.5"),
    (f"        t: pl.Tile[[16, 64], pl.FP32, s0[1], pl.Mem.Vec] = {LOAD}\n        y = pl.store(t, [0, 0], y)",
     "this names one slot of a pl.MemRef already; it takes no subscript", "s0[1]"),
    (f"        for i in pl.unroll(3):\n"
     f"            t: pl.Tile[[16, 64], pl.FP32, buf[i], pl.Mem.Vec] = {LOAD}\n"
     f"            y = pl.store(t, [0, 0], y)",
     "slot 2 of pl.MemRef 'buf' is out of range: it has 2 slots (0..1)", "buf[i]"),
    (f"        for i in pl.pipeline(0, 4, 1, stage=2):\n"
     f"            t: pl.Tile[[16, 64], pl.FP32, buf[i % 2], pl.Mem.Vec] = {LOAD}\n"
     f"            y = pl.store(t, [0, 0], y)",
     "pl.MemRef 'buf' in a pl.pipeline(stage=2) body: the 2 copies of the body would share its storage and "
     "serialize on it", "buf[i % 2]"),
    (f"        t = {LOAD}\n        acc = pl.full([16, 64], pl.FP32, 0.0)\n        for i in pl.range(2):\n"
     f"            acc: pl.Tile[[16, 64], pl.FP32, buf[i], pl.Mem.Vec] = pl.add(acc, t)\n"
     f"        y = pl.store(acc, [0, 0], y)",
     "is in a run-time slot of pl.MemRef 'buf' but must share one buffer with 'acc' (a carried value, the arms "
     "of an if, an in-place op or a reshape), whose storage does not move from slot to slot", "buf[i]"),
    (f"        t = {LOAD}\n        acc: pl.Tile[[16, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.full([16, 64], pl.FP32, 0.0)\n"
     f"        for i in pl.range(2):\n"
     f"            acc: pl.Tile[[16, 64], pl.FP32, buf[1], pl.Mem.Vec] = pl.add(acc, t)\n"
     f"        y = pl.store(acc, [0, 0], y)",
     "must share one buffer (a carried value, the arms of an if, an in-place op or a reshape) but are placed in "
     "pl.MemRef buf[0] and buf[1]", "buf[1]"),
])
def test_memref_errors(tmp_path, body, message, where):
    with pytest.raises(CompileError) as info:
        ptokit.compile(_program(body), output_dir=tmp_path / "out")
    assert message in str(info.value), str(info.value)
    assert info.value.loc.file == "memref_case.py" and where in str(info.value).splitlines()[1], str(info.value)


@pytest.mark.parametrize("params", ["x: pl.Tensor[[16, 64], pl.FP32, one]"])
def test_memref_in_a_tensor_parameter(tmp_path, params):
    with pytest.raises(CompileError) as info:
        ptokit.compile(_program(f"        y = pl.store({LOAD}, [0, 0], y)", params), output_dir=tmp_path / "out")
    assert "pl.MemRef places a tile in on-chip memory; a tensor lives in global memory and takes no pl.MemRef" \
        in str(info.value), str(info.value)
    assert info.value.loc.file == "memref_case.py" and "one]" in str(info.value).splitlines()[1]


INLINE = '''
    @pl.function(type=pl.FunctionType.Inline)
    def scaled(self, t: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
        u = pl.muls(t, 2.0)
        return u
'''


def test_memref_in_a_tile_parameter(tmp_path):
    extra = INLINE.replace("t: pl.Tile[[16, 64], pl.FP32]", "t: pl.Tile[[16, 64], pl.FP32, one, pl.Mem.Vec]")
    body = f"        t = self.scaled({LOAD})\n        y = pl.store(t, [0, 0], y)"
    with pytest.raises(CompileError) as info:
        ptokit.compile(_program(body, extra=extra), output_dir=tmp_path / "out")
    assert "pl.MemRef places a tile the kernel assigns (t: pl.Tile[shape, dtype, ref, pl.Mem.X] = ...); it cannot " \
           "be given in this annotation" in str(info.value), str(info.value)
    assert info.value.loc.file == "memref_case.py" and "one" in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_copy_into_a_memref_and_inline_function(tmp_path, runtime):
    """`c: pl.Tile[..., ref, mem] = t` copies t into the MemRef, and so does a function call's result; a
    MemRef'd tile in an inlined function (slot 1 of buf, while the caller's result takes slot 0)."""
    extra = INLINE.replace("u = pl.muls(t, 2.0)", "u: pl.Tile[[16, 64], pl.FP32, buf[1], pl.Mem.Vec] = pl.muls(t, 2.0)")
    body = (f"        t = {LOAD}\n        c: pl.Tile[[16, 64], pl.FP32, one, pl.Mem.Vec] = t\n"
            f"        d: pl.Tile[[16, 64], pl.FP32, buf[0], pl.Mem.Vec] = self.scaled(c)\n"
            f"        y = pl.store(pl.add(d, t), [0, 0], y)")
    x = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(_program(body, extra=extra), output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)


def test_memref_on_a_popped_tile(tmp_path):
    prog = pl.parse(PRELUDE + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t: pl.Tile[[64, 64], pl.FP32, one, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
        pl.store(t, [0, 0], y)
''', filename="memref_case.py")
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "out")
    assert "a tile popped from a pipe (pl.tpop_from_aic) lives in the pipe's slot buffer; it cannot be placed in " \
           "pl.MemRef 'one'" in str(info.value), str(info.value)
    assert info.value.loc.file == "memref_case.py" and "one" in str(info.value).splitlines()[1]


def _mixed_program(slot: str):
    """A mixed kernel (matmul, then exp on the vector side) whose vector tile is in slot ``slot`` of buf."""
    return pl.parse(PRELUDE + f'''
@pl.program
class Mixed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
          y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        for i in pl.range(2):
            ta = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            v = pl.move(acc, target_memory=pl.Mem.Vec)
            e: pl.Tile[[16, 64], pl.FP32, buf[{slot}], pl.Mem.Vec] = pl.exp(pl.muls(v, 0.5))
            y = pl.store(e, [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        y = self.k(a, b, y)
        return y
''', filename="memref_case.py")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_memref_in_a_mixed_kernel(tmp_path, runtime):
    a, b = _fp16_operands(6, 16)
    y = np.zeros((32, 64), np.float32)
    ptokit.compile(_mixed_program("1"), output_dir=tmp_path / "out", runtime=runtime)(a, b, y)
    e = np.exp(0.5 * (a.astype(np.float32) @ b.astype(np.float32)))
    np.testing.assert_allclose(y, np.vstack([e, e]), rtol=1e-3, atol=1e-3)


def test_run_time_slot_in_a_lane_guarded_kernel(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(_mixed_program("i % 2"), output_dir=tmp_path / "out")
    assert "tile 'e' is in a run-time slot of a pl.MemRef, but this kernel's vector side allocates its tiles before " \
           "the lane guards, where the slot index is not known; give it a constant slot" in str(info.value)
    assert info.value.loc.file == "memref_case.py" and "e: pl.Tile" in str(info.value).splitlines()[1]


def test_planned_ir_shows_the_binding_and_slot_address():
    from ptokit.ir.printer import print_program
    from ptokit.language.parser import parse_program
    from ptokit.passes.context import PassContext
    from ptokit.passes.manager import run_passes
    text = print_program(run_passes(parse_program(F.SharedSlot), PassContext(platform="a2a3sim")))
    assert "memref='pair[i] of 2')  # Vec@0+(i)*4096" in text, text
    assert "memref='pair[0] of 2')  # Vec@0" in text, text


def test_one_name_for_two_declarations_across_an_inlined_function(tmp_path):
    extra = INLINE.replace("u = pl.muls(t, 2.0)", "u: pl.Tile[[16, 64], pl.FP32, d2, pl.Mem.Vec] = pl.muls(t, 2.0)")
    body = (f"        t: pl.Tile[[16, 64], pl.FP32, d1, pl.Mem.Vec] = {LOAD}\n"
            f"        y = pl.store(self.scaled(t), [0, 0], y)")
    with pytest.raises(CompileError) as info:
        ptokit.compile(_program(body, extra=extra), output_dir=tmp_path / "out")
    assert "two distinct pl.MemRef declarations claim the name 'dup' in kernel k" in str(info.value), str(info.value)
    assert info.value.loc.file == "memref_case.py" and "d2" in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_unrolled_slots_are_constant(tmp_path, runtime):
    """pl.unroll makes each copy's slot a constant: fixed addresses, and the per-slot liveness check applies."""
    body = (f"        acc = pl.full([16, 64], pl.FP32, 0.0)\n        for i in pl.unroll(2):\n"
            f"            t: pl.Tile[[16, 64], pl.FP32, buf[i], pl.Mem.Vec] = {LOAD}\n"
            f"            acc = pl.add(acc, t)\n        y = pl.store(acc, [0, 0], y)")
    x = np.random.default_rng(7).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(_program(body), output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)
    pto = next((tmp_path / "out" / "ptoas").glob("*.pto")).read_text()
    addrs = [ln.split("addr = ")[1].split()[0] for ln in pto.splitlines() if "%t" in ln and "pto.alloc_tile" in ln]
    assert addrs == ["%c0_i64", "%c4096_i64"], addrs
