"""DSL names that are C++ keywords (or names generated C++ declares) are spelled apart in the
generated orchestration and kernel C++ (pto/cxx_names.py), and the program computes what numpy does."""
import numpy as np
import pytest

import ptokit
from ptokit.pto.cxx_names import cxx_ident

from . import keyword_programs as K


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_cxx_keyword_names_run(tmp_path, runtime):
    x = np.random.default_rng(3).standard_normal((48, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(K.CxxKeywordNames, output_dir=tmp_path / "out", runtime=runtime)(x, 2.0, 3, y)
    np.testing.assert_allclose(y, 2 * x + (3 + 1 + 0 + 1), rtol=1e-6)
    orch = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    for line in ("    float new__ = from_u64<float>(orch_args.scalar(0));",
                 "    int32_t this_ = from_u64<int32_t>(orch_args.scalar(1));",
                 "    int64_t auto_ = static_cast<int64_t>(ext_new.shapes[0]);",
                 "        int32_t orch_args_ = (this_ + 1);"):
        assert line in orch.splitlines()
    assert "for (int64_t case_ = 0; case_ < 2; case_ += 1) {" in orch
    kernel = (tmp_path / "out" / "kernels" / "aiv" / "default.cpp").read_text()
    assert "    default_(new_, delete_, new__, this_, auto_);" in kernel.splitlines()


def test_cxx_ident_is_one_to_one():
    names = ["new", "new_", "new__", "renew", "int", "int_", "x", "x_", "orch_args", "params_t0", "a_shapes",
             "args", "std", "_", "delete"]
    spelled = [cxx_ident(n) for n in names]
    assert len(set(spelled)) == len(names)
    assert spelled[:5] == ["new_", "new__", "new___", "renew", "int_"]
    assert cxx_ident("x") == "x" and cxx_ident("x_") == "x_"
