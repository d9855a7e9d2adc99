"""libptosim is built beside a tree's first build, not after it (issue 33).

On an empty cache the simulator's runtime library is the longest single compile of a first run;
``prepare_tree`` starts it on a background thread before the tree's objects and joins it after,
so the two share the cores. A process that already loaded it starts nothing.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import ptokit
from ptokit.runtime import launcher
from ptokit.runtime.sim import driver

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Elementwise, N  # noqa: E402


def test_prepare_tree_starts_the_library_before_the_objects_and_joins_it(tmp_path, monkeypatch):
    c = ptokit.compile(Elementwise, output_dir=tmp_path / "tree")
    events = []

    class Started:
        def join(self):
            events.append("join")

    real_build = launcher.build_tree

    def build_tree(*a, **k):
        events.append("build_tree")
        return real_build(*a, **k)

    monkeypatch.setattr(launcher, "start_library_build", lambda: events.append("start") or Started())
    monkeypatch.setattr(launcher, "build_tree", build_tree)
    launcher._prepare_tree(c.output_dir, None, jobs=None, quiet=True)
    assert events == ["start", "build_tree", "join"]


def test_the_background_build_leaves_the_library_in_the_cache(tmp_path, monkeypatch):
    """With the library not loaded, the thread builds it (into this test's empty cache): the
    next lookup is a cache hit and a run works."""
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(driver, "_lib", None)        # as in a fresh process (the real one stays loaded)
    built = []
    real_path = driver.library_path

    def library_path():
        p = real_path()
        built.append(p)
        return p

    monkeypatch.setattr(driver, "library_path", library_path)
    t = driver.start_library_build()
    assert t is not None
    t.join(timeout=600)
    assert not t.is_alive() and len(built) == 1 and built[0].is_file()
    assert str(built[0]).startswith(str(tmp_path / "cache"))


def test_nothing_starts_once_the_library_is_loaded(tmp_path):
    c = ptokit.compile(Elementwise, output_dir=tmp_path / "tree")
    a = np.ones((N, N), np.float32)
    c(a, a, np.zeros((N, N), np.float32), np.zeros((N, N), np.float32))   # loads libptosim
    assert driver._lib is not None
    assert driver.start_library_build() is None
