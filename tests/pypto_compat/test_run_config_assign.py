"""RunConfig fields assigned after construction (pypto code does ``config.rtol = 2e-2``): the value
is kept, validated when the config is used, and the fields derived from it follow."""
import numpy as np
import pytest

import programs as P
import ptokit
from ptokit.backend import BackendType
from ptokit.runtime import RunConfig


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_assignment_is_kept_and_checked():
    c = RunConfig()
    c.rtol = 2e-2
    c.atol = 1e-3
    assert (c.rtol, c.atol) == (2e-2, 1e-3)
    assert c.checked() is c and c.rtol == 2e-2


def test_a_bad_value_fails_when_the_config_is_used():
    c = RunConfig()
    c.aicpu_thread_num = 99           # accepted by the assignment ...
    with pytest.raises(ValueError, match="aicpu_thread_num=99 is not valid on a2a3sim"):
        c.checked()                   # ... refused on use, with the constructor's message
    c.aicpu_thread_num = 3
    assert c.checked().aicpu_thread_num == 3


def test_platform_and_backend_type_follow_each_other():
    c = RunConfig(platform="a2a3sim")
    c.platform = "a5sim"
    assert c.checked().backend_type is BackendType.Ascend950
    c.backend_type = BackendType.Ascend910B
    assert c.checked().platform == "a2a3sim"
    c.platform, c.backend_type = "a5sim", BackendType.Ascend910B   # both assigned: they must agree
    with pytest.raises(ValueError, match="chip family"):
        c.checked()


def test_a_ring_override_assigned_later_sets_its_size():
    c = RunConfig(ring_heap=1 << 20)
    assert c.heap_size == 1 << 20
    c.ring_heap = 1 << 16
    assert c.checked().heap_size == 1 << 16
    c.ring_heap = 100
    with pytest.raises(ValueError, match="ring_heap must be a power of 2"):
        c.checked()


def test_a_name_that_is_no_field_is_refused_at_once():
    c = RunConfig()
    with pytest.raises(AttributeError, match="RunConfig has no field 'rtoll'"):
        c.rtoll = 1.0


def test_a_hardware_platform_assigned_is_refused_on_use():
    c = RunConfig()
    c.platform = "a2a3"
    with pytest.raises(ValueError, match="real hardware"):
        c.checked()


def test_replace_and_equality_see_assignments():
    c = RunConfig()
    c.rtol = 0.5
    assert c == RunConfig(rtol=0.5)
    assert c.replace(atol=0.25).rtol == 0.5
    with pytest.raises(TypeError):
        hash(c)                       # mutable, as pypto's: not a dict key


def test_a_run_validates_the_assignment_and_a_reused_config_is_reread(tmp_path):
    compiled = ptokit.compile(P.Elementwise, output_dir=tmp_path / "ew")
    a, b = rand(64, 64), rand(64, 64, seed=1)
    c = RunConfig()
    compiled(a, b, config=c)
    assert compiled.last_result.device_id == 0
    c.device_id = 5                   # the same config object, changed: the next run reads it again
    compiled(a, b, config=c)
    assert compiled.last_result.device_id == 5
    c.device_id = -1
    with pytest.raises(ValueError, match="device_id=-1"):
        compiled(a, b, config=c)
