#!/usr/bin/env python3
"""ptokit benchmarks: one command, one table.

    python bench/run.py [--quick] [--json FILE]

Every number is the median of several repetitions (``--quick``: fewer).  Cold build
numbers use fresh cache folders, and the whole run uses a temporary PTOKIT_CACHE_DIR,
so the user's build cache is never read or written.  See docs/benchmarks.md for what each
row measures.
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, List, Optional

BENCH_DIR = Path(__file__).resolve().parent
CASES = BENCH_DIR / "cases"
if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))

RUNTIMES = (("tensormap_and_ringbuffer", "tmr"), ("host_build_graph", "hbg"))
N_TASKS = 1000

# Row keys in table order (tests/bench/test_bench_smoke.py checks that every one is printed).
ROW_KEYS = [
    "import_time",
    "compile_first",
    "compile_parse", "compile_passes", "compile_pto", "compile_assemble", "compile_orchestration",
    "compile_config", "compile_to_pto_config", "compile_tree",
    "compile_chain_150", "compile_cached",
    "assembler_small",
    "build_runtime_lib_cold",
    "build_pch_cold", "build_kernel_cold", "build_kernel_cold_headers", "build_gxx_floor", "build_kernel_cached", "build_tree_cold", "build_tree_cached",
    "run_one_task", "run_one_task_sim",
    "chain_tmr", "fan_tmr", "chain_hbg", "fan_hbg",
    "chain_10k_tmr", "chain_scoped_1k_tmr", "chain_scoped_100k_tmr",
    "race_chain_off_tmr", "race_chain_manual_tmr", "race_chain_ratio_tmr",
    "race_fan_off_tmr", "race_fan_manual_tmr", "race_fan_ratio_tmr",
    "race_pipeline_off_tmr", "race_pipeline_manual_tmr", "race_pipeline_ratio_tmr",
    "race_pipeline_512_off_tmr", "race_pipeline_512_manual_tmr", "race_pipeline_512_ratio_tmr",
    "race_pipeline_2048_off_tmr", "race_pipeline_2048_manual_tmr", "race_pipeline_2048_ratio_tmr",
    "dsl_chain_tmr", "dsl_chain_hbg", "dsl_chain_estimate_tmr",
    "ew_numpy", "ew_sim", "ew_sim_estimate", "ew_sim_unfused", "ew_sim_spmd", "ew_numpy_large", "ew_sim_large", "ew_sim_copy", "ew_numpy_copy", "ew_call",
    "ew_call_copied",
    "softmax_numpy", "softmax_sim", "softmax_sim_unfused", "softmax_sim_ref",
    "layernorm_numpy", "layernorm_sim", "layernorm_sim_unfused", "layernorm_sim_ref",
    "softmax_large_sim", "softmax_large_sim_unfused", "layernorm_large_sim", "layernorm_large_sim_unfused",
    "matmul_f32_tile", "matmul_f32_numpy", "matmul_f16_tile", "matmul_f16_numpy", "matmul_bf16_tile",
    "matmul_f16_l0_a2a3", "matmul_l0_a2a3_numpy", "matmul_f16_l0_a5", "matmul_l0_a5_numpy", "matmul_f32_l0_a5",
    "matmul_f32_l0_a5_numpy",
    "model_flash_attention", "model_paged_decode", "model_paged_decode_spmd", "model_decoder_layer",
    "model_decoder_layer_large", "model_decoder_4k", "model_decoder_4k_cold",
    "model_splitk_matmul", "model_auto_tiled_matmul", "model_auto_tiled_matmul_a5",
    "jit_small_cold", "jit_small_hit", "jit_small_disk", "jit_ten_cold", "jit_ten_hit", "jit_ten_disk",
    "jit_warm_call", "jit_warm_import_call",
    "first_run_fresh_add_scale", "first_run_decoder_cold", "first_run_decoder_warm", "first_run_flash_cold",
    "dist_put_bw", "dist_get_bw", "dist_memcpy_bw", "dist_call_w2", "dist_barrier_w2", "dist_barrier_w4",
    "dist_barrier_w8", "dist_allreduce_1mib_w4",
    "dist_dsl_put_bw", "dist_dsl_get_bw", "dist_dsl_barrier_w2", "dist_dsl_barrier_w4", "dist_dsl_barrier_w8",
    "dist_dsl_allreduce_1mib_w4",
]


# ---------------------------------------------------------------------------
# rows and the table
# ---------------------------------------------------------------------------


@dataclass
class Row:
    key: str
    metric: str
    value: Optional[float]
    unit: str
    op: str = ""                    # "<=" or ">=" when there is a target
    target: Optional[float] = None  # in `unit`
    notes: str = ""
    reps: int = 0

    def verdict(self) -> str:
        """The ratio/notes cell: value against the target, then the free-form note."""
        parts = []
        if self.value is None:
            parts.append("not measured")
        elif self.target is not None and self.op:
            r = self.value / self.target if self.target else float("inf")
            if self.op == "<=":
                if self.value <= self.target:
                    parts.append(f"ok ({r:.2f}x of target)")
                else:
                    parts.append(f"MISSED: {r:.1f}x the target (+{_fmt(self.value - self.target)} {self.unit})")
            else:
                if self.value >= self.target:
                    parts.append(f"ok ({r:.2f}x of target)")
                else:
                    parts.append(f"MISSED: {r:.2f}x of the target (short by {_fmt(self.target - self.value)} "
                                 f"{self.unit})")
        if self.notes:
            parts.append(self.notes)
        return "; ".join(parts)


def _fmt(v: Optional[float]) -> str:
    if v is None:
        return "-"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a >= 0.01:
        return f"{v:.3f}"
    if a >= 0.0001:
        return f"{v:.4f}"
    return f"{v:.2e}"


def render_table(rows: List[Row]) -> str:
    header = ("metric", "value", "unit", "target", "ratio / notes")
    cells = [header]
    for r in rows:
        tgt = f"{r.op} {_fmt(r.target)}" if r.target is not None else "-"
        cells.append((r.metric, _fmt(r.value), r.unit, tgt, r.verdict()))
    w = [max(len(c[i]) for c in cells) for i in range(4)]
    lines = []
    for i, c in enumerate(cells):
        lines.append(f"{c[0]:<{w[0]}}  {c[1]:>{w[1]}}  {c[2]:<{w[2]}}  {c[3]:<{w[3]}}  {c[4]}".rstrip())
        if i == 0:
            lines.append("  ".join("-" * x for x in w) + "  " + "-" * 13)
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# timing helpers
# ---------------------------------------------------------------------------


CHAIN_SOURCE = """\
import ptokit.language as pl


@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[128, 128], pl.FP32],
          out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [128, 128])
{body}
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 128], pl.FP32], y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
        y = self.k(x, y)
        return y
"""


def estimate_ratio(call: Callable[[object], object], reps: int):
    """(estimated / plain, plain s, estimated s): median whole-call times of ``call(RunConfig(...))`` with and
    without ``estimate=True``, the two alternating so that both see the same machine load."""
    from ptokit.runtime import RunConfig
    plain_cfg, est_cfg = RunConfig(), RunConfig(estimate=True)
    call(plain_cfg)
    call(est_cfg)
    plain, est = [], []
    for _ in range(max(reps, 3)):
        for cfg, into in ((plain_cfg, plain), (est_cfg, est)):
            t0 = time.perf_counter()
            call(cfg)
            into.append(time.perf_counter() - t0)
    p, e = statistics.median(plain), statistics.median(est)
    return e / p, p, e


@contextlib.contextmanager
def uncached_compiles():
    """``ptokit.compile`` without its compile cache (``PTOKIT_CACHE=0``), for rows that time the compiler."""
    old = os.environ.get("PTOKIT_CACHE")
    os.environ["PTOKIT_CACHE"] = "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PTOKIT_CACHE", None)
        else:
            os.environ["PTOKIT_CACHE"] = old


def median_time(fn: Callable[[], object], reps: int, warmup: int = 1) -> float:
    """Median wall-clock seconds of ``fn()`` over ``reps`` calls (after ``warmup`` calls)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class Bench:
    def __init__(self, quick: bool, work: Path, log: Callable[[str], None]):
        self.quick = quick
        self.work = work
        self.log = log
        self.rows: List[Row] = []
        self._n = 0
        self.reps = 3 if quick else 9            # cheap things
        self.cold_reps = 1 if quick else 3       # cold g++ builds
        self.cache = work / "cache"
        os.environ["PTOKIT_CACHE_DIR"] = str(self.cache)

    def add(self, key, metric, value, unit, op="", target=None, notes="", reps=0):
        assert key in ROW_KEYS, key
        self.rows.append(Row(key, metric, value, unit, op, target, notes, reps))

    def fresh_dir(self, stem: str) -> Path:
        self._n += 1
        d = self.work / f"{stem}_{self._n}"
        d.mkdir(parents=True)
        return d

    def with_cache(self, folder: Path, fn):
        """Run ``fn()`` with PTOKIT_CACHE_DIR pointing at ``folder``."""
        old = os.environ["PTOKIT_CACHE_DIR"]
        os.environ["PTOKIT_CACHE_DIR"] = str(folder)
        try:
            return fn()
        finally:
            os.environ["PTOKIT_CACHE_DIR"] = old

    def sorted_rows(self) -> List[Row]:
        order = {k: i for i, k in enumerate(ROW_KEYS)}
        return sorted(self.rows, key=lambda r: order[r.key])

    # -----------------------------------------------------------------------

    def import_time(self):
        code = ("import time; t0 = time.perf_counter(); import ptokit; "
                "print(time.perf_counter() - t0)")
        env = dict(os.environ)
        times = []
        for _ in range(max(3, self.reps // 2)):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                 check=True, cwd=str(self.work))
            times.append(float(out.stdout.strip().splitlines()[-1]))
        self.add("import_time", "import ptokit (fresh process)", statistics.median(times), "s", "<=", 0.2,
                 reps=len(times))

    def compile_times(self):
        with uncached_compiles():      # these rows time the compiler itself, not the compile cache
            self._compile_times()
            self.compile_chain()
        import ptokit
        from bench_programs import TwoKernels
        ptokit.compile(TwoKernels, output_dir=self.fresh_dir("two"))      # enters it in the compile cache
        s = median_time(lambda: ptokit.compile(TwoKernels, output_dir=self.fresh_dir("two")), self.reps)
        self.add("compile_cached", "  compile TwoKernels again: a compile cache hit", s * 1e3, "ms",
                 notes="source and options unchanged: the cached tree written out, nothing compiled", reps=self.reps)

    def _compile_times(self):
        import ptokit
        from bench_programs import TwoKernels

        t0 = time.perf_counter()
        first = ptokit.compile(TwoKernels, output_dir=self.fresh_dir("two"))
        first_s = time.perf_counter() - t0
        self.two = first
        self.add("compile_first", "compile TwoKernels: first in this process", first_s * 1e3, "ms",
                 notes="includes lazy imports and first-use setup; the stage rows below are warm", reps=1)
        runs = []
        for _ in range(self.reps):
            c = ptokit.compile(TwoKernels, output_dir=self.fresh_dir("two"))
            runs.append(c.times)
        med = {k: statistics.median(getattr(t, k) for t in runs) * 1e3
               for k in ("parse", "passes", "pto", "assemble", "orchestration", "config")}
        to_pto = statistics.median((t.parse + t.passes + t.pto + t.config) for t in runs) * 1e3
        total = statistics.median(t.total() for t in runs) * 1e3
        from ptokit.backend.ptoas import find_ptoas
        ext = find_ptoas()
        asm_note = f"external ptoas {ext}" if ext else "built-in assembler + wrapper, 2 kernels in a thread pool"
        labels = [("compile_parse", "parse", "parse (DSL source -> IR)", ""),
                  ("compile_passes", "passes", "passes", ""),
                  ("compile_pto", "pto", "PTO codegen (.pto)", ""),
                  ("compile_assemble", "assemble", "assemble + wrap", asm_note),
                  ("compile_orchestration", "orchestration", "orchestration C++", ""),
                  ("compile_config", "config", "kernel_config.py", "")]
        for key, field, label, note in labels:
            self.add(key, f"  compile stage: {label}", med[field], "ms", notes=note, reps=len(runs))
        self.add("compile_to_pto_config", "compile TwoKernels to .pto + config", to_pto, "ms", "<=", 50.0,
                 notes="parse+passes+pto+config; peer C++-core compiler ~110 ms", reps=len(runs))
        self.add("compile_tree", "compile TwoKernels: whole artifact tree", total, "ms", "<=", 100.0,
                 notes="sum of the six stages", reps=len(runs))

    def compile_chain(self, ops: int = 150):
        """A kernel of ``ops`` element-wise instructions in a row (one fused run): compile time must
        grow with the length, not its cube (the run search checks each instruction once)."""
        import importlib.util
        import ptokit
        body = "\n".join(f"        t = pl.{'adds' if i % 2 == 0 else 'muls'}(t, {1.0 + (i % 7) * 0.001})"
                         for i in range(ops))
        path = self.work / f"bench_chain_{ops}.py"
        path.write_text(CHAIN_SOURCE.format(body=body))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = mod
        spec.loader.exec_module(mod)
        reps = max(3, self.reps // 3)
        s = median_time(lambda: ptokit.compile(mod.Chain, output_dir=self.fresh_dir("chain")), reps)
        self.add("compile_chain_150", f"compile a kernel of {ops} element-wise ops: whole tree", s * 1e3, "ms",
                 "<=", 1000.0, notes="one fused run of 128x128 FP32 tiles", reps=reps)

    def assembler(self):
        from ptokit.backend.assembler import assemble_text
        text = (self.two.output_dir / "ptoas" / "add.pto").read_text()
        n_lines = len(text.splitlines())
        s = median_time(lambda: assemble_text(text, filename="add.pto", arch="a2a3"), self.reps * 2)
        self.add("assembler_small", f"built-in assembler alone, small kernel ({n_lines} lines)", s * 1e3, "ms",
                 "<=", 20.0, notes="native assembler ~20 ms", reps=self.reps * 2)

    def builds(self):
        from ptokit.runtime import build as B
        from ptokit.runtime.sim import driver

        # the simulator's runtime library, cold (built once per cache; informative)
        t0 = time.perf_counter()
        driver.library_path()
        self.add("build_runtime_lib_cold", "g++ simulator runtime library (cold, once per cache)",
                 time.perf_counter() - t0, "s", notes="libptosim; built once, then a cache hit", reps=1)

        cfg = self.two.config
        jobs = B.tree_jobs(cfg)
        kjob = jobs[1]   # the first kernel (orchestration is jobs[0])

        def build_kernel():
            return B.compile_shared(kjob.source, defines=kjob.defines, include_dirs=kjob.include_dirs,
                                    extra_flags=kjob.extra_flags, name_hint=kjob.name_hint)

        # the tile library's precompiled header: made once per cache and flag list, like libptosim
        # (ptokit/runtime/pch.py); every fresh cache below starts with a copy of it
        seed = self.fresh_dir("pch_seed")
        t0 = time.perf_counter()
        hpp = self.with_cache(seed, lambda: B.precompiled_header(
            kjob.source, defines=kjob.defines, include_dirs=kjob.include_dirs, extra_flags=kjob.extra_flags))
        pch_note = ("the tile library's headers precompiled (g++ -x c++-header); once per cache and flag list"
                    if hpp else "no precompiled header here (clang, PTOKIT_NO_PCH=1, or g++ refused it)")
        self.add("build_pch_cold", "g++ precompiled header of the tile library (once per cache)",
                 time.perf_counter() - t0, "s", notes=pch_note, reps=1)

        def fresh_cache() -> Path:
            folder = self.fresh_dir("cold_cache")
            src = seed / "build" / "pch"
            if src.is_dir():
                from ptokit.runtime import cachedir
                dst = cachedir.ensure_dir(folder / "build" / "pch")
                for f in src.iterdir():
                    if not f.name.endswith(".lock"):
                        shutil.copy2(f, dst / f.name)
            return folder

        cold, headers = [], []
        for _ in range(self.cold_reps):
            folder = fresh_cache()
            t0 = time.perf_counter()
            self.with_cache(folder, build_kernel)
            cold.append(time.perf_counter() - t0)
            folder = self.fresh_dir("cold_cache")
            os.environ["PTOKIT_NO_PCH"] = "1"
            try:
                t0 = time.perf_counter()
                self.with_cache(folder, build_kernel)
                headers.append(time.perf_counter() - t0)
            finally:
                del os.environ["PTOKIT_NO_PCH"]
        self.add("build_kernel_cold", f"g++ one kernel, cold ({Path(kjob.source).name}, fresh cache)",
                 statistics.median(cold), "s", "<=", 0.5,
                 notes="the cache holds the precompiled header (row above); vendor simulator ~1.85 s", reps=len(cold))
        self.add("build_kernel_cold_headers", "  the same without the precompiled header (PTOKIT_NO_PCH=1)",
                 statistics.median(headers), "s", notes="the tile library's headers parsed by this g++ run",
                 reps=len(headers))
        # the compiler's own floor: an empty translation unit with the same flags (no headers)
        empty = self.work / "empty.cpp"
        empty.write_text("extern \"C\" int bench_empty(void) { return 0; }\n")
        floor = []
        for _ in range(max(2, self.cold_reps)):
            folder = self.fresh_dir("cold_cache")
            t0 = time.perf_counter()
            self.with_cache(folder, lambda: B.compile_shared(empty, defines=kjob.defines,
                                                             extra_flags=kjob.extra_flags))
            floor.append(time.perf_counter() - t0)
        self.add("build_gxx_floor", "  g++ floor: an empty .cpp, same flags, no headers",
                 statistics.median(floor), "s", notes="what the kernel's headers and code add is the difference",
                 reps=len(floor))
        build_kernel()  # into the bench cache
        hit = median_time(build_kernel, self.reps * 2)
        self.add("build_kernel_cached", "build one kernel, cache hit", hit * 1e3, "ms",
                 notes="key = hash of source, headers, flags, compiler", reps=self.reps * 2)

        tree = self.two.output_dir
        cold = []
        for _ in range(self.cold_reps):
            folder = fresh_cache()
            t0 = time.perf_counter()
            self.with_cache(folder, lambda: B.build_tree(tree))
            cold.append(time.perf_counter() - t0)
        self.add("build_tree_cold", f"g++ whole TwoKernels tree, cold ({len(jobs)} objects, parallel)",
                 statistics.median(cold), "s", notes=f"{os.cpu_count()} cores; the precompiled header in the cache", reps=len(cold))
        B.build_tree(tree)
        hit = median_time(lambda: B.build_tree(tree), self.reps * 2)
        self.add("build_tree_cached", "build whole TwoKernels tree, cache hit", hit * 1e3, "ms",
                 notes="read kernel_config.py + hash every source and header", reps=self.reps * 2)

    def one_task(self):
        import numpy as np
        import ptokit
        from bench_programs import S, OneTask

        c = ptokit.compile(OneTask, output_dir=self.fresh_dir("one"))
        a = np.ones((S, S), np.float32)
        b = np.full((S, S), 2.0, np.float32)
        y = np.zeros((S, S), np.float32)
        c(a, b, y)      # the build, and the simulator's threads started
        if not np.allclose(y, 3.0):
            raise RuntimeError("OneTask produced a wrong result")
        reps = self.reps * 3
        sims = []

        def call():
            sims.append(c(a, b, y).elapsed)

        s = median_time(call, reps)
        self.add("run_one_task", "one-task run after the build (compiled(...) call)", s * 1e3, "ms", "<=", 5.0,
                 notes="build-cache check + pack + simulate + copy back; vendor 27-115 ms", reps=reps)
        self.add("run_one_task_sim", "  of which simulated (orchestration start to task end)",
                 statistics.median(sims[-reps:]) * 1e3, "ms", reps=reps)

    def overhead(self):
        import numpy as np
        from ptokit.runtime.build import INCLUDE_DIR, BuildJob, build_many
        from ptokit.runtime.config import RunConfig
        from ptokit.runtime.sim import KernelBinary, run_binaries

        src = CASES / "overhead.cpp"
        jobs = [BuildJob(src, ("__CPU_SIM", "__DAV_VEC__", "B_NOOP"), [INCLUDE_DIR], ["-Werror"], "bench:noop"),
                BuildJob(src, ("__CPU_SIM", "B_CHAIN"), [INCLUDE_DIR], ["-Werror"], "bench:chain"),
                BuildJob(src, ("__CPU_SIM", "B_FAN"), [INCLUDE_DIR], ["-Werror"], "bench:fan"),
                BuildJob(src, ("__CPU_SIM", "B_CHAIN_SCOPED"), [INCLUDE_DIR], ["-Werror"], "bench:chain_scoped")]
        noop, chain, fan, scoped = build_many(jobs)
        kernels = [KernelBinary(0, str(noop), "noop", "aiv")]
        y = np.zeros(16, np.float32)
        reps = max(3, self.reps - 2)
        for runtime, tag in RUNTIMES:
            cfg = RunConfig(runtime=runtime)
            for key, orch, label, target, edges in (("chain", chain, "chain", 15.0, N_TASKS - 1),
                                                    ("fan", fan, "fan", 2.0, 0)):
                run_binaries(str(orch), kernels, [y, N_TASKS], cfg)   # warm
                per = []
                for _ in range(reps):
                    r = run_binaries(str(orch), kernels, [y, N_TASKS], cfg)
                    if r.tasks != N_TASKS or len(r.timeline.edges) != edges:
                        raise RuntimeError(f"{label}: {r.tasks} tasks, {len(r.timeline.edges)} edges")
                    per.append(r.elapsed / N_TASKS * 1e6)
                kind = "dependent" if key == "chain" else "independent"
                note = ("vendor 25-35 us" if key == "chain" else "") + \
                       ("; " if key == "chain" else "") + f"{runtime}, no-op kernels, {r.schedulers} schedulers"
                self.add(f"{key}_{tag}", f"per-task overhead: {label} of {N_TASKS} {kind} tasks [{tag}]",
                         statistics.median(per), "us/task", "<=", target, notes=note, reps=reps)

        # growth: the per-task cost must stay flat from 1k to 100k tasks. One scope holds at most
        # task_ring_size (16384) tasks, so the 100k chain gives each task a scope of its own
        cfg = RunConfig(runtime="tensormap_and_ringbuffer")
        for key, orch, n, label in (("chain_10k_tmr", chain, 10_000, "chain of 10k dependent tasks, one scope"),
                                    ("chain_scoped_1k_tmr", scoped, 1_000, "chain of 1k tasks, a scope per task"),
                                    ("chain_scoped_100k_tmr", scoped, 100_000,
                                     "chain of 100k tasks, a scope per task")):
            run_binaries(str(orch), kernels, [y, n], cfg)   # warm
            per = []
            for _ in range(reps if n < 100_000 else max(1, reps // 2)):
                r = run_binaries(str(orch), kernels, [y, n], cfg)
                if r.tasks != n:
                    raise RuntimeError(f"{label}: {r.tasks} tasks")
                per.append(r.elapsed / n * 1e6)
            self.add(key, f"per-task overhead: {label} [tmr]", statistics.median(per), "us/task", "<=", 15.0,
                     notes="flat growth: compare with the 1k rows above", reps=len(per))

        # the race checker (RunConfig.race_check): per-task cost of a MANUAL scope's chain (deps=
        # edges) and fan (disjoint windows), checker off vs on; the ratio is the checker's overhead
        mchain, mfan = build_many([
            BuildJob(src, ("__CPU_SIM", "B_MANUAL_CHAIN"), [INCLUDE_DIR], ["-Werror"], "bench:manual_chain"),
            BuildJob(src, ("__CPU_SIM", "B_MANUAL_FAN"), [INCLUDE_DIR], ["-Werror"], "bench:manual_fan")])
        yfan = np.zeros(N_TASKS, np.float32)
        for key, orch, arr, edges in (("chain", mchain, y, N_TASKS - 1), ("fan", mfan, yfan, 0)):
            per = {}
            for mode in ("off", "manual"):
                # schedule="default": the checker's cost alone ("auto" would also run the checked
                # scope reversed, one block at a time)
                cfg = RunConfig(runtime="tensormap_and_ringbuffer", race_check=mode, schedule="default")
                run_binaries(str(orch), kernels, [arr, N_TASKS], cfg)   # warm
                times = []
                for _ in range(reps):
                    r = run_binaries(str(orch), kernels, [arr, N_TASKS], cfg)
                    if r.tasks != N_TASKS or len(r.timeline.edges) != edges or r.races:
                        raise RuntimeError(f"manual {key}: {r.tasks} tasks, {len(r.timeline.edges)} edges, "
                                           f"{len(r.races)} races")
                    times.append(r.elapsed / N_TASKS * 1e6)
                per[mode] = statistics.median(times)
                self.add(f"race_{key}_{mode}_tmr", f"per-task overhead: MANUAL-scope {key} of {N_TASKS} tasks, "
                         f"race_check={mode!r} [tmr]", per[mode], "us/task", "<=" if key == "chain" else "",
                         15.0 if key == "chain" else None, reps=reps,
                         notes="no-op kernels" + ("" if key == "chain" else "; 1000 one-element windows written "
                                                  "(the TensorMap's cover scan of them dominates, checker or not)"))
            self.add(f"race_{key}_ratio_tmr", f"  race checker overhead on the {key}: on / off", per["manual"] /
                     per["off"], "x", "<=", 3.0, notes="issue 21: within 3x", reps=reps)

        # the race checker on real kernels whose declared regions all overlap: a MANUAL-scope
        # two-stage pipeline over one scratch tensor (every pair of tasks is judged on the bytes
        # its kernels touched); checker off vs on, schedule="default" (the checker's cost alone)
        import ptokit
        from bench_programs import RP_T, make_race_pipeline
        for m, n, suffix in ((8, 8, ""), (16, 16, "_512"), (32, 32, "_2048")):
            self.race_pipeline(ptokit, make_race_pipeline(m, n), m, n, RP_T, suffix, reps)

        # the same chain from the DSL, with a real (8x8 tile) kernel per task
        from bench_programs import DslChain
        c = ptokit.compile(DslChain, output_dir=self.fresh_dir("dslchain"))
        yy = np.zeros((8, 8), np.float32)
        for runtime, tag in RUNTIMES:
            cfg = RunConfig(runtime=runtime)
            c(yy, N_TASKS, config=cfg)
            per = []
            start = float(yy[0, 0])
            for _ in range(reps):
                r = c(yy, N_TASKS, config=cfg)
                per.append(r.elapsed / N_TASKS * 1e6)
            if float(yy[0, 0]) != start + reps * N_TASKS:
                raise RuntimeError("DslChain produced a wrong result")
            self.add(f"dsl_chain_{tag}", f"DSL chain of {N_TASKS} tasks, y += 1 on an 8x8 tile [{tag}]",
                     statistics.median(per), "us/task", "<=", 15.0, notes="task overhead + tile load/add/store",
                     reps=reps)
        ratio, plain, est = estimate_ratio(lambda cfg: c(yy, N_TASKS, config=cfg), reps)
        self.add("dsl_chain_estimate_tmr", f"  the chain [tmr] with RunConfig(estimate=True): call time vs plain",
                 ratio, "x", "<=", 1.5, notes=f"{plain * 1e3:.2f} ms plain, {est * 1e3:.2f} ms estimated (paired, "
                 "median); issue 32: at most 1.5x", reps=reps)

    def race_pipeline(self, ptokit, program, m, n, tile, suffix, reps):
        """The race checker on real kernels whose declared regions all overlap: a MANUAL-scope
        two-stage pipeline of 2*m*n tasks over one scratch tensor; checker off vs on,
        schedule="default" (the checker's cost alone).  The ratio must stay flat as m*n grows."""
        import numpy as np
        from ptokit.runtime import RunConfig
        c = ptokit.compile(program, output_dir=self.fresh_dir(f"racepipeline{suffix}"))
        xp = np.random.default_rng(0).standard_normal((m * tile, n * tile)).astype(np.float32)
        n_pipe = 2 * m * n
        per = {}
        for mode in ("off", "manual"):
            cfg = RunConfig(runtime="tensormap_and_ringbuffer", race_check=mode, schedule="default")
            times = []
            for _ in range(reps + 1):
                sp, op = np.zeros_like(xp), np.zeros_like(xp)
                r = c(xp, sp, op, config=cfg)
                if r.tasks != n_pipe or r.races or not np.allclose(op, 2 * xp + 1, rtol=1e-6):
                    raise RuntimeError(f"race pipeline: {r.tasks} tasks, {len(r.races)} races or wrong numbers")
                times.append(r.elapsed / n_pipe * 1e6)
            per[mode] = statistics.median(times[1:])   # the first run warms up
            self.add(f"race_pipeline{suffix}_{mode}_tmr", f"per-task cost: MANUAL-scope pipeline of {n_pipe} tasks "
                     f"on one scratch tensor, race_check={mode!r} [tmr]", per[mode], "us/task", "", None, reps=reps,
                     notes=f"{m}x{n} tiles of {tile}x{tile} f32, 2 stages; every declared region overlaps")
        self.add(f"race_pipeline{suffix}_ratio_tmr", f"  race checker overhead on the pipeline of {n_pipe} tasks: "
                 f"on / off", per["manual"] / per["off"], "x", "<=", 3.0,
                 notes="issue 31: judged on touched bytes, within 3x at every size", reps=reps)

    def elementwise(self):
        import numpy as np
        import ptokit
        from bench_programs import (EW_BLOCK, EW_COLS, EW_ROWS, EW_ROWS_LARGE, EW_SPMD, StreamAdd, StreamAddSpmd,
                              StreamCopy, make_stream_add)

        rng = np.random.default_rng(0)
        a = rng.standard_normal((EW_ROWS, EW_COLS), dtype=np.float32)
        b = rng.standard_normal((EW_ROWS, EW_COLS), dtype=np.float32)
        y = np.zeros_like(a)
        ref = a + b
        moved = 3 * a.nbytes    # read a, read b, write y
        size = f"{EW_ROWS}x{EW_COLS} f32, {moved / 2**20:.0f} MiB moved"
        reps = self.reps

        t_np = median_time(lambda: np.add(a, b, out=y), reps * 2)
        np_gbs = moved / t_np / 1e9
        self.add("ew_numpy", f"numpy np.add(a, b, out=y), {size}", np_gbs, "GB/s",
                 notes=f"{t_np * 1e3:.2f} ms", reps=reps * 2)

        compiled = {}

        def sim(prog, stem, args=(a, b, y), expect=ref, config=None):
            if stem not in compiled:
                compiled[stem] = ptokit.compile(prog, output_dir=self.fresh_dir(stem))
            c = compiled[stem]
            out = args[-1]
            out[:] = 0
            c(*args, config=config)
            if not np.array_equal(out, expect):
                raise RuntimeError(f"{prog.name} produced a wrong result")
            span, el, wall = [], [], []
            for _ in range(reps):
                t0 = time.perf_counter()
                r = c(*args, config=config)
                wall.append(time.perf_counter() - t0)
                el.append(r.elapsed)
                blk = r.timeline.blocks     # first block start to last block end: the kernel's own time
                span.append((int(blk["end_ns"].max()) - int(blk["start_ns"].min())) / 1e9)
            return statistics.median(span), statistics.median(el), statistics.median(wall)

        def note(span, el):
            return (f"{moved / span / 1e9:.2f} GB/s over the kernel's {span * 1e3:.2f} ms; run "
                    f"(dispatch included) {el * 1e3:.2f} ms = {moved / el / np_gbs / 1e9:.2f}x numpy")

        span, el, wall = sim(StreamAdd, "stream")
        self.add("ew_sim", f"simulated y = a + b, one kernel looping over {EW_ROWS // EW_BLOCK} row blocks",
                 moved / span / 1e9 / np_gbs, "x numpy", ">=", 0.6, notes=note(span, el), reps=reps)
        ratio, plain, est = estimate_ratio(lambda cfg: compiled["stream"](a, b, y, config=cfg), reps)
        self.add("ew_sim_estimate", "  the same with RunConfig(estimate=True): call time vs plain", ratio, "x", "<=",
                 1.5, notes=f"{plain * 1e3:.2f} ms plain, {est * 1e3:.2f} ms estimated (paired, median); issue 32: "
                 "at most 1.5x", reps=reps)
        os.environ["PTOKIT_NO_FUSION"] = "1"
        try:
            span_u, _, _ = sim(StreamAdd, "stream")
        finally:
            os.environ.pop("PTOKIT_NO_FUSION", None)
        self.add("ew_sim_unfused", "  the same, built unfused (PTOKIT_NO_FUSION=1)", moved / span_u / 1e9 / np_gbs,
                 "x numpy", notes=f"kernel {span_u * 1e3:.2f} ms; fused, the TADD reads and writes the GM windows "
                 "(loads and stores absorbed); unfused, TLOAD / TADD / TSTORE through the tiles", reps=reps)
        span2, el2, _ = sim(StreamAddSpmd, "stream_spmd")
        self.add("ew_sim_spmd", f"simulated y = a + b, one SPMD task of {EW_SPMD} blocks",
                 moved / span2 / 1e9 / np_gbs, "x numpy", ">=", 0.6,
                 notes=note(span2, el2) + f"; blocks share {os.cpu_count()} cores", reps=reps)
        moved_c = 2 * a.nbytes
        el3, _, _ = sim(StreamCopy, "stream_copy", (a, y), a)
        t_npc = median_time(lambda: np.copyto(y, a), reps * 2)
        self.add("ew_sim_copy", "  simulated y = a (the same loop, load + store only)", moved_c / el3 / 1e9, "GB/s",
                 notes=f"kernel {el3 * 1e3:.2f} ms: the data-movement share of the add", reps=reps)
        self.add("ew_numpy_copy", "  numpy np.copyto(y, a)", moved_c / t_npc / 1e9, "GB/s",
                 notes=f"{t_npc * 1e3:.2f} ms", reps=reps * 2)
        # the large size: past the last-level cache
        la = rng.standard_normal((EW_ROWS_LARGE, EW_COLS), dtype=np.float32)
        lb = np.ones_like(la)
        ly = np.zeros_like(la)
        lmoved = 3 * la.nbytes
        t_npl = median_time(lambda: np.add(la, lb, out=ly), reps)
        npl_gbs = lmoved / t_npl / 1e9
        self.add("ew_numpy_large", f"numpy np.add, {EW_ROWS_LARGE}x{EW_COLS} f32, {lmoved / 2**20:.0f} MiB moved",
                 npl_gbs, "GB/s", notes=f"{t_npl * 1e3:.2f} ms", reps=reps)
        span4, el4, _ = sim(make_stream_add(EW_ROWS_LARGE), "stream_large", (la, lb, ly), la + lb)
        gbs4 = lmoved / span4 / 1e9
        self.add("ew_sim_large", f"simulated y = a + b, {EW_ROWS_LARGE // EW_BLOCK} row blocks (large size)",
                 gbs4 / npl_gbs, "x numpy", ">=", 0.8,
                 notes=f"{gbs4:.2f} GB/s over the kernel's {span4 * 1e3:.2f} ms; run {el4 * 1e3:.2f} ms", reps=reps)
        self.whole_call(compiled["stream"], a, b, y, ref, reps)

    def whole_call(self, c, a, b, y, ref, reps):
        """The whole ``compiled(a, b, y)`` call, arrays in place and with RunConfig(in_place=False),
        interleaved with numpy's add (the three drift together on a loaded machine)."""
        import numpy as np
        from ptokit.runtime.config import RunConfig
        copied = RunConfig(in_place=False)
        t_np, t_in, t_cp, el = [], [], [], []
        for _ in range(reps * 2):
            t0 = time.perf_counter()
            np.add(a, b, out=y)
            t1 = time.perf_counter()
            r = c(a, b, y)
            t2 = time.perf_counter()
            c(a, b, y, config=copied)
            t3 = time.perf_counter()
            t_np.append(t1 - t0)
            t_in.append(t2 - t1)
            t_cp.append(t3 - t2)
            el.append(r.elapsed)
        if not np.array_equal(y, ref) or r.copied:
            raise RuntimeError("the whole-call add produced a wrong result or copied an array")
        tn, ti, tc, te = (statistics.median(v) for v in (t_np, t_in, t_cp, el))
        self.add("ew_call", "  y = a + b, the whole compiled(a, b, y) call (arrays in place)", tn / ti,
                 "x numpy", ">=", 0.3, notes=f"{ti * 1e3:.2f} ms vs numpy {tn * 1e3:.2f} ms: the run "
                 f"{te * 1e3:.2f} ms (kernel + dispatch), the rest the cache check (a stat), argument checks "
                 f"and the run's records", reps=reps * 2)
        self.add("ew_call_copied", "  the same call with RunConfig(in_place=False) (device copies)", tn / tc,
                 "x numpy", notes=f"{tc * 1e3:.2f} ms; calls interleaved with the row above", reps=reps * 2)

    def row_kernels(self):
        """Row softmax and layer norm over the stream's data, against numpy, with the tile library's
        fast loops and its reference loops (PTOKIT_TILE_REFERENCE_LOOPS=1: same bits)."""
        import numpy as np
        import ptokit
        from bench_programs import (EW_BLOCK, EW_COLS, EW_ROWS, EW_ROWS_LARGE, StreamLayerNorm, StreamSoftmax,
                                    make_stream_layernorm, make_stream_softmax)

        rng = np.random.default_rng(3)
        x = rng.standard_normal((EW_ROWS, EW_COLS), dtype=np.float32)
        g = rng.standard_normal((1, EW_COLS), dtype=np.float32)
        bt = rng.standard_normal((1, EW_COLS), dtype=np.float32)
        y = np.zeros_like(x)
        reps = self.reps

        def np_softmax(x, y, m, s):
            np.max(x, axis=1, keepdims=True, out=m)
            np.subtract(x, m, out=y)
            np.exp(y, out=y)
            np.sum(y, axis=1, keepdims=True, out=s)
            np.divide(y, s, out=y)

        def np_layernorm(x, y, c, m, g, bt):
            np.mean(x, axis=1, keepdims=True, out=m)
            np.subtract(x, m, out=c)
            np.multiply(c, c, out=y)
            np.mean(y, axis=1, keepdims=True, out=m)
            m += np.float32(1e-5)
            np.sqrt(m, out=m)
            np.divide(np.float32(1), m, out=m)
            np.multiply(c, m, out=y)
            y *= g
            y += bt

        # the builds compared: fused runs (the default), the same C++ built with PTOKIT_NO_FUSION=1
        # (-DPTO_CPU_NO_FUSION: the unfused instructions), and the tile library's reference loops
        VARIANTS = {"fused": {}, "unfused": {"PTOKIT_NO_FUSION": "1"},
                    "ref": {"PTOKIT_TILE_REFERENCE_LOOPS": "1", "PTOKIT_NO_FUSION": "1"}}

        def with_env(v, fn):
            keys = ("PTOKIT_NO_FUSION", "PTOKIT_TILE_REFERENCE_LOOPS")
            old = {k: os.environ.get(k) for k in keys}
            for k in keys:
                os.environ[k] = VARIANTS[v].get(k, "0")
            try:
                return fn()
            finally:
                for k, o in old.items():
                    if o is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = o

        def kernel_spans(prog, stem, args, check, np_fn, variants=("fused", "unfused", "ref"), reps=reps):
            """Per variant (VARIANTS): the median kernel span and the median of numpy's time over the
            span, numpy timed right before each kernel run (the machine is shared: pairs drift
            together); also numpy's median time and each variant's output."""
            c = ptokit.compile(prog, output_dir=self.fresh_dir(stem))
            outs = {}
            for v in variants:
                with_env(v, lambda: c(*args))
                check(args[-1])
                outs[v] = args[-1].copy()
            np_fn()
            spans = {v: [] for v in variants}
            ratios = {v: [] for v in variants}
            nps = []
            for _ in range(reps):
                for v in variants:
                    t0 = time.perf_counter()
                    np_fn()
                    t_np = time.perf_counter() - t0
                    blk = with_env(v, lambda: c(*args)).timeline.blocks
                    span = (int(blk["end_ns"].max()) - int(blk["start_ns"].min())) / 1e9
                    spans[v].append(span)
                    ratios[v].append(t_np / span)
                    nps.append(t_np)
            med = statistics.median
            same = all(np.array_equal(outs[v].view(np.uint32), outs[variants[0]].view(np.uint32)) for v in variants)
            if not same:
                raise RuntimeError(f"{stem}: the fused, unfused and reference builds gave different bits")
            return ({v: med(ratios[v]) for v in variants}, {v: med(spans[v]) for v in variants}, med(nps), same)

        def rows_of(key, label, target, ratio, sp, same, note="", n=reps):
            self.add(f"{key}_sim", label, ratio["fused"], "x numpy", ">=", target,
                     notes=f"kernel {sp['fused'] * 1e3:.2f} ms (fused runs){note}", reps=n)
            self.add(f"{key}_sim_unfused", "  the same, built unfused (PTOKIT_NO_FUSION=1)", ratio["unfused"],
                     "x numpy", notes=f"kernel {sp['unfused'] * 1e3:.2f} ms, "
                     f"{sp['unfused'] / sp['fused']:.2f}x the fused kernel's time; runs interleaved; output bit-identical: "
                     f"{same}",
                     reps=n)
            if "ref" in ratio:
                self.add(f"{key}_sim_ref", "  the same, tile library's reference loops (unfused)", ratio["ref"],
                         "x numpy", notes=f"kernel {sp['ref'] * 1e3:.2f} ms; output bit-identical: {same}", reps=n)

        m = np.zeros((EW_ROWS, 1), np.float32)
        sm = np.zeros((EW_ROWS, 1), np.float32)
        ref = np.zeros_like(x)
        np_softmax(x, ref, m, sm)
        def ok_softmax(out):
            if not np.allclose(out, ref, rtol=1e-5, atol=1e-7):
                raise RuntimeError("StreamSoftmax produced a wrong result")
        yn = np.zeros_like(x)
        ratio, sp, t_np, same = kernel_spans(StreamSoftmax, "softmax", (x, y), ok_softmax,
                                             lambda: np_softmax(x, yn, m, sm))
        self.add("softmax_numpy", f"numpy row softmax, {EW_ROWS}x{EW_COLS} f32 (max, sub, exp, sum, div; out=)",
                 t_np * 1e3, "ms", notes="timed right before each kernel run of the rows below", reps=3 * reps)
        rows_of("softmax", f"simulated row softmax, one kernel over {EW_ROWS // EW_BLOCK} blocks of "
                f"{EW_BLOCK}x{EW_COLS}", 0.8, ratio, sp, same, "; TEXP is libm's scalar expf per element")

        c = np.zeros_like(x)
        lref2 = np.zeros_like(x)
        np_layernorm(x, lref2, c, m, g, bt)
        def ok_ln(out):
            if not np.allclose(out, lref2, rtol=1e-4, atol=1e-5):
                raise RuntimeError("StreamLayerNorm produced a wrong result")
        ratio, sp, t_ln, same = kernel_spans(StreamLayerNorm, "layernorm", (x, g, bt, y), ok_ln,
                                             lambda: np_layernorm(x, yn, c, m, g, bt))
        self.add("layernorm_numpy", f"numpy layer norm, {EW_ROWS}x{EW_COLS} f32 (mean, var, rsqrt, scale, shift)",
                 t_ln * 1e3, "ms", notes="timed right before each kernel run of the rows below", reps=3 * reps)
        rows_of("layernorm", "simulated layer norm, one kernel over the same blocks", 0.6, ratio, sp, same)
        del y, yn, c, lref2, ref

        # past the last-level cache: 131072x128 (64 MiB in, 64 MiB out)
        lx = rng.standard_normal((EW_ROWS_LARGE, EW_COLS), dtype=np.float32)
        ly = np.zeros_like(lx)
        lyn = np.zeros_like(lx)
        lm = np.zeros((EW_ROWS_LARGE, 1), np.float32)
        ls = np.zeros((EW_ROWS_LARGE, 1), np.float32)
        lref = np.zeros_like(lx)
        np_softmax(lx, lref, lm, ls)
        big = ("fused", "unfused")
        big_reps = 1 if self.quick else reps     # the smoke test's time: the large kernels once each

        def ok_large(out):
            if not np.allclose(out, lref, rtol=1e-5, atol=1e-7):
                raise RuntimeError("StreamSoftmax (large) produced a wrong result")
        rl, sl, t_npl, same = kernel_spans(make_stream_softmax(EW_ROWS_LARGE), "softmax_large", (lx, ly), ok_large,
                                           lambda: np_softmax(lx, lyn, lm, ls), variants=big, reps=big_reps)
        rows_of("softmax_large", f"simulated row softmax, {EW_ROWS_LARGE}x{EW_COLS} f32 (128 MiB moved)", 0.8,
                rl, sl, same, f"; numpy {t_npl * 1e3:.1f} ms", n=big_reps)
        lc = np.zeros_like(lx)
        np_layernorm(lx, lref, lc, lm, g, bt)

        def ok_ln_large(out):
            if not np.allclose(out, lref, rtol=1e-4, atol=1e-5):
                raise RuntimeError("StreamLayerNorm (large) produced a wrong result")
        rl, sl, t_npl, same = kernel_spans(make_stream_layernorm(EW_ROWS_LARGE), "layernorm_large",
                                           (lx, g, bt, ly), ok_ln_large,
                                           lambda: np_layernorm(lx, lyn, lc, lm, g, bt), variants=big,
                                           reps=big_reps)
        rows_of("layernorm_large", f"simulated layer norm, {EW_ROWS_LARGE}x{EW_COLS} f32 (128 MiB moved)", 0.8,
                rl, sl, same, f"; numpy {t_npl * 1e3:.1f} ms", n=big_reps)
        del lx, ly, lyn, lref, lc

    def matmul(self):
        """TMATMUL (bench/cases/matmul_tile.cpp, timed in C++) against numpy's single-thread f32 BLAS
        on the same shape: 128x128x128 in f32 / f16 / bf16 and the largest L0 tiles of a2a3 and a5."""
        import ml_dtypes
        import numpy as np
        from ptokit.runtime.build import INCLUDE_DIR, compile_shared

        so = compile_shared(CASES / "matmul_tile.cpp", defines=("__CPU_SIM", "__DAV_CUBE__", "PTO_CPU_STANDALONE"),
                            include_dirs=[INCLUDE_DIR], extra_flags=["-Werror"], name_hint="bench:matmul")
        lib = ctypes.CDLL(str(so))
        fn = lib.bench_matmul
        fn.restype = None
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_int]
        rng = np.random.default_rng(1)
        reps = self.reps * 2
        shapes = {0: (128, 128, 128), 1: (128, 256, 128), 2: (256, 128, 256), 3: (256, 64, 256)}
        blas = {}

        def blas_us(which):
            if which not in blas:
                blas[which] = self.numpy_matmul_us("f32", reps, shapes[which])
            return blas[which]

        # key, what, dtype code, numpy dtype, shape, numpy row key (None: the shape's BLAS row comes later)
        cases = (("matmul_f32_tile", "f32", 0, np.float32, 0, "matmul_f32_numpy"),
                 ("matmul_f16_tile", "f16", 1, np.float16, 0, "matmul_f16_numpy"),
                 ("matmul_bf16_tile", "bf16", 2, ml_dtypes.bfloat16, 0, None),
                 ("matmul_f16_l0_a2a3", "f16, a2a3's largest L0 tiles", 1, np.float16, 1, "matmul_l0_a2a3_numpy"),
                 ("matmul_f16_l0_a5", "f16, a5's largest L0 tiles", 1, np.float16, 2, "matmul_l0_a5_numpy"),
                 ("matmul_f32_l0_a5", "f32, a5's largest L0 tiles", 0, np.float32, 3, "matmul_f32_l0_a5_numpy"))
        for key, what, code, dt, which, np_key in cases:
            m, k, n = shapes[which]
            a = rng.standard_normal((m, k)).astype(dt)
            b = rng.standard_normal((k, n)).astype(dt)
            out = np.zeros((m, n), np.float32)
            times = np.zeros(reps, np.int64)
            fn(code, which, a.ctypes.data, b.ctypes.data, out.ctypes.data, times.ctypes.data, reps)
            ref = a.astype(np.float32) @ b.astype(np.float32)
            if not np.allclose(out, ref, rtol=1e-3, atol=1e-2):
                raise RuntimeError(f"TMATMUL {what} produced a wrong result")
            tile_us = float(np.median(times)) / 1e3
            f32_us, f32_note = blas_us(which)
            speed = f32_us / tile_us
            self.add(key, f"TMATMUL {m}x{k}x{n} {what} (CPU tile library)", tile_us, "us",
                     notes=f"{speed:.2f}x numpy f32 BLAS speed ({f32_us:.1f} us); "
                           f"{2 * m * k * n / tile_us / 1e3:.1f} GFLOP/s, one thread", reps=reps)
            if key == "matmul_f16_tile":   # numpy's own f16 matmul (no BLAS path), for the record
                np_us, np_note = self.numpy_matmul_us("f16", reps, shapes[which])
                self.add(np_key, f"  numpy matmul {m}x{k}x{n} f16", np_us, "us", notes=np_note, reps=reps)
            elif np_key:
                self.add(np_key, f"  numpy matmul {m}x{k}x{n} f32", f32_us, "us", notes=f32_note, reps=reps)

    def numpy_matmul_us(self, tag: str, reps: int, shape=(128, 128, 128)):
        """numpy's matmul time in a fresh process with one BLAS thread (the tile library uses one).

        OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, when set, are unset together for that process only
        (they slow a current OpenBLAS); if it then fails or computes a wrong result, it is run
        again with them kept.
        """
        m, k, n = shape
        code = f"""
import time, statistics, numpy as np
rng = np.random.default_rng(2)
a = rng.standard_normal(({m}, {k})).astype(np.{'float32' if tag == 'f32' else 'float16'})
b = rng.standard_normal(({k}, {n})).astype(a.dtype)
ref = a.astype(np.float64) @ b.astype(np.float64)
c = np.matmul(a, b)
assert np.allclose(c.astype(np.float64), ref, rtol=1e-2, atol=0.5), "wrong matmul"
ts = []
for _ in range({reps}):
    t0 = time.perf_counter(); np.matmul(a, b); ts.append(time.perf_counter() - t0)
print(statistics.median(ts))
"""
        env = dict(os.environ)
        for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[k] = "1"
        notes = ["fresh process, 1 BLAS thread"]
        tuned = [k for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in env]
        attempts = []
        if tuned:
            attempts.append(({k: v for k, v in env.items() if k not in tuned}, f"{'/'.join(tuned)} unset"))
        attempts.append((env, "OPENBLAS_CORETYPE kept" if tuned else ""))
        for e, note in attempts:
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)
            if p.returncode == 0:
                if note:
                    notes.append(note)
                if tag == "f16":
                    notes.append("numpy has no BLAS path for f16")
                return float(p.stdout.strip().splitlines()[-1]) * 1e6, "; ".join(notes)
        raise RuntimeError(f"numpy matmul measurement failed: {p.stderr.strip()[-500:]}")

    def jit_calls(self):
        """@pl.jit: cold first call, in-process hit, new-process disk hit (bench/bench_jit.py)."""
        import bench_jit
        folder = self.fresh_dir("jit")
        rows = self.with_cache(folder / "cache", lambda: bench_jit.measure(folder, repeat=self.reps))
        for r in rows:
            what = f"{r['name']} ({r['kernels']} kernel{'s' if r['kernels'] > 1 else ''})"
            self.add(f"jit_{r['name']}_cold", f"@pl.jit {what}: first call, empty cache", r["cold"], "s",
                     notes="specialize + codegen + g++ + run", reps=1)
            self.add(f"jit_{r['name']}_hit", f"@pl.jit {what}: in-process hit", r["hit"] * 1e3, "ms",
                     notes="key check + run", reps=self.reps)
            self.add(f"jit_{r['name']}_disk", f"@pl.jit {what}: new process, disk hit", r["disk"], "s",
                     notes="first call in a fresh process: no codegen, no g++", reps=1)
        w = self.with_cache(folder / "cache", lambda: bench_jit.measure_warm(folder, repeat=max(3, self.reps // 2)))
        parts = ", ".join(f"{k} {v:.1f}" for k, v in w["parts"].items())
        self.add("jit_warm_call", "@pl.jit 64x64 add: first call in a new process (compiled on disk)", w["call"],
                 "ms", "<=", 30.0, notes=f"median of {w['n']} processes; of it (ms): {parts}", reps=w["n"])
        self.add("jit_warm_import_call", "  import ptokit.language + the module + that call", w["import_call"], "ms",
                 "<=", 60.0, notes=f"import {w['import']:.1f} ms; interpreter start and numpy excluded", reps=w["n"])

    def models(self):
        """Model-sized examples: compile / build / run (bench/bench_models.py)."""
        import bench_models
        from ptokit.runtime.sim import driver
        # the rows' "build" is the program's own g++ (their notes say the runtime library is already
        # built): on a fresh cache (--only models) the first row would otherwise include libptosim
        driver.load_library()
        for key, metric, value, unit, notes, reps in bench_models.measure(self.fresh_dir("models"), self.quick):
            self.add(key, metric, value, unit, notes=notes, reps=reps)

    def first_runs(self):
        """A program's first run as whole processes: empty cache, kernels not built, warm
        (bench/bench_first_run.py)."""
        import bench_first_run
        for key, metric, value, unit, op, target, notes, reps in bench_first_run.measure(self.fresh_dir("first"),
                                                                                          self.quick):
            self.add(key, metric, value, unit, op, target, notes=notes, reps=reps)

    def distributed(self):
        """Distributed runs on shared memory (bench/bench_distributed.py)."""
        import bench_distributed
        folder = self.fresh_dir("dist")
        rows = bench_distributed.measure(folder, self.quick) + bench_distributed.measure_dsl(folder, self.quick)
        for key, metric, value, unit, notes, reps in rows:
            self.add(key, metric, value, unit, notes=notes, reps=reps)

    def run_all(self, only=None):
        steps = [("import time", self.import_time), ("compile", self.compile_times), ("assembler", self.assembler),
                 ("builds", self.builds), ("one-task run", self.one_task), ("task overhead", self.overhead),
                 ("elementwise throughput", self.elementwise), ("softmax and layer norm", self.row_kernels),
                 ("matmul tile", self.matmul), ("model examples", self.models),
                 ("@pl.jit calls", self.jit_calls), ("first runs", self.first_runs),
                 ("distributed runs", self.distributed)]
        if only:
            known = {fn.__name__ for _, fn in steps}
            bad = sorted(set(only) - known)
            if bad:
                raise SystemExit(f"bench: unknown section(s) {', '.join(bad)}; sections: {', '.join(sorted(known))}")
            steps = [(name, fn) for name, fn in steps if fn.__name__ in only]
        for name, fn in steps:
            self.log(f"[bench] {name} ...")
            t0 = time.perf_counter()
            fn()
            self.log(f"[bench] {name} done in {time.perf_counter() - t0:.1f} s")


def machine_info() -> dict:
    import numpy as np
    try:
        gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        gxx = "?"
    return {"python": platform.python_version(), "numpy": np.__version__, "cpus": os.cpu_count(),
            "machine": platform.machine(), "system": platform.platform(), "cxx": gxx}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="ptokit benchmarks: prints one table")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (smoke test)")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the temporary work folder")
    ap.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    ap.add_argument("--only", metavar="SECTION", action="append",
                    help="run only this section (a method name of Bench: elementwise, row_kernels, ...); repeatable")
    args = ap.parse_args(argv)

    log = (lambda s: print(s, file=sys.stderr, flush=True)) if args.verbose else (lambda s: None)
    old_cache = os.environ.get("PTOKIT_CACHE_DIR")
    work = Path(tempfile.mkdtemp(prefix="ptokit-bench-"))
    started = datetime.datetime.now()
    load_at_start = os.getloadavg()[0]
    try:
        bench = Bench(args.quick, work, log)
        bench.run_all(args.only)
        rows = bench.sorted_rows()
    finally:
        if old_cache is None:
            os.environ.pop("PTOKIT_CACHE_DIR", None)
        else:
            os.environ["PTOKIT_CACHE_DIR"] = old_cache
        if not args.keep:
            try:
                from ptokit.runtime.sim import driver
                driver.shutdown()
            except Exception:   # noqa: BLE001 - best effort before removing the folder
                pass
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"[bench] work folder kept: {work}")

    info = machine_info()
    info["loadavg_at_start"] = load_at_start
    title = (f"ptokit bench, {started:%Y-%m-%d %H:%M}, {'quick' if args.quick else 'full'} run"
             f"{' of ' + ', '.join(args.only) if args.only else ''}; "
             f"Python {info['python']}, numpy {info['numpy']}, {info['cpus']} cpus, {info['cxx']}; "
             f"load average at start {load_at_start:.2f}")
    print(title)
    print(render_table(rows))
    missed = [r for r in rows if r.target is not None and r.value is not None and
              ((r.op == "<=" and r.value > r.target) or (r.op == ">=" and r.value < r.target))]
    print(f"\n{len(rows)} rows, {sum(r.target is not None for r in rows)} with a target, {len(missed)} missed"
          + (": " + ", ".join(r.key for r in missed) if missed else ""))
    if args.json:
        payload = {"date": started.isoformat(timespec="seconds"), "quick": args.quick, "machine": info,
                   "rows": [dict(asdict(r), verdict=r.verdict()) for r in rows]}
        Path(args.json).write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
