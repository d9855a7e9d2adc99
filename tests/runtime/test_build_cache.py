"""compile_shared / build_many / build_tree and the content-addressed cache."""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ptokit.errors import BuildError, UserError
from ptokit.runtime import build


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(root))
    return root


def _count_compiles(monkeypatch):
    calls = []
    real = subprocess.run      # build imports subprocess where it runs g++: the module's run is spied

    def spy(cmd, *a, **kw):
        if "-shared" in cmd:
            calls.append(cmd)
        return real(cmd, *a, **kw)

    monkeypatch.setattr(subprocess, "run", spy)
    return calls


def _src(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(textwrap.dedent(body))
    return p


def _call(so: Path, fn: str) -> int:
    lib = ctypes.CDLL(str(so))
    f = getattr(lib, fn)
    f.restype = ctypes.c_int
    return f()


def test_cache_root_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv("PTOKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert build.cache_path() == tmp_path / "xdg" / "ptokit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert build.cache_path() == tmp_path / "home" / ".cache" / "ptokit"
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "c"))
    assert build.cache_path() == tmp_path / "c"


def test_compile_cache_hit_and_layout(cache, tmp_path, monkeypatch):
    src = _src(tmp_path / "k", "a.cpp", 'extern "C" int value() { return VALUE; }\n')
    calls = _count_compiles(monkeypatch)
    so = build.compile_shared(src, defines=["VALUE=41"], name_hint="a")
    assert _call(so, "value") == 41
    key = so.stem
    assert so == cache / "build" / key[:2] / f"{key}.so"
    meta = json.loads(so.with_suffix(".json").read_text())
    assert meta["sha256"] == build._sha256_file(so)
    assert len(calls) == 1 and "-std=c++17" in calls[0] and "-fPIC" in calls[0]
    assert build.compile_shared(src, defines=["VALUE=41"]) == so
    assert len(calls) == 1  # second call: served from the cache
    so2 = build.compile_shared(src, defines=["VALUE=42"])
    assert so2 != so and _call(so2, "value") == 42
    assert len(calls) == 2
    assert build.cache_stat()["objects"] == 2
    assert build.cache_clear() == 2
    assert build.cache_stat()["objects"] == 0


def test_header_change_changes_key_and_moved_tree_hits(cache, tmp_path, monkeypatch):
    d = tmp_path / "t1"
    _src(d, "inner.h", "#define INNER 3\n")
    _src(d, "vals.h", '#include "inner.h"\n#define V (INNER * 2)\n')
    src = _src(d, "k.cpp", '#include "vals.h"\n#include <cstdint>\nextern "C" int value() { return V; }\n')
    so1 = build.compile_shared(src, include_dirs=[d])
    assert _call(so1, "value") == 6
    # moving the folder keeps the key (paths are not part of it)
    d2 = tmp_path / "moved"
    d.rename(d2)
    calls = _count_compiles(monkeypatch)
    assert build.compile_shared(d2 / "k.cpp", include_dirs=[d2]) == so1
    assert calls == []
    # a transitively included header's content is part of the key
    (d2 / "inner.h").write_text("#define INNER 5\n")
    so2 = build.compile_shared(d2 / "k.cpp", include_dirs=[d2])
    assert so2 != so1 and _call(so2, "value") == 10


def test_header_from_include_dir(cache, tmp_path):
    inc = tmp_path / "inc"
    _src(inc / "lib", "x.h", "#define X 7\n")
    src = _src(tmp_path / "src", "k.cpp", '#include <lib/x.h>\nextern "C" int value() { return X; }\n')
    so1 = build.compile_shared(src, include_dirs=[inc])
    (inc / "lib" / "x.h").write_text("#define X 8\n")
    so2 = build.compile_shared(src, include_dirs=[inc])
    assert so1 != so2 and _call(so2, "value") == 8


def test_bundled_include_folder_is_hashed(cache, tmp_path, monkeypatch):
    fake = tmp_path / "bundled"
    _src(fake, "anything.h", "// v1\n")
    monkeypatch.setattr(build, "INCLUDE_DIR", fake)
    src = _src(tmp_path / "s", "k.cpp", 'extern "C" int value() { return 1; }\n')
    k1 = build.build_key(src, include_dirs=[fake])
    (fake / "anything.h").write_text("// v2\n")
    k2 = build.build_key(src, include_dirs=[fake])
    assert k1 != k2
    assert build.build_key(src) == build.build_key(src)  # not on the path: not hashed


def test_corrupted_object_is_rebuilt(cache, tmp_path, monkeypatch):
    src = _src(tmp_path, "c.cpp", 'extern "C" int value() { return 9; }\n')
    so = build.compile_shared(src)
    good = so.read_bytes()
    so.write_bytes(good[:100] + b"\0garbage" + good[108:])
    calls = _count_compiles(monkeypatch)
    assert build.compile_shared(src) == so
    assert len(calls) == 1 and so.read_bytes() == good
    # a missing / unreadable sidecar also means "rebuild"
    so.with_suffix(".json").write_text("{not json")
    build.compile_shared(src)
    assert len(calls) == 2


def test_compile_failure_reports_command_and_output(cache, tmp_path):
    src = _src(tmp_path, "bad.cpp", 'extern "C" int value() { return undefined_name; }\n')
    with pytest.raises(BuildError) as ei:
        build.compile_shared(src, name_hint="bad")
    msg = str(ei.value)
    assert "undefined_name" in msg and "command:" in msg and "-shared" in msg and "(bad)" in msg
    assert not list((cache / "build").rglob("*.so"))  # nothing half-written left behind
    assert not list((cache / "build").rglob("*.tmp"))


def test_missing_source(cache, tmp_path):
    with pytest.raises(UserError, match="not found"):
        build.compile_shared(tmp_path / "nope.cpp")


def test_concurrent_processes_same_key(cache, tmp_path):
    src = _src(tmp_path, "p.cpp", 'extern "C" int value() { return 77; }\n')
    code = ("import sys; from ptokit.runtime.build import compile_shared; "
            f"print(compile_shared({str(src)!r}))")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len(set(outs)) == 1
    so = Path(outs[0])
    assert json.loads(so.with_suffix(".json").read_text())["sha256"] == build._sha256_file(so)
    assert _call(so, "value") == 77
    assert not list(so.parent.glob("*.tmp"))


def test_build_many_parallel_and_progress(cache, tmp_path):
    srcs = [_src(tmp_path, f"m{i}.cpp", f'extern "C" int value() {{ return {i}; }}\n') for i in range(4)]
    seen = []
    objs = build.build_many([{"source": s} for s in srcs], max_workers=2, progress=lambda d, t: seen.append((d, t)))
    assert [_call(o, "value") for o in objs] == [0, 1, 2, 3]
    assert sorted(seen) == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_build_many_reports_every_failure(cache, tmp_path):
    good = _src(tmp_path, "g.cpp", 'extern "C" int value() { return 1; }\n')
    bad1 = _src(tmp_path, "b1.cpp", "int f( {\n")
    bad2 = _src(tmp_path, "b2.cpp", "int g( {\n")
    with pytest.raises(BuildError) as ei:
        build.build_many([build.BuildJob(good), build.BuildJob(bad1), build.BuildJob(bad2)])
    assert "2 of 3 builds failed" in str(ei.value)
    assert "b1.cpp" in str(ei.value) and "b2.cpp" in str(ei.value)


FOREIGN_CONFIG = """\
from pathlib import Path
_KERNELS_ROOT = Path(__file__).parent
RUNTIME_CONFIG = {"runtime": "host_build_graph", "aicpu_thread_num": 3}
ORCHESTRATION = {"source": str(_KERNELS_ROOT / "orchestration" / "orch.cpp"), "function_name": "entry"}
KERNELS = [
    {"func_id": 0, "source": str(_KERNELS_ROOT / "aiv" / "vec.cpp"), "core_type": "aiv"},
    {"func_id": 1, "source": str(_KERNELS_ROOT / "aic" / "cube.cpp"), "core_type": "aic", "signature": ["IN", "OUT"]},
]
"""


def _foreign_tree(root: Path) -> Path:
    _src(root / "orchestration", "orch.cpp", """\
        #ifndef __CPU_SIM
        #error needs __CPU_SIM
        #endif
        extern "C" int entry() { return 100; }
        """)
    _src(root / "aiv", "helper.h", "#define HELPER 5\n")
    _src(root / "aiv", "vec.cpp", """\
        #include "helper.h"
        #if !defined(__CPU_SIM) || !defined(__DAV_VEC__) || defined(__DAV_CUBE__)
        #error vector kernel flags
        #endif
        extern "C" int kernel_entry() { return HELPER; }
        """)
    _src(root / "aic", "cube.cpp", """\
        #if !defined(__CPU_SIM) || !defined(__DAV_CUBE__) || defined(__DAV_VEC__)
        #error cube kernel flags
        #endif
        extern "C" int kernel_entry() { return 2; }
        """)
    (root / "kernel_config.py").write_text(FOREIGN_CONFIG)
    return root


def test_build_tree_foreign(cache, tmp_path):
    root = _foreign_tree(tmp_path / "tree")
    ticks = []
    built = build.build_tree(root, jobs=2, progress=lambda d, t: ticks.append((d, t)))
    assert _call(built.orchestration_so, "entry") == 100
    assert sorted(built.kernel_sos) == [0, 1]
    assert _call(built.kernel_sos[0], "kernel_entry") == 5
    assert _call(built.kernel_sos[1], "kernel_entry") == 2
    assert built.config.kernels[1].signature == ["IN", "OUT"]
    assert max(ticks) == (3, 3)


def test_build_tree_missing_source(cache, tmp_path):
    root = _foreign_tree(tmp_path / "tree")
    (root / "aic" / "cube.cpp").unlink()
    with pytest.raises(UserError, match="cube.cpp"):
        build.build_tree(root)


@pytest.fixture
def settled(monkeypatch):
    """Every file counts as settled (statcache.SETTLE_S), so build keys are remembered at once."""
    from ptokit.runtime import statcache
    monkeypatch.delenv("PTOKIT_STAT_CACHE", raising=False)
    monkeypatch.setattr(statcache, "SETTLE_S", -3600.0)
    return statcache


def test_remembered_build_key_sees_every_header_change(cache, tmp_path, settled):
    # the key is remembered across processes by the stat of what its scan read: the source, the
    # headers found, and the places a header was looked for and not found
    first, second = tmp_path / "first", tmp_path / "second"
    _src(second, "a.h", "#define A 1\n")
    _src(second / "sub", "b.h", "#define B 1\n")
    src = _src(tmp_path / "s", "k.cpp", '#include <a.h>\n#include <sub/b.h>\nextern "C" int v() { return A + B; }\n')
    first.mkdir()

    def key():
        reads, computes = settled.STATS["reads"], settled.STATS["computes"]
        k = build.build_key(src, include_dirs=[first, second])
        return k, settled.STATS["reads"] - reads, settled.STATS["computes"] - computes

    k1, _, computed = key()
    assert computed == 1
    assert key() == (k1, 1, 0)                   # read back, not scanned again
    (second / "sub" / "b.h").write_text("#define B 2\n")
    k2, _, computed = key()
    assert k2 != k1 and computed == 1
    _src(first, "a.h", "#define A 5\n")          # a header appears earlier on the search path
    k3, _, computed = key()
    assert k3 not in (k1, k2) and computed == 1
    _src(first / "sub", "b.h", "#define B 9\n")  # ... and in a folder that did not exist
    k4, _, computed = key()
    assert k4 not in (k1, k2, k3) and computed == 1
    src.write_text(src.read_text() + "// edited\n")
    assert key()[0] != k4


def test_build_key_of_a_just_changed_file_is_not_remembered(cache, tmp_path, monkeypatch):
    from ptokit.runtime import statcache
    monkeypatch.delenv("PTOKIT_STAT_CACHE", raising=False)
    src = _src(tmp_path / "s", "k.cpp", 'extern "C" int v() { return 1; }\n')
    build.build_key(src)
    computes = statcache.STATS["computes"]
    build.build_key(src)          # written just now: it may still change within the clock's step
    assert statcache.STATS["computes"] == computes + 1


def test_build_many_all_hits_starts_no_threads(cache, tmp_path, monkeypatch):
    src = _src(tmp_path / "s", "k.cpp", 'extern "C" int v() { return 1; }\n')
    first = build.build_many([{"source": src}])
    import threading
    started = []
    real = threading.Thread.start

    def spy(self):
        started.append(self)
        return real(self)

    monkeypatch.setattr(threading.Thread, "start", spy)
    seen = []
    assert build.build_many([{"source": src}, {"source": src}], progress=lambda n, t: seen.append((n, t))) \
        == first * 2
    assert started == [] and seen == [(1, 2), (2, 2)]
