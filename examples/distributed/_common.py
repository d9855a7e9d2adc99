"""Shared command line of the distributed examples (01 .. 07): platform, device ids, compile-only.

Each example is a ptokit program run on simulated chips (``-p a2a3sim`` / ``a5sim``); ``-p a2a3``
only compiles (``--compile-only``), since running needs the vendor devices.  Inputs are numpy
arrays; torch tensors are used instead when torch is installed and ``--torch`` is given.
"""
import argparse
import importlib.util
from pathlib import Path

from ptokit import DistributedConfig
from ptokit.runtime import RunConfig


def parser(name: str, n_ranks=None, modes=None, builtin=False) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=name)
    p.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    default = ",".join(str(i) for i in range(n_ranks or 2))
    p.add_argument("-d", "--device", default=default,
                   help="comma-separated device ids" + (f" (exactly {n_ranks})" if n_ranks else " (any count >= 2)"))
    p.add_argument("--compile-only", action="store_true", help="build the artifact tree, print its folder, stop")
    p.add_argument("--output-dir", default=f"build_output/{name}",
                   help="where the artifact tree goes (default: %(default)s, replaced at each run)")
    p.add_argument("--clusters", type=int, default=None, help="simulated clusters per rank (default: RunConfig's)")
    p.add_argument("--torch", action="store_true", help="use torch tensors for the inputs (torch must be installed)")
    if modes:
        p.add_argument("--mode", default=modes[0], choices=list(modes))
    if builtin:
        p.add_argument("--use-builtin", action="store_true", help="the builtin pld.tensor.barrier instead")
    return p


def device_ids(args, n_ranks=None):
    ids = [int(d) for d in args.device.split(",") if d.strip()]
    if n_ranks is not None and len(ids) != n_ranks:
        raise SystemExit(f"need exactly {n_ranks} devices, got {ids}")
    if len(ids) < 2:
        raise SystemExit(f"need at least 2 devices, got {ids}")
    return ids


def config(args, ids) -> RunConfig:
    hardware = args.platform in ("a2a3", "a5")
    if hardware and not args.compile_only:
        raise SystemExit(f"-p {args.platform} is real hardware: ptokit only compiles for it here (--compile-only); "
                         f"run on a2a3sim or a5sim")
    return RunConfig(platform=args.platform, codegen_only=hardware,
                     distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))


def arrays(args):
    """The array module of the example's inputs: numpy, or torch with --torch."""
    if args.torch:
        import torch
        return torch
    import numpy
    return numpy


def compile_and_run(args, program, arrays_, cfg):
    """Compile ``program`` for ``arrays_``; with --compile-only print the folder and return False."""
    compiled = program.compile(*arrays_, config=cfg, output_dir=args.output_dir)
    if args.compile_only:
        print(f"compile_only done: {compiled.output_dir}")
        return False
    run = {"clusters": args.clusters} if args.clusters else {}
    compiled(*arrays_, config=RunConfig(platform=args.platform, **run))
    return True


def load(name: str):
    """Another example of this folder as a module (07 reuses 06's chip functions)."""
    spec = importlib.util.spec_from_file_location(f"ptokit_example_{name}", Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
