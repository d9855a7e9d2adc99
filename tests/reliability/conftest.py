"""Shared fixtures of the reliability suite: one small program compiled once per worker."""
from __future__ import annotations

import numpy as np
import pytest

import ptokit

import programs


@pytest.fixture(scope="session")
def scalar_tree(tmp_path_factory):
    """programs.ScalarOperand compiled into a tree: y = x * alpha + 1.5."""
    out = tmp_path_factory.mktemp("rel_scalar")
    return ptokit.compile(programs.ScalarOperand, output_dir=out)


def scalar_reference(x, alpha):
    return (x * np.float32(alpha) + np.float32(1.5)).astype(np.float32)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
