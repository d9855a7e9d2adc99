"""A user error raised through the Python API prints the user's frames and the located message,
without ptokit's own frames (PTOKIT_TRACEBACK=full keeps them); argument errors are one family,
``ArgumentError``: a ``UserError`` and a ``TypeError`` at once."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import programs as P
import ptokit
import ptokit.language as pl
from ptokit.errors import ArgumentError, UserError

REPO = Path(__file__).resolve().parents[2]
PTOKIT_FRAME = re.compile(r'File "[^"]*[/\\]ptokit[/\\][^"]*"')

SHAPE_ERROR = """
    import ptokit
    import ptokit.language as pl


    @pl.program
    class Bad:
        @pl.function(type=pl.FunctionType.InCore)
        def add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            t = pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [32, 32]))
            out = pl.store(t, [0, 0], out)
            return out


    def build():
        return ptokit.compile(Bad, output_dir="tree")   # the user's line


    build()
"""

JIT_DTYPE_ERROR = """
    import numpy as np
    import ptokit.language as pl


    @pl.jit
    def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64])), [0, 0], c)
        return c


    a = np.ones((64, 64), np.float32)
    tile_add(a, a.astype(np.complex64), np.empty_like(a))   # the user's line
"""


def _run_script(tmp_path, body, **env):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(body))
    e = {k: v for k, v in os.environ.items() if k != "PTOKIT_TRACEBACK"}
    e.update(PYTHONPATH=str(REPO), **env)
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=e, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stderr
    return script, proc.stderr


def test_a_shape_error_prints_the_users_frames_only(tmp_path):
    script, err = _run_script(tmp_path, SHAPE_ERROR)
    assert not PTOKIT_FRAME.search(err), err
    assert f'File "{script}", line 17, in build' in err and "# the user's line" in err
    # the located message: the user's pl.add with a caret under it
    assert f"{script}:11:" in err and "tile.add requires compatible shapes" in err
    assert "PTOKIT_TRACEBACK=full" in err
    assert len(err.splitlines()) < 15, err


def test_ptokit_traceback_full_keeps_ptokit_frames(tmp_path):
    _, err = _run_script(tmp_path, SHAPE_ERROR, PTOKIT_TRACEBACK="full")
    assert PTOKIT_FRAME.search(err), err
    assert "tile.add requires compatible shapes" in err


def test_a_jit_call_with_a_wrong_dtype_prints_the_users_frames_only(tmp_path):
    script, err = _run_script(tmp_path, JIT_DTYPE_ERROR)
    assert not PTOKIT_FRAME.search(err), err
    assert f'File "{script}", line 14, in <module>' in err
    assert "ArgumentError" in err and "complex64" in err


@pytest.fixture(scope="module")
def ew(tmp_path_factory):
    return ptokit.compile(P.Elementwise, output_dir=tmp_path_factory.mktemp("tb") / "Elementwise")


def test_argument_errors_are_one_family(ew):
    """A wrong dtype is the same kind of error from a compiled program and from a @pl.jit call."""
    a = np.ones((64, 64), np.float32)
    with pytest.raises(ArgumentError, match="must have dtype FP32") as ei:
        ew(a, a.astype(np.int32))
    assert isinstance(ei.value, UserError) and isinstance(ei.value, TypeError)

    @pl.jit
    def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64])), [0, 0], c)
        return c

    with pytest.raises(ArgumentError, match="unsupported") as ei:
        tile_add(a, a.astype(np.complex64), np.empty_like(a))
    assert isinstance(ei.value, UserError) and isinstance(ei.value, TypeError)
    with pytest.raises(ArgumentError, match="expected a number"):
        ptokit.runtime.abi.scalar_value("x", "FP32", "s")


def test_the_traceback_of_a_caught_error_has_no_ptokit_frame(ew):
    a = np.ones((64, 64), np.float32)
    with pytest.raises(ArgumentError) as ei:
        ew(a)
    files = [str(e.path) for e in ei.traceback]
    assert not [f for f in files if f.startswith(str(REPO / "ptokit"))], files
