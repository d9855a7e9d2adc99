"""Golden orchestration C++, the tree layout, ptoas dumps, and failure collection."""
import os
import sys
from pathlib import Path

import pytest

import ptokit
from ptokit.backend import generate
from ptokit.backend.generate import TreeError
from ptokit.errors import AssemblerError

import programs

GOLDEN = Path(__file__).parent / "golden"
sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
import add_scale  # noqa: E402


def test_orchestration_golden_two_tasks_with_intermediate(tmp_path):
    c = ptokit.compile(add_scale.AddScale, output_dir=tmp_path)
    text = (c.output_dir / "orchestration" / "main.cpp").read_text()
    path = GOLDEN / "orchestration_add_scale.cpp"
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
    # the rules the golden shows: runtime-created output, tensors before scalars, ids by first use
    assert text.index("add_output(tmp_ci)") < text.index("get_ref(0)")
    assert text.index("params_t1.add_output(ext_y)") < text.index("params_t1.add_scalar")
    assert "rt_submit_aiv_task(0, params_t0)" in text and "rt_submit_aiv_task(1, params_t1)" in text


def test_same_orchestration_for_both_runtime_kinds(tmp_path):
    a = ptokit.compile(programs.Graphs, output_dir=tmp_path / "a", runtime="tensormap_and_ringbuffer")
    b = ptokit.compile(programs.Graphs, output_dir=tmp_path / "b", runtime="host_build_graph")
    assert (a.output_dir / "orchestration" / "main.cpp").read_bytes() == \
        (b.output_dir / "orchestration" / "main.cpp").read_bytes()
    ka, kb = (x.output_dir / "kernel_config.py" for x in (a, b))
    assert ka.read_text().replace("tensormap_and_ringbuffer", "host_build_graph") == kb.read_text()


def test_cube_kernels_are_submitted_as_aic(tmp_path):
    c = ptokit.compile(programs.FusedLinear, output_dir=tmp_path)
    text = (c.output_dir / "orchestration" / "main.cpp").read_text()
    assert "rt_submit_aic_task(0, params_t0)" in text and "rt_submit_aiv_task(1, params_t1)" in text
    assert (c.output_dir / "kernels" / "aic" / "linear.cpp").exists()
    assert 'pto.kernel_kind = #pto.kernel_kind<cube>' in (c.output_dir / "ptoas" / "linear.pto").read_text()


def test_dump_ptoas_passes(tmp_path):
    c = ptokit.compile(programs.Elementwise, output_dir=tmp_path, dump_ptoas_passes=True)
    for unit in ("add", "mul_exp"):
        files = list((c.output_dir / "ptoas_passes" / unit).iterdir())
        assert files, unit


def test_every_failing_unit_is_reported_and_the_rest_written(tmp_path, monkeypatch):
    real = generate.assemble

    def flaky(pto_path, cpp_path, arch, **kw):
        if Path(pto_path).stem in ("twice", "add2"):
            raise AssemblerError(f"simulated failure in {Path(pto_path).name}")
        return real(pto_path, cpp_path, arch, **kw)

    monkeypatch.setattr(generate, "assemble", flaky)
    monkeypatch.setenv("PTOKIT_CACHE", "0")     # the compiler itself must run: no compile cache hit
    with pytest.raises(TreeError) as info:
        ptokit.compile(programs.Graphs, output_dir=tmp_path)
    err = info.value
    assert sorted(f.unit for f in err.failures) == ["add2", "twice"]
    assert all(f.stage == "assemble" for f in err.failures)
    assert "[twice] assemble: simulated failure in twice.pto" in str(err)
    for ok in ("plus1", "expk", "accumulate"):
        assert (tmp_path / "kernels" / "aiv" / f"{ok}.cpp").exists()
