"""A program's first run, as whole processes (bench/run.py rows ``first_run_*``).

Each row starts ``python examples/<name>.py`` in a new process (interpreter, imports, compile,
g++, run, numpy check: what a user waits for) against a prepared build cache:

* ``first_run_fresh_add_scale``: an empty cache, so the one-time setup is in it (libptosim, the
  tile library's precompiled header) as well as the kernel;
* ``first_run_decoder_cold`` / ``first_run_flash_cold``: a cache that holds that one-time setup
  (libptosim and both precompiled headers, from other examples) but none of the program's
  objects: the kernels are built;
* ``first_run_decoder_warm``: the same process again, everything cached (the program itself is a
  hit of ``ptokit.compile``'s compile cache: nothing is parsed or lowered).

The child gets this checkout on PYTHONPATH and may write bytecode (PYTHONDONTWRITEBYTECODE is
dropped), as an installed package has it; each row is the median of ``reps`` processes, each on
its own copy of the prepared cache.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _env(cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PTOKIT_CACHE_DIR"] = str(cache)
    return env


def _run(example: str, cache: Path, *args: str) -> float:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, str(EXAMPLES / example), *args], env=_env(cache), cwd=str(ROOT),
                       capture_output=True, text=True, timeout=900)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{example} failed ({p.returncode}): {p.stderr.strip()[-800:]}")
    return dt


def _copy(seed: Path, dst: Path) -> Path:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(seed, dst)
    os.chmod(dst, 0o700)
    return dst


def measure(work: Path, quick: bool):
    reps = 1 if quick else 3
    load = os.getloadavg()[0]
    rows = []
    fresh = []
    for i in range(reps):
        cache = work / f"fresh_{i}"
        shutil.rmtree(cache, ignore_errors=True)
        fresh.append(_run("add_scale.py", cache))
    rows.append(("first_run_fresh_add_scale", "first run of examples/add_scale.py, empty cache (whole process)",
                 statistics.median(fresh), "s", "<=", 3.0,
                 f"includes the one-time libptosim + precompiled header; load {load:.1f} at the start", reps))
    # the one-time setup for cube and vector kernels, without the measured programs' objects
    seed = work / "seed"
    _copy(work / "fresh_0", seed)
    _run("auto_tiled_matmul.py", seed)
    for key, example, what, target in (
            ("first_run_decoder_cold", "decoder_layer.py", "examples/decoder_layer.py (7 kernels), kernels not built",
             1.5),
            ("first_run_flash_cold", "flash_attention.py", "examples/flash_attention.py, kernels not built", 0.8)):
        times, warm = [], []
        for i in range(reps):
            cache = _copy(seed, work / f"{key}_{i}")
            times.append(_run(example, cache))
            if key == "first_run_decoder_cold":
                warm.append(_run(example, cache))
        rows.append((key, f"first run of {what} (whole process)", statistics.median(times), "s", "<=", target,
                     "libptosim and precompiled headers cached", reps))
        if warm:
            rows.append(("first_run_decoder_warm", "  the same process again, everything cached",
                         statistics.median(warm), "s", "<=", 0.3,
                         "imports + compile cache hit (nothing compiled) + build cache lookups + run", reps))
    return rows
