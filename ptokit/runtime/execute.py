"""``execute_compiled``: run an artifact tree with a full argument list (pypto's
``pypto.runtime.execute_compiled``)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..artifacts.kernel_config import read_kernel_config
from ..targets import platform_to_use
from .config import RunConfig
from .device import DeviceTensor, resolve_device_tensor


def execute_compiled(work_dir, args: list, *, platform: Optional[str] = None, device_id: Optional[int] = None,
                     level: int = 2, aicpu_thread_num: Optional[int] = None,
                     analyze_auto_scopes_for_deps: bool = False, config: Optional[RunConfig] = None):
    """Run the tree in ``work_dir`` with ``args`` (every parameter, in order: arrays, torch CPU
    tensors, ``DeviceTensor`` s or scalars); outputs are written back in place.  Returns the
    ``RunResult``.

    ``platform`` defaults to the one the tree records; ``device_id`` and ``aicpu_thread_num``
    override ``config``'s.  ``analyze_auto_scopes_for_deps`` is a compile option (pypto accepts
    it here too and ignores it: the program is already compiled)."""
    if level != 2:
        raise ValueError(f"execute_compiled runs one chip (level=2); got level={level}")
    if not isinstance(analyze_auto_scopes_for_deps, bool):
        raise ValueError(f"analyze_auto_scopes_for_deps={analyze_auto_scopes_for_deps!r}: must be True or False")
    root = Path(work_dir)
    kc = read_kernel_config(root)
    platform = platform_to_use(platform)        # a hardware platform is simulated under `ptokit pypto`
    if config is None:
        config = RunConfig(platform=platform or kc.platform)
    elif platform is not None and platform != config.platform:
        raise ValueError(f"platform={platform!r} and config.platform={config.platform!r} disagree; give one")
    changes = {}
    if device_id is not None:
        changes["device_id"] = device_id
    if aicpu_thread_num is not None:
        changes["aicpu_thread_num"] = aicpu_thread_num
    if changes:
        config = config.replace(**changes)
    if config.codegen_only:
        return None
    run_args = [resolve_device_tensor(a) if isinstance(a, DeviceTensor) else a for a in args]
    from .launcher import run_tree   # lazy: the simulator driver
    return run_tree(root, run_args, config)
