"""Nothing unverified is loaded from the cache (issue 18, items 1, 3 and 11).

* the simulator's images (``<cache>/sim_images/<sha>.so``) are re-hashed before every use:
  a same-size edit is rewritten, a planted object never runs;
* the cache is private whatever the umask, and a root others may write is refused;
* temporary files of killed builds are swept by the next build.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from ptokit.runtime import build, cachedir
from ptokit.runtime.build import build_key, build_tree, compile_shared
from ptokit.runtime.cachedir import UnsafeCacheError
from ptokit.runtime.callable import pack_tree, unpack_chip_callable
from ptokit.runtime.launcher import run_tree
from ptokit.runtime.sim import driver

from .conftest import rand, scalar_reference

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"
TRIVIAL = CASES / "trivial.cpp"


def _env(**extra):
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _own_tree(scalar_tree, tmp_path, tag: str) -> Path:
    """A copy of the tree whose kernel binary is this test's own (a tagged symbol), so tests that
    tamper with its image file never meet another test's runs (xdist workers share the cache)."""
    tree = tmp_path / f"tree_{tag}"
    shutil.copytree(scalar_tree.output_dir, tree)
    src = next((tree / "kernels" / "aiv").glob("*.cpp"))
    src.write_text(src.read_text() + f'\nextern "C" const char ptokit_test_tag[] = "{tag}";\n')
    return tree


def _kernel_image(tree):
    """(bytes, cache path) of the tree's (only) kernel binary as run_image gets it: the path is
    where the image's file is kept when no in-memory file can be used."""
    view = unpack_chip_callable(pack_tree(build_tree(tree)))
    data = view.children[0].binary
    digest = hashlib.sha256(data).hexdigest()
    return data, build.cache_path() / "sim_images" / digest[:2] / f"{digest}.so"


def _run_in_subprocess(tree, alpha, marker: Path, use_memfd: bool) -> np.ndarray:
    """run_tree in a fresh process (nothing dlopened yet), returning y."""
    out = marker.with_name("y.npy")
    script = textwrap.dedent(f"""
        import os
        import numpy as np
        if not {use_memfd!r}:
            del os.memfd_create          # the fallback: content-named files in the cache
        from ptokit.runtime.launcher import run_tree
        x = np.random.default_rng(7).standard_normal((64, 64)).astype(np.float32)
        y = np.zeros_like(x)
        run_tree({str(tree)!r}, [x, {alpha!r}, y], quiet=True)
        np.save({str(out)!r}, y)
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=_env(PTOKIT_TEST_MARKER=str(marker)),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return np.load(out)


@pytest.mark.parametrize("use_memfd", [True, False], ids=["memfd", "file"])
def test_planted_same_size_object_never_runs(scalar_tree, tmp_path, use_memfd):
    tree = _own_tree(scalar_tree, tmp_path, f"planted_{use_memfd}")
    genuine, image = _kernel_image(tree)
    planted = compile_shared(CASES / "planted.cpp", name_hint="planted").read_bytes()
    assert len(planted) < len(genuine)
    image.parent.mkdir(parents=True, exist_ok=True)
    tmp = image.with_name("planting")
    tmp.write_bytes(planted + b"\0" * (len(genuine) - len(planted)))   # same size, the image's name
    os.chmod(tmp, 0o700)
    os.replace(tmp, image)
    marker = tmp_path / "constructor_ran"
    y = _run_in_subprocess(tree, 3.0, marker, use_memfd)
    assert not marker.exists(), "a planted shared object was loaded"
    xs = np.random.default_rng(7).standard_normal((64, 64)).astype(np.float32)
    np.testing.assert_allclose(y, scalar_reference(xs, 3.0), rtol=1e-6)
    if not use_memfd:
        assert image.read_bytes() == genuine                   # rewritten from the image


def test_same_size_edit_is_rewritten_before_use(scalar_tree, tmp_path, monkeypatch):
    monkeypatch.delattr(os, "memfd_create")                   # the file fallback
    tree = _own_tree(scalar_tree, tmp_path, "same_size_edit")
    x = rand(64, 64, seed=2)
    run_tree(tree, [x, 2.0, np.zeros_like(x)], quiet=True)
    genuine, image = _kernel_image(tree)
    assert image.read_bytes() == genuine
    edited = bytearray(genuine)
    edited[len(edited) // 2] ^= 0xFF
    tmp = image.with_name("editing")
    tmp.write_bytes(bytes(edited))
    os.chmod(tmp, 0o700)
    os.replace(tmp, image)                  # a new inode: what this process mapped stays intact
    y = np.zeros_like(x)
    run_tree(tree, [x, 2.0, y], quiet=True)
    assert image.read_bytes() == genuine
    np.testing.assert_allclose(y, scalar_reference(x, 2.0), rtol=1e-6)


def test_images_are_loaded_from_sealed_memory(scalar_tree):
    genuine, _ = _kernel_image(scalar_tree.output_dir)
    path = driver._image_path(genuine, "axpb")
    assert path.startswith("/proc/self/fd/") and Path(path).read_bytes() == genuine
    assert driver._image_path(genuine, "axpb") == path          # one file per content
    with pytest.raises(OSError):
        with open(path, "r+b") as fh:                          # sealed: not even we can change it
            fh.write(b"x")


def test_image_file_writable_by_others_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    data = b"\x7fELF not really, just bytes"
    path = driver._content_file(data)
    os.chmod(path, 0o666)
    inode = path.stat().st_ino
    assert driver._content_file(data) == path
    assert path.stat().st_ino != inode and stat.S_IMODE(path.stat().st_mode) == 0o700


# ---------------------------------------------------------------- permissions


def _modes(root: Path):
    out = {}
    for p in [root] + sorted(root.rglob("*")):
        out[p.relative_to(root).as_posix() or "."] = (p.is_dir(), stat.S_IMODE(p.lstat().st_mode))
    return out


def test_cache_is_private_under_umask_000(tmp_path, scalar_tree):
    cache = tmp_path / "fresh" / "cache"
    script = textwrap.dedent(f"""
        import os, sys
        os.umask(0)
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        import numpy as np
        from ptokit.runtime.build import compile_shared
        from ptokit.runtime.sim.driver import _content_file
        import ptokit.language as pl
        compile_shared({str(TRIVIAL)!r}, name_hint="trivial")
        _content_file(b"image bytes")

        @pl.jit
        def neg(x: pl.Tensor, y: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.neg(pl.load(x, [0, 0], [32, 64])), [0, 0], y)
            return y

        x = np.zeros((32, 64), np.float32)
        neg.compile(x, np.zeros_like(x))
    """)
    (tmp_path / "umask0.py").write_text(script)             # @pl.jit reads its source file
    proc = subprocess.run([sys.executable, str(tmp_path / "umask0.py")], env=_env(PTOKIT_CACHE_DIR=str(cache)),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    modes = _modes(cache)
    assert {"build", "sim_images", "jit"} <= set(modes)
    kinds = {Path(k).suffix for k, (is_dir, _) in modes.items() if not is_dir}
    assert {".so", ".json", ".lock", ".pto", ".cpp", ".py"} <= kinds, kinds
    for name, (is_dir, mode) in modes.items():
        if is_dir:
            assert mode == 0o700, (name, oct(mode))
        elif name.endswith(".so"):
            assert mode == 0o700, (name, oct(mode))
        else:
            assert mode == 0o600, (name, oct(mode))
    # the parent the cache root needed was created private too
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o722], ids=["0777", "0775", "0722"])
def test_cache_root_writable_by_others_is_refused(tmp_path, monkeypatch, mode):
    root = tmp_path / "shared"
    root.mkdir()
    os.chmod(root, mode)
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(root))
    with pytest.raises(UnsafeCacheError, match=r"refusing to load .*writable by (group|others)"):
        compile_shared(TRIVIAL)
    with pytest.raises(UnsafeCacheError, match=f"mode 0{mode:o}"):
        driver._content_file(b"bytes")
    from ptokit.jit import cache as jit_cache
    with pytest.raises(UnsafeCacheError):
        jit_cache.validate_entry(root / "jit" / "g" / "k", "k")
    assert not (root / "build").exists() and not (root / "sim_images").exists()


def test_cache_root_of_another_user_is_refused(tmp_path, monkeypatch):
    root = tmp_path / "theirs"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(root))
    me = os.geteuid()
    monkeypatch.setattr(cachedir.os, "geteuid", lambda: me + 1)
    with pytest.raises(UnsafeCacheError, match=rf"owned by uid {me}, not by you \(uid {me + 1}\)"):
        compile_shared(TRIVIAL)


def test_cached_object_writable_by_others_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    obj = compile_shared(TRIVIAL)
    os.chmod(obj, 0o777)
    inode = obj.stat().st_ino
    assert compile_shared(TRIVIAL) == obj
    assert obj.stat().st_ino != inode and stat.S_IMODE(obj.stat().st_mode) == 0o700


# ---------------------------------------------------------------- temp files of killed builds


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _plant(path: Path, age: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"half an object")
    t = time.time() - age
    os.utime(path, (t, t))
    return path


def test_next_build_sweeps_stale_temp_files(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "_swept_roots", set())
    key = build_key(TRIVIAL, include_dirs=[])
    folder = tmp_path / "cache" / "build" / key[:2]
    other = tmp_path / "cache" / "build" / ("00" if key[:2] != "00" else "01")
    dead, me = _dead_pid(), os.getpid()
    stale = [
        _plant(folder / f".{key[:16]}.pid{dead}.aaaa.so.tmp", 120),        # writer died
        _plant(folder / f".{key[:16]}.pid{me}.bbbb.so.tmp", 7200),         # older than any build
        _plant(folder / f".{key[:16]}.Xq3z_9ab.so.tmp", 7200),             # old name format, old
        _plant(folder / f".{key[:16]}.json.pid{dead}.cccc.tmp", 120),      # a sidecar's temp
        _plant(other / f".{'0' * 16}.pid{dead}.dddd.so.tmp", 120),         # a folder not built now
    ]
    fresh = [
        _plant(folder / f".{key[:16]}.pid{me}.eeee.so.tmp", 1),            # a live writer's
        _plant(folder / f".{key[:16]}.pid{dead}.ffff.so.tmp", 1),          # within the grace time
        _plant(other / f".{'0' * 16}.Yp2w_8cd.so.tmp", 5),                 # unknown writer, recent
    ]
    compile_shared(TRIVIAL)
    assert [p for p in stale if p.exists()] == []
    assert [p for p in fresh if not p.exists()] == []
    # later builds in the same process sweep the folder they build into
    again = _plant(folder / f".{key[:16]}.pid{dead}.gggg.so.tmp", 120)
    (folder / f"{key}.so").unlink()
    compile_shared(TRIVIAL)
    assert not again.exists()


def test_image_and_jit_temp_leftovers_are_swept(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    data = b"some image"
    digest = hashlib.sha256(data).hexdigest()
    dead = _dead_pid()
    img_stale = _plant(tmp_path / "cache" / "sim_images" / digest[:2] / f".{digest[:16]}.pid{dead}.a.tmp", 120)
    img_fresh = _plant(tmp_path / "cache" / "sim_images" / digest[:2] / f".{digest[:16]}.pid{dead}.b.tmp", 1)
    driver._content_file(data)
    assert not img_stale.exists() and img_fresh.exists()

    from ptokit.jit import cache as jit_cache
    group = tmp_path / "cache" / "jit" / "fn-0123456789"
    left = group / f".tmp-{'a' * 12}.pid{dead}.xyz"
    (left / "kernels").mkdir(parents=True)
    t = time.time() - 120
    os.utime(left, (t, t))
    live = group / f".tmp-{'b' * 12}.pid{os.getpid()}.xyz"
    live.mkdir()
    tmp = jit_cache.new_temp_dir(group, "c" * 40)
    assert not left.exists() and live.exists() and tmp.is_dir()
    assert f".pid{os.getpid()}." in tmp.name


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_same_size_same_mtime_source_replacement_is_rebuilt(tmp_path, runtime):
    """A kernel source replaced in place by one of the same size with its mtime put back (what
    ``cp -p`` does) changes only its ctime: the process that already ran the tree must build and
    run the new source, not the object it memoised for the old one (issue 31, finding 4)."""
    import programs
    import ptokit
    tree = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "tree", runtime=runtime).output_dir
    src = next((Path(tree) / "kernels" / "aiv").glob("*.cpp"))
    # a tag of this test's own, so no other test's tree shares the objects built here
    src.write_text(src.read_text() + f'\nextern "C" const char ptokit_test_tag[] = "cp_p_{runtime}";\n')
    x = rand(64, 64, seed=5)
    y = np.zeros_like(x)
    run_tree(tree, [x, 2.0, y], quiet=True)
    np.testing.assert_allclose(y, scalar_reference(x, 2.0), rtol=1e-6)
    st = src.stat()
    text = src.read_text()
    assert text.count("1.5f") == 1
    with open(src, "r+b") as f:                      # in place: the same inode, the same size
        f.write(text.replace("1.5f", "2.5f").encode())
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = src.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    y2 = np.zeros_like(x)
    run_tree(tree, [x, 2.0, y2], quiet=True)
    np.testing.assert_allclose(y2, (x * np.float32(2.0) + np.float32(2.5)).astype(np.float32), rtol=1e-6)
