"""``ptokit build DIR`` and ``ptokit run DIR``: build a tree with g++, run it on the simulator."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..artifacts.distributed_config import is_distributed_tree
from ..artifacts.kernel_config import read_kernel_config
from ..errors import UserError
from ..runtime.build import build_tree
from ..runtime.compilers import fifo_rule_for
from ..runtime.config import RunConfig
from ..runtime.estimate import summary_lines
from ..runtime.inputs import inputs_without_params, make_inputs
from ..runtime.launcher import run_tree
from ..runtime.progress import BuildProgress
from ..targets import PTOAS_COMPAT, SIM_PLATFORMS
from .args import count
from .run_common import describe_inputs, ensure_simulator, parse_assignments, print_outputs
from .run_distributed import is_chip_tree as _is_chip_tree, run_distributed_main


def build_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit build", description="build an artifact tree with g++ (build cache)")
    ap.add_argument("tree", help="artifact tree folder (with kernel_config.py)")
    ap.add_argument("-j", "--jobs", type=count(1), default=None, help="parallel compiler jobs (default: CPU count)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress line (also PTOKIT_PROGRESS=0)")
    ap.add_argument("--ptoas-compat", default=None, choices=PTOAS_COMPAT,
                    help="the tree was written by that ptoas release: build with its FIFO rule (default: the tree's)")
    a = ap.parse_args(argv)
    rule = None
    if a.ptoas_compat:
        rule = fifo_rule_for(a.ptoas_compat, read_kernel_config(a.tree).platform)
    with BuildProgress(label=f"building {Path(a.tree).name}", quiet=a.quiet, delay=0.0) as progress:
        built = build_tree(a.tree, jobs=a.jobs, progress=progress, fifo_rule=rule)
    print(f"simulator      {ensure_simulator(a.quiet)}")
    print(f"orchestration  {built.orchestration_so}")
    for k in built.config.kernels:
        print(f"kernel {k.func_id:<3} {k.name:<24} {built.kernel_sos[k.func_id]}")
    return 0


def run_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit run", description="build and run an artifact tree on the CPU simulator")
    ap.add_argument("tree")
    ap.add_argument("--inputs", nargs="*", default=[], help=".npy files for the tensor parameters, in order")
    ap.add_argument("--scalar", action="append", default=[], metavar="NAME=VALUE", help="value of a scalar parameter")
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=N", help="value of a dynamic dimension")
    ap.add_argument("--seed", type=count(0), default=0, help="seed of generated inputs")
    ap.add_argument("--platform", default=None, help="a2a3sim or a5sim (default: what the tree was compiled for, "
                    "else a2a3sim)")
    ap.add_argument("--runtime", default=None, help="override the tree's runtime kind")
    ap.add_argument("--runtime-threads", type=int, default=0, help="aicpu_thread_num (0 = the tree's / default)")
    ap.add_argument("--clusters", type=int, default=None, help="simulated clusters (default: 8, or as many as the "
                    "tree's sync-start tasks need)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--race-check", default="manual", metavar="MODE",
                    help="race checker: off, manual (the tasks of MANUAL scopes; default) or all (every scope)")
    ap.add_argument("--race-report", default="error", metavar="HOW",
                    help="a race found: error (the run fails; default) or warn")
    ap.add_argument("--schedule", default="auto", metavar="ORDER",
                    help="order among ready tasks: default, reverse or random (adversarial: one block at a time), "
                         "or auto (reverse where the race checker checks tasks, else default; the default)")
    ap.add_argument("--schedule-seed", type=count(0), default=0, help="seed of --schedule random")
    ap.add_argument("--save-outputs", default=None, metavar="DIR", help="write every OUT/INOUT tensor as NAME.npy")
    ap.add_argument("--trace", default=None, metavar="FILE", help="write a run trace (Perfetto) to FILE")
    ap.add_argument("--estimate", action="store_true",
                    help="estimate the run's device time per task and pipe (a2a3; docs/estimate.md)")
    ap.add_argument("--no-summary", action="store_true", help="do not print the run summary")
    ap.add_argument("--top", type=count(0), default=5, help="kernels/cores listed in the summary (default 5)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no build progress line (also PTOKIT_PROGRESS=0)")
    ap.add_argument("-d", "--device-ids", default=None, metavar="0,1,...",
                    help="distributed trees: the devices to run on, one rank each (default: as compiled)")
    ap.add_argument("--ptoas-compat", default=None, choices=PTOAS_COMPAT,
                    help="the tree was written by that ptoas release: run with its FIFO rule (default: the tree's)")
    a = ap.parse_args(argv)

    if is_distributed_tree(a.tree) or _is_chip_tree(a.tree):   # all ranks, or one rank with a private window
        ensure_simulator(a.quiet)
        return run_distributed_main(a)
    if a.device_ids is not None:
        raise UserError(f"--device-ids: {a.tree} is a single-chip tree, not a distributed program")
    kc = read_kernel_config(a.tree)
    platform = a.platform or (kc.platform if kc.platform in SIM_PLATFORMS else None) or "a2a3sim"
    if kc.platform and kc.platform not in SIM_PLATFORMS:
        raise UserError(f"{a.tree} was compiled for the {kc.platform!r} hardware platform; running it needs the "
                        f"vendor toolchain and device (compile with --platform {kc.platform}sim to simulate it)")
    params = kc.orchestration.params
    scalars = parse_assignments(a.scalar, "scalar")
    if params is None:
        params, args, names = inputs_without_params(a.tree, kc.orchestration.signature, a.inputs, scalars)
    else:
        args, names = make_inputs(params, a.inputs, scalars, parse_assignments(a.dim, "dim"), a.seed,
                                  where=f"{Path(kc.root) / 'kernel_config.py'}: ORCHESTRATION params")
    try:
        config = RunConfig(platform=platform, runtime=a.runtime, aicpu_thread_num=a.runtime_threads,
                           clusters=a.clusters, timeout=a.timeout, trace=a.trace, ptoas_compat=a.ptoas_compat,
                           race_check=a.race_check, race_report=a.race_report, schedule=a.schedule,
                           schedule_seed=a.schedule_seed, estimate=a.estimate)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out_dir = Path(a.save_outputs) if a.save_outputs else None
    if out_dir:                        # before the run: a bad folder should not cost one
        out_dir.mkdir(parents=True, exist_ok=True)
    print("\n".join(describe_inputs(params, names, args, a.inputs, scalars, a.seed)))
    ensure_simulator(a.quiet)
    try:
        res = run_tree(a.tree, args, config, quiet=a.quiet)
    except ValueError as exc:          # platform or argument mismatch: the user's to fix
        raise UserError(str(exc)) from None
    print(f"ran {res.tasks} task(s), {res.blocks} block(s) in {res.elapsed * 1e3:.3f} ms "
          f"({res.runtime.value if res.runtime else ''}, {platform})")
    print_outputs(params, names, args, out_dir)
    if not a.no_summary:
        print(res.summary().format(top=a.top))
    elif res.estimate is not None:
        print("\n".join(summary_lines(res.estimate, top=a.top)))
    if a.trace:
        print(f"trace written to {a.trace} (open it in https://ui.perfetto.dev or chrome://tracing)")
    return 0
