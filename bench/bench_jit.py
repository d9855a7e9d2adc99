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


WARM_CHILD = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    sys.path.insert(0, {folder!r})
    t0 = time.perf_counter()
    import ptokit.language
    import jitbench_progs as m
    t1 = time.perf_counter()
    from ptokit.jit import cache as C, function as F
    from ptokit import compiled as CP
    parts = {{}}

    def timed(label, fn):
        def wrapper(*a, **k):
            s = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                parts[label] = parts.get(label, 0.0) + (time.perf_counter() - s) * 1e3
        return wrapper
    F.JitFunction.specialize = timed("specialize", F.JitFunction.specialize)
    F.scan_dependencies = timed("key: source scan", F.scan_dependencies)
    C.ptokit_identity = timed("key: ptokit+compiler identity", C.ptokit_identity)
    C.compiler_id = timed("key: ptokit+compiler identity", C.compiler_id)
    C.validate_entry = timed("entry verification", C.validate_entry)
    from ptokit.runtime import build as B
    RUN = "run: imports, load libptosim + objects, simulate"
    inside = []

    def tree(*a, **k):
        inside.append(1)
        try:
            return timed("run: build check (tree objects)", build_tree)(*a, **k)
        finally:
            inside.pop()

    def shared(*a, **k):
        return (compile_shared if inside else timed("run: build check (libptosim)", compile_shared))(*a, **k)
    build_tree, compile_shared = B.build_tree, B.compile_shared
    B.build_tree, B.compile_shared = tree, shared
    CP.CompiledProgram.__call__ = timed(RUN, CP.CompiledProgram.__call__)
    a = np.ones((64, 64), np.float32); c = np.zeros_like(a)
    t2 = time.perf_counter()
    m.small(a, a, c)
    t3 = time.perf_counter()
    assert (c == 2).all()
    call = (t3 - t2) * 1e3
    parts[RUN] -= sum(v for k, v in parts.items() if k.startswith("run: build"))   # the rest of the run
    parts["other"] = call - sum(parts.values())
    print(json.dumps({{"import": (t1 - t0) * 1e3, "call": call, "parts": parts, "stats": C.STATS}}))
''')


def measure_warm(work: Path, repeat: int = 3) -> dict:
    """The first call of the compiled-on-disk ``small`` in new processes (after ``measure``, which
    compiled it): medians of ``repeat`` processes (one more first, unmeasured, to write the
    bytecode caches, which live in ``work/pyc``), with the call split by phase."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pyc")
    runs = []
    for i in range(repeat + 1):
        p = subprocess.run([sys.executable, "-c", WARM_CHILD.format(folder=str(work))], capture_output=True,
                           text=True, env=env, timeout=300)
        if p.returncode != 0:
            raise RuntimeError(f"warm-call child failed:\n{p.stderr[-2000:]}")
        r = json.loads(p.stdout.strip().splitlines()[-1])
        if r["stats"]["codegen_runs"] != 0 or r["stats"]["disk_hits"] != 1:
            raise RuntimeError(f"the warm process did not hit the disk cache: {r['stats']}")
        if i:
            runs.append(r)
    med = lambda xs: sorted(xs)[len(xs) // 2]   # noqa: E731
    keys = runs[0]["parts"].keys()
    return {"n": len(runs), "call": med([r["call"] for r in runs]), "import": med([r["import"] for r in runs]),
            "import_call": med([r["import"] + r["call"] for r in runs]),
            "parts": {k: med([r["parts"].get(k, 0.0) for r in runs]) for k in keys}}


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
    w = measure_warm(work, args.repeat)
    print(f"warm first call in a new process: {w['call']:.1f} ms; import + call {w['import_call']:.1f} ms")
    for k, v in w["parts"].items():
        print(f"  {k:40} {v:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
