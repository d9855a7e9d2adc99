"""``ptokit run DIR`` on a distributed tree (every rank) or on one of its chip trees (one rank,
private windows): inputs from the host (or chip) params, one line per rank, the outputs."""
from __future__ import annotations

from pathlib import Path

from ..artifacts.distributed_config import is_distributed_tree, read_distributed_config
from ..artifacts.kernel_config import read_kernel_config
from ..errors import UserError
from ..runtime.config import RunConfig
from ..runtime.inputs import make_inputs
from ..targets import SIM_PLATFORMS, DistributedConfig
from .run_common import parse_assignments, print_outputs


def is_chip_tree(tree) -> bool:
    """A single-chip tree compiled as part of a distributed program (RUNTIME_CONFIG["distributed"])."""
    path = Path(tree) / "kernel_config.py"
    if not path.is_file():
        return False
    return read_kernel_config(path).distributed is not None


def _device_ids(text):
    try:
        ids = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--device-ids {text}: expected comma-separated device numbers such as 0,1,2") from None
    return ids


def run_distributed_main(a) -> int:
    # lazy: the distributed runtime (rank processes, shared memory) loads only for these trees
    from ..distributed.launcher import compiled_distributed_config, run_chip_tree, run_distributed
    scalars = parse_assignments(a.scalar, "scalar")
    dims = parse_assignments(a.dim, "dim")
    if is_distributed_tree(a.tree):
        m = read_distributed_config(a.tree)
        compiled = m.platform
        try:
            dconfig = compiled_distributed_config(m)
            if a.device_ids is not None:
                dconfig = DistributedConfig(device_ids=_device_ids(a.device_ids), runtime=dconfig.runtime,
                                            aicpu_thread_num=dconfig.aicpu_thread_num,
                                            num_sub_workers=dconfig.num_sub_workers, transport=dconfig.transport)
        except ValueError as exc:
            raise UserError(f"--device-ids: {exc}") from None
        params = m.params
        if m.world_size_name:
            dims.setdefault(m.world_size_name, str(dconfig.world_size))
        where = f"{Path(m.root) / 'distributed_config.py'}: DISTRIBUTED params"
    else:
        if a.device_ids is not None:
            raise UserError(f"--device-ids: {a.tree} is one chip tree of a distributed program; it runs on one rank "
                            f"(run the distributed tree above it for all ranks)")
        kc = read_kernel_config(a.tree)
        compiled, dconfig = kc.platform, None
        params = [p for p in kc.orchestration.params or [] if p["kind"] in ("tensor", "scalar")]
        where = f"{Path(kc.root) / 'kernel_config.py'}: ORCHESTRATION params"
    if compiled and compiled not in SIM_PLATFORMS:
        raise UserError(f"{a.tree} was compiled for the {compiled!r} hardware platform; running it needs the vendor "
                        f"toolchain and devices (compile with --platform {compiled}sim to simulate it)")
    platform = a.platform or compiled or "a2a3sim"
    args, names = make_inputs(params, a.inputs, scalars, dims, a.seed, where=where)
    try:
        config = RunConfig(platform=platform, runtime=a.runtime, aicpu_thread_num=a.runtime_threads,
                           clusters=a.clusters, timeout=a.timeout, trace=a.trace, distributed_config=dconfig)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out_dir = Path(a.save_outputs) if a.save_outputs else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    try:
        if dconfig is not None:
            res = run_distributed(a.tree, args, config, quiet=a.quiet)
        else:
            res = run_chip_tree(a.tree, args, config, quiet=a.quiet)
    except (ValueError, TypeError) as exc:      # argument, platform or rank-count mismatch: the user's to fix
        raise UserError(str(exc)) from None
    kind = res.ranks[0].runtime.value if res.ranks and res.ranks[0].runtime else ""
    print(f"ran {res.world_size} rank(s) in {res.elapsed * 1e3:.3f} ms ({kind}, {platform})")
    for r, (d, rr) in enumerate(zip(res.device_ids, res.ranks)):
        print(f"  rank {r} (device {d}): {rr.tasks} task(s), {rr.blocks} block(s) in {rr.elapsed * 1e3:.3f} ms")
    print_outputs(params, names, args, out_dir)
    if not a.no_summary:
        for r, rr in enumerate(res.ranks):
            print(f"rank {r}:")
            print(rr.summary().format(top=a.top))
    if a.trace:
        print(f"trace written to {a.trace} (one process per rank; open it in https://ui.perfetto.dev)")
    return 0
