"""@pl.jit call latency: cold first call, in-process hit, new-process disk hit.

    python bench/bench_jit.py [--repeat 3]

Two programs: one kernel (``small``) and ten chained kernels (``ten``).  Every
figure is a full call: specialize, compile or fetch, build (g++ or the build
cache) and run on the CPU simulator.  "cold" uses an empty cache folder, so it
includes codegen and g++; "disk hit" is the first call in a fresh process
(Python start-up and imports excluded) with the jit and build caches warm.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SMALL = '''
@pl.jit
def small(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.add(a, b)
    return c
'''


def ten_source(n=10):
    lines = ["@pl.jit", "def ten(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):"]
    for i in range(n - 1):
        lines.append(f"    t{i} = pl.create_tensor([N, N], dtype=pl.FP32)")
    prev = "a"
    for i in range(n):
        dst = f"t{i}" if i < n - 1 else "c"
        lines += ["    with pl.at(level=pl.Level.CORE_GROUP):",
                  f"        {dst}[:] = pl.add({prev}, b)"]
        prev = dst
    lines.append("    return c")
    return "\n".join(lines) + "\n"


MODULE = "import ptokit.language as pl\n\nN = 64\n" + SMALL + "\n\n" + ten_source()

CHILD = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    sys.path.insert(0, {folder!r})
    import jitbench_progs as m
    a = np.ones((64, 64), np.float32); c = np.zeros_like(a)
    f = getattr(m, {name!r})
    t0 = time.perf_counter(); f(a, a, c); t1 = time.perf_counter()
    from ptokit.jit import cache
    print(json.dumps({{"seconds": t1 - t0, "stats": cache.STATS}}))
''')


def measure(work: Path, repeat: int = 3) -> list:
    """Cold call, in-process hit and new-process disk hit for ``small`` and ``ten``, with an empty
    cache in ``work/cache`` (the simulator's own library is built first so it is not counted)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "jitbench_progs.py").write_text(MODULE)
    os.environ["PTOKIT_CACHE_DIR"] = str(work / "cache")
    if str(work) not in sys.path:
        sys.path.insert(0, str(work))
    import numpy as np
    from ptokit.runtime.sim import driver
    driver.library_path()
    import importlib
    m = importlib.import_module("jitbench_progs")
    rows = []
    for name, kernels in (("small", 1), ("ten", 10)):
        f = getattr(m, name)
        a = np.ones((64, 64), np.float32)
        c = np.zeros_like(a)
        t0 = time.perf_counter()
        f(a, a, c)
        cold = time.perf_counter() - t0
        hits = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            f(a, a, c)
            hits.append(time.perf_counter() - t0)
        p = subprocess.run([sys.executable, "-c", CHILD.format(folder=str(work), name=name)],
                           capture_output=True, text=True, env=dict(os.environ))
        if p.returncode != 0:
            raise RuntimeError(f"disk-hit child failed:\n{p.stderr[-2000:]}")
        child = json.loads(p.stdout.strip().splitlines()[-1])
        if child["stats"]["codegen_runs"] != 0:
            raise RuntimeError(f"the new process recompiled {name}: {child}")
        if not np.allclose(c, a * (kernels + 1)):
            raise RuntimeError(f"{name}: wrong result")
        hits.sort()
        rows.append({"name": name, "kernels": kernels, "cold": cold, "hit": hits[len(hits) // 2],
                     "disk": child["seconds"]})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="in-process hits (the median is shown)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="ptokit-bench-jit-"))
    print(f"cache folder: {work / 'cache'}")
    print(f"{'program':8} {'kernels':>7} {'cold (s)':>10} {'hit (ms)':>10} {'disk hit (s)':>13}")
    for r in measure(work, args.repeat):
        print(f"{r['name']:8} {r['kernels']:>7} {r['cold']:>10.3f} {1000 * r['hit']:>10.1f} {r['disk']:>13.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
