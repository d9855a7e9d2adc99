"""pytest file in pypto's style whose fixture comes from a harness plugin that imports pypto
(run with -p ptokit.pypto.pytest_plugin -p pypto_like_plugin)."""
import ptokit.runtime


def test_the_harness_got_ptokits_run_config(test_config):
    assert type(test_config) is ptokit.runtime.RunConfig
    assert test_config.platform == "a2a3sim"          # a hardware platform, simulated
