"""``ptoas_compat="0.27"``: trees an installed ptoas 0.27 assembles, and that then run right
(issue: real-tool interop, item 1 and the lane rule of item 2).

0.27 refuses ``slot_num`` on ``*_initialize_pipe`` and picks the slot counts itself (one way 8/8 on
a3, 8/2 on a5; both ways 4/4 and 4/2: ``fixtures/API.md``); on a5 its AIV body runs on subblock 0
only. Under the option ptokit writes the .pto without ``slot_num``, reserves the slots 0.27 uses,
records the option in ``kernel_config.py`` and builds a5 kernels with 0.27's FIFO rule; the
built-in assembler writes what 0.27 writes. The recorded 0.27 output of the mixed probes, compiled
in through the replaying ptoas, must give the same numbers as the built-in tree and as the
default (pypto HEAD) tree.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import ptokit
from ptokit.artifacts.kernel_config import read_kernel_config, write_kernel_config
from ptokit.errors import CompileError, ConfigError
from ptokit.runtime import RunConfig
from ptokit.runtime import build as B
from ptokit.runtime.compilers import fifo_rule_for
from ptokit.runtime.inputs import make_inputs
from ptokit.runtime.launcher import run_tree

from interop_util import (RESERVE_SIZE, SLOT_NUM, as_recorded, assert_same_outputs, cases, compile_case, real_code_in,
                          run_outputs, write_replaying_ptoas)

# C2V, V2C and a one-kernel attention on both platforms; both directions (FusedMlp) on a2a3
COMPAT_CASES = [c + p for c in ("MatmulExp", "ExplicitV2C", "OneKernelAttention") for p in ("", "@a5")] + ["FusedMlp"]
SLOTS = {("a2a3sim", 1): (8, 8), ("a5sim", 1): (8, 2), ("a2a3sim", 2): (8, 8), ("a5sim", 2): (8, 2),
         ("a2a3sim", 3): (4, 4), ("a5sim", 3): (4, 2)}


@pytest.fixture(scope="module")
def replay_root(tmp_path_factory):
    return write_replaying_ptoas(tmp_path_factory.mktemp("replaying_ptoas"))


def _pipe_inits(pto: str):
    return re.findall(r"pto\.a[iv][cv]_initialize_pipe \{dir_mask = (\d), slot_size = (\d+)([^}]*)\}", pto)


@pytest.mark.parametrize("case", COMPAT_CASES)
def test_compat_tree_is_what_ptoas_027_accepts_and_runs(case, tmp_path, replay_root):
    units, recs = cases()[case]
    (rec,) = [r for r in recs if r.probe]
    u = rec.unit
    head = compile_case(units, tmp_path / "head").output_dir
    builtin = compile_case(units, tmp_path / "builtin", ptoas_compat="0.27")
    tree = builtin.output_dir
    pto = (tree / "ptoas" / f"{u.unit}.pto").read_text()

    # the .pto: no slot_num, and otherwise the one 0.27 accepted (the probe), up to the reserved size
    inits = _pipe_inits(pto)
    assert inits and all(rest == "" for _, _, rest in inits), inits
    recorded = rec.pto.read_text()
    assert RESERVE_SIZE.sub(r"\1N", as_recorded(pto, recorded)) == RESERVE_SIZE.sub(r"\1N", recorded)
    assert SLOT_NUM.search((head / "ptoas" / f"{u.unit}.pto").read_text())     # HEAD's form keeps it
    mask, size = int(inits[0][0]), int(inits[0][1])
    num, local = SLOTS[(u.platform, mask)]
    reserved = [int(m) for m in re.findall(r'pto\.reserve_buffer \{name = "[^"]+", size = (\d+)', pto)]
    assert reserved and all(r == local * size for r in reserved), (reserved, local, size)

    # the tree records the option; the built-in C++ has 0.27's template arguments and lane guard
    kc = read_kernel_config(tree)
    assert kc.ptoas_compat == "0.27" and builtin.ptoas_compat == "0.27"
    assert read_kernel_config(head).ptoas_compat is None
    for name, core in u.functions:
        cpp = (tree / "kernels" / core / f"{name}.cpp").read_text()
        assert f", {size}, {num}, {local}, true>" in cpp
        guarded = "if (get_subblockid() == 0) {" in cpp
        assert guarded == (core == "aiv" and u.platform == "a5sim"), (name, guarded)

    # the recorded 0.27 C++ through the product path (PTOAS_ROOT), and the numbers of all three
    real = compile_case(units, tmp_path / "real", ptoas_root=replay_root, ptoas_compat="0.27").output_dir
    assert real_code_in(real, u)
    runtimes = ("tensormap_and_ringbuffer", "host_build_graph") if case == "MatmulExp@a5" else \
        ("tensormap_and_ringbuffer",)
    for rt in runtimes:
        expected = run_outputs(head, rt)
        assert_same_outputs(expected, run_outputs(tree, rt), f"{case} built-in 0.27 tree ({rt})")
        assert_same_outputs(expected, run_outputs(real, rt), f"{case} real 0.27 tree ({rt})")


def test_a5_compat_trees_build_with_the_027_fifo_rule(tmp_path):
    units, _ = cases()["MatmulExp@a5"]
    tree = compile_case(units, tmp_path / "t", ptoas_compat="0.27").output_dir
    kernel_defines = [j.defines for j in B.tree_jobs(read_kernel_config(tree), fifo_rule_for("0.27", "a5sim"))[1:]]
    assert all("PTO_CPU_FIFO_NOSPLIT_LANE0" in d for d in kernel_defines)
    assert fifo_rule_for("0.27", "a2a3sim") == fifo_rule_for(None, "a5sim") == "pypto-head"
    # the rule is really applied: a HEAD tree (both lanes pop) run as a 0.27 tree starves lane 1
    head = compile_case(units, tmp_path / "head").output_dir
    with pytest.raises(Exception, match=r"timed out waiting on pipe 0 \(C2V, lane 1\)"):
        run_outputs_with(head, RunConfig(platform="a5sim", ptoas_compat="0.27", timeout=3.0))


def run_outputs_with(tree, config):
    kc = read_kernel_config(tree)
    args, _ = make_inputs(kc.orchestration.params, seed=1)
    run_tree(tree, args, config, quiet=True)
    return args


def test_compiled_program_recompiles_for_a_runconfig_asking_027(tmp_path):
    units, _ = cases()["MatmulExp"]
    compiled = compile_case(units, tmp_path / "t")
    kc = compiled.config
    args, _ = make_inputs(kc.orchestration.params, seed=3)
    base = [np.array(a) for a in args]
    compiled(*args)
    head_y = np.array(args[-1])
    args2 = [np.array(a) for a in base]
    compiled(*args2, config=RunConfig(platform="a2a3sim", ptoas_compat="0.27"))
    (variant,) = compiled._variants.values()
    assert variant.ptoas_compat == "0.27" and variant.output_dir != compiled.output_dir
    assert not SLOT_NUM.search(next((variant.output_dir / "ptoas").glob("*.pto")).read_text())
    assert np.array_equal(args2[-1], head_y)


def test_ptoas_compat_values_are_checked(tmp_path):
    units, _ = cases()["MatmulExp"]
    with pytest.raises(ValueError, match=r"unknown ptoas_compat '0.26'; valid values are None .* '0.27'"):
        compile_case(units, tmp_path / "a", ptoas_compat="0.26")
    with pytest.raises(ValueError, match="unknown ptoas_compat"):
        RunConfig(ptoas_compat="head")
    with pytest.raises(ValueError, match="unknown ptoas_compat"):
        ptokit.language.jit(lambda x: x, ptoas_compat=27)
    tree = compile_case(units, tmp_path / "b", ptoas_compat="0.27").output_dir
    text = (tree / "kernel_config.py").read_text()
    assert '"ptoas_compat": "0.27"' in text
    (tree / "kernel_config.py").write_text(text.replace('"ptoas_compat": "0.27"', '"ptoas_compat": "9"'))
    with pytest.raises(ConfigError, match=r"RUNTIME_CONFIG\['ptoas_compat'\]: unknown ptoas_compat '9'"):
        read_kernel_config(tree)


def test_the_slots_027_picks_must_fit(tmp_path):
    """a2a3 keeps all 8 slots locally: a 64 KiB Acc tile (128x128 f32) needs 512 KiB of Vec."""
    import ptokit.language as pl

    @pl.program
    class BigPush:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
              y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            ta = pl.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            v = pl.exp(pl.move(acc, target_memory=pl.Mem.Vec))
            y = pl.store(v, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                 y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            y = self.k(a, b, y)
            return y

    ptokit.compile(BigPush, output_dir=tmp_path / "head")          # HEAD's form sizes its ring to fit
    with pytest.raises(CompileError) as info:
        ptokit.compile(BigPush, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    msg = str(info.value)
    assert 'under ptoas_compat="0.27" the assembler picks 8 local slots of 65536 bytes' in msg
    assert "test_ptoas_compat.py" in msg and "def k(" in msg and "^" in msg


def test_kernel_config_round_trips_the_option(tmp_path):
    units, _ = cases()["MatmulExp"]
    kc = compile_case(units, tmp_path / "t", ptoas_compat="0.27").config
    write_kernel_config(tmp_path / "copy.py", kc)
    text = (tmp_path / "copy.py").read_text()
    assert text.count('"ptoas_compat": "0.27"') == 1


def test_split_kernels_are_refused_under_027(tmp_path):
    """0.27 runs the vector body on subblock 0 only; a kernel whose lanes split the work cannot run so."""
    import importlib
    split_programs = importlib.import_module("mixed.split_programs")
    ptokit.compile(split_programs.SplitSoftmax, output_dir=tmp_path / "head")
    with pytest.raises(CompileError) as info:
        ptokit.compile(split_programs.SplitSoftmax, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    assert 'under ptoas_compat="0.27" cross-core transfers are unsplit only' in str(info.value)
    assert info.value.loc is not None and info.value.loc.file.endswith("split_programs.py")
