"""`ptokit build | run | cache | trace` (see ptokit/cli.py for the dispatch table)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ..errors import UserError


def build_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit build", description="build an artifact tree with g++ (build cache)")
    ap.add_argument("tree", help="artifact tree folder (with kernel_config.py)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="parallel compiler jobs (default: CPU count)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress line (also PTOKIT_PROGRESS=0)")
    a = ap.parse_args(argv)
    from .build import build_tree
    from .progress import BuildProgress

    with BuildProgress(label=f"building {Path(a.tree).name}", quiet=a.quiet, delay=0.0) as progress:
        built = build_tree(a.tree, jobs=a.jobs, progress=progress)
    print(f"orchestration  {built.orchestration_so}")
    for k in built.config.kernels:
        print(f"kernel {k.func_id:<3} {k.name:<24} {built.kernel_sos[k.func_id]}")
    return 0


def _parse_assignments(items, what):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"--{what} expects NAME=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _numpy_dtype(ir_dtype: str):
    from .abi import IR_DTYPE_TO_DATATYPE, numpy_dtype_of
    name = str(ir_dtype).upper()
    if name == "INDEX":
        return np.dtype(np.int64)
    if name not in IR_DTYPE_TO_DATATYPE:
        raise UserError(f"unknown dtype {ir_dtype!r} in ORCHESTRATION params")
    return numpy_dtype_of(IR_DTYPE_TO_DATATYPE[name])


def make_inputs(params, input_files=(), scalars=None, dims=None, seed=0):
    """Arguments for a tree from its ORCHESTRATION ``params``: tensors from ``input_files``
    (in tensor-parameter order), the rest generated (seeded random inputs, zero outputs)."""
    rng = np.random.default_rng(seed)
    scalars, dims = dict(scalars or {}), {k: int(v) for k, v in (dims or {}).items()}
    files = list(input_files or [])
    loaded = [np.load(f) for f in files]
    tensor_params = [p for p in params if p.get("kind") != "scalar"]
    for p, arr in zip(tensor_params, loaded):   # bind dynamic dims from the given arrays
        shape = p.get("shape", [])
        if len(shape) == arr.ndim:
            for d, n in zip(shape, arr.shape):
                if not isinstance(d, int):
                    dims.setdefault(str(d), int(n))
    unknown = sorted(set(scalars) - {str(p.get("name")) for p in params if p.get("kind") == "scalar"})
    if unknown:
        known = [str(p.get("name")) for p in params if p.get("kind") == "scalar"]
        raise UserError(f"--scalar {', '.join(unknown)}: the program has no such scalar parameter "
                        f"(its scalars: {', '.join(known) or 'none'})")
    args, names = [], []
    t_index = 0
    for p in params:
        name, kind = str(p.get("name")), p.get("kind")
        dt = _numpy_dtype(p.get("dtype", "FP32"))
        names.append(name)
        if kind == "scalar":
            if name in scalars:
                text = scalars[name]
                v = float(text) if dt.kind == "f" else (text.lower() in ("1", "true") if dt.kind == "b" else int(text, 0))
            else:
                v = float(np.round(rng.uniform(0.5, 2.0), 3)) if dt.kind == "f" else (True if dt.kind == "b" else 1)
            args.append(v)
            continue
        if t_index < len(files):
            arr = loaded[t_index]
            if arr.dtype != dt:
                raise UserError(f"{files[t_index]}: dtype {arr.dtype}, parameter {name!r} expects {dt}")
            args.append(np.ascontiguousarray(arr))
        else:
            shape = []
            for d in p.get("shape", []):
                if isinstance(d, int):
                    shape.append(d)
                else:
                    if str(d) not in dims:
                        raise UserError(f"parameter {name!r} has the dynamic dimension {d!r}: pass --dim {d}=N")
                    shape.append(dims[str(d)])
            if str(p.get("direction", "IN")).upper() == "OUT":
                arr = np.zeros(shape, dtype=dt)
            elif dt.kind == "f" or dt.name == "bfloat16":
                arr = rng.standard_normal(shape).astype(dt)
            elif dt.kind == "b":
                arr = rng.integers(0, 2, shape).astype(dt)
            else:
                arr = rng.integers(-8, 8, shape).astype(dt)
            args.append(arr)
        t_index += 1
    if t_index < len(files):
        raise UserError(f"{len(files)} --inputs given but the program has {t_index} tensor parameters")
    return args, names


def run_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit run", description="build and run an artifact tree on the CPU simulator")
    ap.add_argument("tree")
    ap.add_argument("--inputs", nargs="*", default=[], help=".npy files for the tensor parameters, in order")
    ap.add_argument("--scalar", action="append", default=[], metavar="NAME=VALUE", help="value of a scalar parameter")
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=N", help="value of a dynamic dimension")
    ap.add_argument("--seed", type=int, default=0, help="seed of generated inputs")
    ap.add_argument("--platform", default=None, help="a2a3sim or a5sim (default: what the tree was compiled for, "
                    "else a2a3sim)")
    ap.add_argument("--runtime", default=None, help="override the tree's runtime kind")
    ap.add_argument("--runtime-threads", type=int, default=0, help="aicpu_thread_num (0 = the tree's / default)")
    ap.add_argument("--clusters", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--save-outputs", default=None, metavar="DIR", help="write every OUT/INOUT tensor as NAME.npy")
    ap.add_argument("--trace", default=None, metavar="FILE", help="write a run trace (Perfetto) to FILE")
    ap.add_argument("--no-summary", action="store_true", help="do not print the run summary")
    ap.add_argument("--top", type=int, default=5, help="kernels/cores listed in the summary (default 5)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no build progress line (also PTOKIT_PROGRESS=0)")
    a = ap.parse_args(argv)
    from ..artifacts.kernel_config import read_kernel_config
    from .config import RunConfig
    from .launcher import run_tree

    kc = read_kernel_config(a.tree)
    platform = a.platform or (kc.platform if kc.platform in ("a2a3sim", "a5sim") else None) or "a2a3sim"
    if kc.platform and kc.platform not in ("a2a3sim", "a5sim"):
        raise UserError(f"{a.tree} was compiled for the {kc.platform!r} hardware platform; running it needs the "
                        f"vendor toolchain and device (compile with --platform {kc.platform}sim to simulate it)")
    params = kc.orchestration.params
    if params is None:
        if not a.inputs:
            raise UserError(f"{a.tree}: kernel_config.py has no ORCHESTRATION params; pass the tensors with "
                            f"--inputs and the scalars with --scalar NAME=VALUE, in the order the "
                            f"orchestration reads them")
        params = [{"name": f"arg{i}", "kind": "tensor", "direction": d,
                   "dtype": None} for i, d in enumerate(kc.orchestration.signature)]
        args = [np.load(f) for f in a.inputs]
        if len(args) != len(params):
            raise UserError(f"{len(args)} --inputs given, the program has {len(params)} tensor parameters")
        names = [p["name"] for p in params]
        # no params: scalars follow the tensors in the order given (an int or a float literal)
        for name, text in _parse_assignments(a.scalar, "scalar").items():
            try:
                args.append(int(text, 0))
            except ValueError:
                try:
                    args.append(float(text))
                except ValueError:
                    raise UserError(f"--scalar {name}={text}: not a number") from None
            names.append(name)
    else:
        args, names = make_inputs(params, a.inputs, _parse_assignments(a.scalar, "scalar"),
                                  _parse_assignments(a.dim, "dim"), a.seed)
    try:
        config = RunConfig(platform=platform, runtime=a.runtime, aicpu_thread_num=a.runtime_threads,
                           clusters=a.clusters, timeout=a.timeout, trace=a.trace)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        res = run_tree(a.tree, args, config, quiet=a.quiet)
    except ValueError as exc:          # platform or argument mismatch: the user's to fix
        raise UserError(str(exc)) from None
    print(f"ran {res.tasks} task(s), {res.blocks} block(s) in {res.elapsed * 1e3:.3f} ms "
          f"({res.runtime.value if res.runtime else ''}, {platform})")
    out_dir = Path(a.save_outputs) if a.save_outputs else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    for p, name, arg in zip(params, names, args):
        if p.get("kind") == "scalar" or str(p.get("direction", "IN")).upper() not in ("OUT", "INOUT"):
            continue
        arr = np.asarray(arg)
        stats = np.asarray(arr, dtype=np.float64)
        print(f"  {name}: {arr.dtype}{list(arr.shape)} sum={stats.sum():.6g} min={stats.min() if arr.size else 0:.6g} "
              f"max={stats.max() if arr.size else 0:.6g}")
        if out_dir:
            np.save(out_dir / f"{name}.npy", arr)
    if not a.no_summary:
        print(res.summary().format(top=a.top))
    if a.trace:
        print(f"trace written to {a.trace} (open it in https://ui.perfetto.dev or chrome://tracing)")
    return 0


def cache_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit cache",
                                 description="the caches: built objects (g++) and @pl.jit compiled programs")
    ap.add_argument("action", choices=["stat", "clear", "path"])
    a = ap.parse_args(argv)
    from ..jit import cache as jit_cache
    from . import build
    if a.action == "path":
        print(build.cache_path())
    elif a.action == "stat":
        st = build.cache_stat()
        js = jit_cache.jit_cache_stat()
        print(f"{st['path']}: {st['objects']} built object(s), {st['bytes'] / 1e6:.1f} MB")
        print(f"{js['path']}: {js['entries']} jit entr{'y' if js['entries'] == 1 else 'ies'} "
              f"for {js['functions']} function(s), {js['bytes'] / 1e6:.1f} MB")
    else:
        n = build.cache_clear()
        j = jit_cache.jit_cache_clear()
        print(f"removed {n} built object(s) and {j} jit entr{'y' if j == 1 else 'ies'}")
    return 0


def trace_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit trace", description="read back a run trace written by "
                                 "`ptokit run --trace FILE` or RunConfig(trace=FILE)")
    sub = ap.add_subparsers(dest="action", required=True)
    sm = sub.add_parser("summarize", help="print the run summary of a trace")
    sm.add_argument("file")
    sm.add_argument("--top", type=int, default=5, help="kernels/cores listed (default 5)")
    sm.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = ap.parse_args(argv)
    from .trace import TraceFormatError, read_trace
    try:
        result = read_trace(a.file)
    except OSError as exc:
        print(f"ptokit trace: cannot read {a.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except TraceFormatError as exc:
        print(f"ptokit trace: {exc}", file=sys.stderr)
        return 2
    summary = result.summary()
    if a.json:
        import json
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        print(summary.format(top=a.top))
    return 0
