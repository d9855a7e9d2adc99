"""Fuzzing the two files ptokit reads from an artifact tree (issue 18): mutated ``.pto`` and
mutated ``kernel_config.py``, both taken from a real generated tree.

Every mutant must end in a clear ptokit error (a ``UserError`` with a message; for a run, a
``RuntimeFailure`` with its code and message) or in a completed run -- with the reference
result when the mutation did not change the assembled C++ -- and never in an internal
traceback, a hang (every step has a time limit) or a crash.

The examples are derandomized so CI sees the same cases every time; set
``PTOKIT_FUZZ_EXAMPLES=N`` to explore N random examples per test instead.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptokit.artifacts.kernel_config import read_kernel_config
from ptokit.backend.assembler import assemble_text
from ptokit.backend.wrapper import wrap_kernel
from ptokit.codegen.abi import KernelABI, ScalarArg, TensorArg
from ptokit.errors import BuildError, RuntimeFailure, UserError
from ptokit.runtime.build import INCLUDE_DIR, build_tree, compile_shared
from ptokit.runtime.callable import pack_tree
from ptokit.runtime.config import RunConfig
from ptokit.runtime.sim import KernelBinary, run_binaries

from .conftest import rand, scalar_reference

_EXPLORE = os.environ.get("PTOKIT_FUZZ_EXAMPLES")


def fuzz_settings(examples: int):
    return settings(max_examples=int(_EXPLORE) if _EXPLORE else examples, derandomize=not _EXPLORE, database=None,
                    deadline=timedelta(seconds=30), suppress_health_check=[HealthCheck.too_slow])


MAX_BUILDS = 4 if not _EXPLORE else 10 ** 6     # g++ runs per test: keeps the suite fast
STEP_SECONDS = 10                                # time limit of one parse / assemble / read

# the kernel of programs.ScalarOperand: axpb(x: IN, out: OUT, alpha: FP32)
ABI = KernelABI("axpb", "aiv", (TensorArg("x", "FP32", "IN"), TensorArg("out", "FP32", "OUT")),
                (ScalarArg("alpha", "FP32"),))
PTO_TOKEN = re.compile(r"%[\w.#]+|@[\w.]+|#[\w.]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+|\S")
PTO_ODD = ["0", "-1", "1", "65", "2147483648", "99999999999999999999", "1e400", "nan", "?", "%arg9", "index",
           "i64", "f16", "acc", "mat", "[", "]", "(", ")", "{", "}", "<", ">", ",", ":", "=", ""]
CONFIG_TOKEN = re.compile(r'"[^"\n]*"|\w+|\S')
CONFIG_ODD = ['"IN"', '"SIDEWAYS"', "_D.IN", "0", "-1", "1.5", "None", "True", "[]", "{}", '"aic"', '"../x.cpp"',
              '"/etc/passwd"', "str", "Path", "__file__", "__import__", "(", ")", "[", "]", "{", "}", ":", ",",
              "/", "**", '"host_build_graph"', '"a5sim"', '"a2a3"', "1e400", "10**100", "lambda: 0", '"\\x00"', ""]


class _StepTimeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    """Fail (not hang) when a step takes longer than ``seconds``."""
    def on_alarm(signum, frame):
        raise _StepTimeout(f"{what} took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@st.composite
def mutated(draw, text: str, token_re, odd):
    """``text`` after 1-3 byte, token or line mutations (tokens come from the text itself or ``odd``)."""
    vocabulary = sorted({m.group() for m in token_re.finditer(text)})
    s = text
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["byte", "token", "odd", "number", "space", "drop_line", "dup_line",
                                     "swap_lines"]))
        if kind == "number":                          # a nearby value: often still a valid file
            nums = [m for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", s)]
            if nums:
                m = nums[draw(st.integers(0, len(nums) - 1))]
                v = int(m.group())
                s = s[:m.start()] + str(draw(st.sampled_from([0, 1, v - 1, v + 1, 2 * v, v // 2]))) + s[m.end():]
        elif kind == "space":                         # layout only: the same program
            spans = [m.span() for m in token_re.finditer(s)]
            a = spans[draw(st.integers(0, len(spans) - 1))][1]
            s = s[:a] + draw(st.sampled_from([" ", "  ", "\t"])) + s[a:]
        elif kind == "byte":
            i = draw(st.integers(0, len(s) - 1))
            s = s[:i] + chr(draw(st.integers(0, 127))) + s[i + 1:]
        elif kind in ("token", "odd"):
            spans = [m.span() for m in token_re.finditer(s)] or [(0, 0)]
            a, b = spans[draw(st.integers(0, len(spans) - 1))]
            s = s[:a] + draw(st.sampled_from(vocabulary if kind == "token" else odd)) + s[b:]
        else:
            lines = s.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "drop_line":
                del lines[i]
            elif kind == "dup_line":
                lines.insert(i, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            s = "\n".join(lines)
    return s


def _clear(exc: Exception) -> None:
    assert str(exc).strip(), f"{type(exc).__name__} without a message"
    assert "internal error" not in str(exc), str(exc)


@pytest.fixture(scope="module")
def fuzz_tree(scalar_tree):
    tree = scalar_tree.output_dir
    built = build_tree(tree)
    pto = (tree / "ptoas" / "axpb.pto").read_text()
    return tree, built, pto, assemble_text(pto, "axpb.pto")


def _run(built, kernel_so, alpha=2.0):
    x = rand(64, 64, seed=11)
    y = np.zeros_like(x)
    run_binaries(str(built.orchestration_so), [KernelBinary(0, str(kernel_so), "axpb", "aiv")], [x, alpha, y],
                 RunConfig(timeout=2.0), signature=[1, 0, 2], scalar_dtypes=[None, "FP32", None])
    return x, y


def test_mutated_pto_is_an_error_or_runs(fuzz_tree, tmp_path):
    tree, built, pto, original_cpp = fuzz_tree
    builds = []

    @fuzz_settings(100)
    @given(mutated(pto, PTO_TOKEN, PTO_ODD))
    def check(text):
        try:
            with time_limit(STEP_SECONDS, "assembling"):
                cpp = assemble_text(text, "fuzz.pto")
                kernel = wrap_kernel(cpp, ABI)
        except UserError as exc:
            _clear(exc)
            return
        if cpp == original_cpp:                       # same program: the same result
            x, y = _run(built, built.kernel_sos[0])
            np.testing.assert_allclose(y, scalar_reference(x, 2.0), rtol=1e-6)
            return
        if len(builds) >= MAX_BUILDS:
            return
        src = tmp_path / f"mutant{len(builds)}.cpp"
        src.write_text(kernel)
        builds.append(src)
        try:
            so = compile_shared(src, defines=("__CPU_SIM", "__DAV_VEC__"), include_dirs=[INCLUDE_DIR],
                                extra_flags=("-O0", "-Werror"), name_hint="fuzz")
        except BuildError as exc:                     # the assembler accepted it: it must compile
            pytest.fail(f"assembler output does not compile:\n{exc}\n--- .pto:\n{text}")
        try:
            _run(built, so)
        except RuntimeFailure as exc:
            _clear(exc)

    check()


def test_mutated_kernel_config_is_an_error_or_builds(fuzz_tree, tmp_path):
    tree, _, _, _ = fuzz_tree
    work = tmp_path / "tree"
    shutil.copytree(tree, work)
    text = (tree / "kernel_config.py").read_text()
    original = read_kernel_config(tree)
    sources = lambda cfg: [(str(Path(k.source).relative_to(cfg.root)), k.core_type) for k in cfg.kernels]  # noqa: E731
    builds = []

    @fuzz_settings(60)
    @given(mutated(text, CONFIG_TOKEN, CONFIG_ODD))
    def check(mutant):
        (work / "kernel_config.py").write_text(mutant)
        try:
            with time_limit(STEP_SECONDS, "reading kernel_config.py"):
                cfg = read_kernel_config(work)
        except UserError as exc:
            _clear(exc)
            return
        try:
            new_objects = sources(cfg) != sources(original)
        except ValueError:                            # a source outside the tree: always new
            new_objects = True
        if new_objects:
            if len(builds) >= MAX_BUILDS:
                return
            builds.append(mutant)
        try:
            pack_tree(build_tree(work))
        except UserError as exc:
            _clear(exc)
        except BuildError as exc:                     # a named source that is not a kernel: g++ says why
            assert "g++ failed on" in str(exc), str(exc)

    check()
