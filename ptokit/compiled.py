"""CompiledProgram: what ``ptokit.compile`` and ``@pl.jit``'s ``compile`` return.

It names an artifact tree and runs it on the CPU simulator when called:

* ``compiled(*args, config=RunConfig(...))`` with every argument: outputs are written in place
  into the caller's arrays and the call returns the ``RunResult``;
* ``compiled(*inputs)`` with the ``pl.Out`` parameters left out: they are allocated (numpy
  arrays, or torch tensors when the inputs are torch tensors), run, and returned -- the one
  array, or a tuple in parameter order.

Everything it knows about the call comes from the tree's ``kernel_config.py`` (ORCHESTRATION
``params``: names, kinds, dtypes, shapes with dynamic dimension names, directions), so
``CompiledProgram.from_dir(dir)`` rebuilds the same object from a saved tree.
"""
from __future__ import annotations

import ast

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from .artifacts.kernel_config import KernelConfig, eval_dim, read_kernel_config
from .errors import ArgumentError, api_boundary
from .ir.kinds import DType
from .runtime.arrays import array_info, is_array, is_torch_tensor, new_output
from .runtime.config import FIELDS, RunConfig
from .targets import SIM_PLATFORMS, RuntimeKind, backend_type_of, coerce_backend_type, runtime_kind_to_name

TREE_FILE = "kernel_config.py"
NEXT_LEVELS = "next_levels"


class _Conflict:
    """A dynamic dimension the tensor arguments give different sizes."""

    def __init__(self, dim: str, sizes: list):
        self.dim, self.sizes = dim, sizes      # sizes: (tensor name, size) pairs

    def __str__(self):
        return f"dynamic dimension {self.dim} is " + " and ".join(f"{s} in {n}" for n, s in self.sizes)


@dataclass(frozen=True)
class ParamInfo:
    """One orchestration parameter, as ``kernel_config.py`` records it."""

    name: str
    kind: str                       # "tensor" | "scalar"
    dtype: Optional[DType]
    shape: Optional[tuple] = None   # tensors: ints and dynamic-dimension expressions ("M")
    direction: str = "IN"           # IN | OUT | INOUT (scalars are IN)


def param_infos(kc: KernelConfig) -> Optional[List[ParamInfo]]:
    """The parameters of a tree's orchestration (None for a tree that lists no ``params``)."""
    params = kc.orchestration.params
    if params is None:
        return None
    out = []
    for p in params:
        dt = p.get("dtype")
        out.append(ParamInfo(str(p.get("name")), str(p.get("kind", "tensor")),
                             DType[dt] if isinstance(dt, str) and dt in DType.__members__ else None,
                             tuple(p["shape"]) if p.get("shape") is not None else None,
                             str(p.get("direction") or "IN")))
    return out


@dataclass
class CompiledProgram:
    output_dir: Path
    config: KernelConfig
    platform: str
    runtime: RuntimeKind
    times: object = None
    # recompile(platform=, dump_passes=, dump_ptoas_passes=, output_dir=) -> CompiledProgram; set by
    # ptokit.compile so a RunConfig asking for another platform or for dumps can be honoured
    recompile: Optional[Callable] = field(default=None, repr=False)
    _variants: Dict[tuple, "CompiledProgram"] = field(default_factory=dict, repr=False)
    # the IR program it was compiled from, or a function returning it (None: not known, from_dir)
    _program: object = field(default=None, repr=False)
    last_result: object = field(default=None, repr=False)     # RunResult of the last call
    _prepared: object = field(default=None, repr=False)       # runtime.launcher.PreparedTree, once built
    # what every call derives again otherwise: (the params list read, its ParamInfos), (platform,
    # the default RunConfig of a call)
    _params_memo: tuple = field(default=(None, None), repr=False)
    _default_config: tuple = field(default=(None, None), repr=False)

    __test__ = False            # not a pytest test class

    # ------------------------------------------------------------ loading
    @classmethod
    def from_dir(cls, output_dir, *, platform: Optional[str] = None, backend_type=None) -> "CompiledProgram":
        """The compiled program of an existing artifact tree (``kernel_config.py`` and the sources it
        names).  ``program`` is None: the IR is not kept with the tree."""
        root = Path(output_dir)
        if not (root / TREE_FILE).is_file():
            raise FileNotFoundError(f"{root / TREE_FILE} not found: CompiledProgram.from_dir needs an artifact "
                                    f"tree (the output_dir of ptokit.compile, or another tool's tree with a "
                                    f"{TREE_FILE})")
        kc = read_kernel_config(root)
        if backend_type is not None:
            bt = coerce_backend_type(backend_type)
            if platform is not None and backend_type_of(platform) is not bt:
                raise ValueError(f"backend_type={bt!r} and platform={platform!r} are different chips")
            platform = platform or (kc.platform if kc.platform and backend_type_of(kc.platform) is bt
                                    else bt.sim_platform())
        platform = platform or kc.platform or "a2a3sim"
        if kc.platform and platform != kc.platform:
            raise ValueError(f"{root / TREE_FILE} was compiled for {kc.platform}, not {platform}: kernels and "
                             f"buffer capacities differ between platforms; compile the program for {platform}")
        return cls(root.resolve(), kc, platform, kc.runtime)

    def load(self) -> None:
        """Build (from the build cache) and pack the tree now rather than at the first use."""
        self._prepare()

    def _prepare(self):
        if self._prepared is None:
            from .runtime.launcher import prepare_tree    # lazy: the build cache, needed only to run
            cfg = RunConfig(platform=self.platform) if self.platform in SIM_PLATFORMS else None
            self._prepared = prepare_tree(self.output_dir, cfg)
        return self._prepared

    # ------------------------------------------------------------ what it is
    @property
    def name(self) -> str:
        return self.output_dir.name

    @property
    def program(self):
        """The IR program this tree was compiled from (before the passes), or None after
        ``from_dir``."""
        if callable(self._program):
            self._program = self._program()
        return self._program

    @property
    def backend_type(self):
        return backend_type_of(self.platform)

    @property
    def params(self) -> Optional[List[ParamInfo]]:
        src = self.config.orchestration.params
        if src is None:
            return None
        if self._params_memo[0] is not src:
            self._params_memo = (src, param_infos(self.config))
        return list(self._params_memo[1])

    @property
    def param_names(self) -> List[str]:
        params = self.params
        if params is None:
            return [f"arg{i}" for i in range(len(self.config.orchestration.signature))]
        return [p.name for p in params]

    @property
    def output_indices(self) -> List[int]:
        """Indices of the pure ``pl.Out`` parameters: those a call may leave out (then allocated
        and returned).  ``pl.InOut`` parameters must be passed: they have an initial value."""
        return [i for i, p in enumerate(self.params or ()) if p.kind == "tensor" and p.direction == "OUT"]

    @property
    def has_return(self) -> bool:
        """Whether a call with the outputs left out returns them (the program has ``pl.Out``
        parameters)."""
        return bool(self.output_indices)

    @property
    def ptoas_compat(self) -> Optional[str]:
        """The assembler release the tree's .pto is written for: None (pypto HEAD's) or "0.27"."""
        return self.config.ptoas_compat

    @property
    def runtime_name(self) -> str:
        return runtime_kind_to_name(self.runtime)

    @property
    def runtime_config(self) -> dict:
        """The tree's RUNTIME_CONFIG: runtime kind, aicpu_thread_num, and the platform it records."""
        return self.config.runtime_config()

    @property
    def chip_callable(self) -> bytes:
        """The packed callable image of the built tree (``ptokit.runtime.callable``): the
        orchestration and every kernel binary, what the simulator loads."""
        return self._prepare().image

    @property
    def orchestration_names(self) -> List[str]:
        """Names of the per-function sub-trees of a multi-orchestration tree (``next_levels/<name>/``),
        each reachable as ``compiled[name]``; empty for a tree with one orchestration."""
        if (self.output_dir / "orchestration" / "host_orch.py").is_file():
            return []
        sub = self.output_dir / NEXT_LEVELS
        if not sub.is_dir():
            return []
        return sorted(d.name for d in sub.iterdir() if (d / TREE_FILE).is_file())

    def __getitem__(self, name: str) -> "CompiledProgram":
        names = self.orchestration_names
        if name not in names:
            raise KeyError(f"no orchestration {name!r} under {self.output_dir / NEXT_LEVELS}; available: "
                           f"{names or 'none (this tree has one orchestration: call it directly)'}")
        return CompiledProgram.from_dir(self.output_dir / NEXT_LEVELS / name, platform=self.platform)

    def __fspath__(self) -> str:
        return str(self.output_dir)

    def __str__(self) -> str:
        return str(self.output_dir)

    def __repr__(self) -> str:
        return f"<CompiledProgram {self.output_dir} platform={self.platform} runtime={self.runtime.value}>"

    # ------------------------------------------------------------ calling
    def build_call_config(self, config: Optional[RunConfig] = None, **overrides) -> RunConfig:
        """The RunConfig a call would run with: ``config`` (default: this program's platform)
        with ``overrides`` (RunConfig fields, e.g. ``aicpu_thread_num=3``) applied, and the
        runtime kind / thread count the tree records filled in where the config leaves them
        unset.  An override that is not a RunConfig field is a TypeError naming it."""
        unknown = sorted(set(overrides) - set(FIELDS))
        if unknown:
            raise TypeError(f"build_call_config() got {', '.join(repr(u) for u in unknown)}, which "
                            f"{'is not a RunConfig field' if len(unknown) == 1 else 'are not RunConfig fields'}; "
                            f"the fields are: {', '.join(FIELDS)}")
        if config is not None and not isinstance(config, RunConfig):
            raise ArgumentError(f"config must be a ptokit.runtime.RunConfig, got {type(config).__name__}")
        if config is not None:
            config.checked()
        cfg = config if config is not None else RunConfig(platform=self.platform,
                                                          codegen_only=self.platform not in SIM_PLATFORMS)
        if overrides:
            cfg = cfg.replace(**overrides)
        from .runtime.launcher import resolve_config    # lazy: the runtime driver, needed only to run
        return resolve_config(self.config, cfg)

    def build_orch_args(self, *args, worker=None):
        """``(orch_args, coerced, return_style)`` for a call with ``args``.

        ``coerced`` is the full argument list in parameter order, with the left-out outputs
        allocated; ``orch_args`` is what the simulator is given (a ``DeviceTensor`` becomes the
        host memory behind it, found in ``worker`` or the open ``ChipWorker`` that allocated
        it); ``return_style`` says whether the outputs were left out (and are to be returned).
        Arguments are checked against the parameters: count, kinds, dtypes, shapes."""
        from .runtime.device import DeviceTensor, resolve_device_tensor   # lazy: ChipWorker is optional
        params = self.params
        if params is None:        # a tree without ORCHESTRATION params: arguments as given
            orch = [resolve_device_tensor(a, worker) if isinstance(a, DeviceTensor) else a for a in args]
            return orch, list(args), False
        n, outs = len(params), self.output_indices
        expected = f"{n} arguments ({', '.join(p.name for p in params)})"
        if outs:
            ins = ", ".join(p.name for i, p in enumerate(params) if i not in outs)
            expected += f", or {n - len(outs)} with the outputs left out ({ins})"
        if len(args) == n:
            full, return_style = list(args), False
        elif outs and len(args) == n - len(outs):
            it = iter(args)
            full = [None if i in outs else next(it) for i in range(n)]
            return_style = True
        else:
            raise ArgumentError(f"{self.name} takes {expected}; {len(args)} were given")
        orch = [resolve_device_tensor(a, worker) if isinstance(a, DeviceTensor) else a for a in full]
        try:
            dims = self.check_args(orch)
        except ArgumentError as exc:
            if not return_style:
                raise
            raise ArgumentError(f"{self.name} takes {expected}; called with {len(args)}, the outputs left out: "
                            f"{exc}") from None
        if return_style:
            torch_like = any(is_torch_tensor(a) for a in args)
            for i in outs:
                full[i] = orch[i] = self._allocate(params[i], dims, torch_like)
        return orch, full, return_style

    def _allocate(self, p: ParamInfo, dims: dict, torch_like: bool):
        shape = []
        for d in p.shape or ():
            names = set() if isinstance(d, int) else {n.id for n in ast.walk(ast.parse(str(d), mode="eval"))
                                                       if isinstance(n, ast.Name)}
            clash = next((dims[n] for n in sorted(names) if isinstance(dims.get(n), _Conflict)), None)
            if clash is not None:
                raise ArgumentError(f"cannot allocate output {p.name!r} of shape {list(p.shape)}: {clash}; pass "
                                    f"{p.name} explicitly")
            v = d if isinstance(d, int) else eval_dim(d, dims)
            if v is None:
                raise ArgumentError(f"cannot allocate output {p.name!r} of shape {list(p.shape)}: dimension {d} is "
                                f"not bound by any input; pass {p.name} explicitly")
            shape.append(v)
        if p.dtype is None:
            raise ArgumentError(f"cannot allocate output {p.name!r}: {TREE_FILE} gives it no dtype; pass it explicitly")
        return new_output(shape, p.dtype, torch_like)

    @api_boundary
    def __call__(self, *args, config: Optional[RunConfig] = None):
        if config is None:
            if self.platform not in SIM_PLATFORMS:
                raise ValueError(f"this program was compiled for the {self.platform!r} hardware platform: the "
                                 f"artifact tree is in {self.output_dir}, but running it needs the vendor "
                                 f"toolchain and device; compile with platform='{self.platform}sim' to run "
                                 f"on the CPU simulator")
            if self._default_config[0] != self.platform:     # frozen: one instance serves every call
                self._default_config = (self.platform, RunConfig(platform=self.platform))
            config = self._default_config[1]
        elif not isinstance(config, RunConfig):
            raise ArgumentError(f"config must be a ptokit.runtime.RunConfig, got {type(config).__name__}")
        else:
            config.checked()          # fields assigned since construction are validated on use
        target = self._for_config(config)
        orch, full, return_style = target.build_orch_args(*args)
        if config.codegen_only:       # compile only: the tree exists, nothing runs
            return None
        target.save_tree(config)
        # lazy: the simulator (ctypes driver, build cache; ~60 ms to load) is needed by a run, not
        # by compiling, and compile-only use (a hardware platform, `ptokit compile`) never runs
        from .runtime.launcher import run_tree
        result = run_tree(target.output_dir, orch, config)
        self.last_result = target.last_result = result
        if not return_style:
            return result
        outs = [full[i] for i in self.output_indices]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def save_tree(self, config: RunConfig) -> Optional[Path]:
        """``RunConfig.save_kernels_dir``: a copy of the artifact tree there (where the run's
        diagnostics go too)."""
        if not config.save_kernels_dir:
            return None
        dest = Path(config.save_kernels_dir)
        if dest.resolve() != self.output_dir:
            shutil.copytree(self.output_dir, dest, dirs_exist_ok=True)
        return dest

    def _for_config(self, config) -> "CompiledProgram":
        """This tree, or a sibling compiled for the RunConfig's platform / with its dumps."""
        want_dumps = (config.dump_passes and not (self.output_dir / "passes_dump").is_dir()) or \
            (config.dump_ptoas_passes and not (self.output_dir / "ptoas_passes").is_dir())
        compat = config.ptoas_compat or self.ptoas_compat     # RunConfig(ptoas_compat=None): the tree's
        if config.platform == self.platform and not want_dumps and compat == self.ptoas_compat:
            return self
        key = (config.platform, bool(config.dump_passes), bool(config.dump_ptoas_passes), compat)
        if key not in self._variants:
            if self.recompile is None:
                raise ValueError(f"this program was compiled for {self.platform!r}; RunConfig(platform="
                                 f"{config.platform!r}, dump_passes={config.dump_passes}, dump_ptoas_passes="
                                 f"{config.dump_ptoas_passes}, ptoas_compat={config.ptoas_compat!r}) needs it "
                                 f"compiled again with those options")
            suffix = config.platform + ("_dumps" if want_dumps else "") + (f"_ptoas{compat}" if compat else "")
            self._variants[key] = self.recompile(platform=config.platform, dump_passes=config.dump_passes,
                                                 dump_ptoas_passes=config.dump_ptoas_passes, ptoas_compat=compat,
                                                 output_dir=self.output_dir.with_name(f"{self.output_dir.name}_{suffix}"))
        return self._variants[key]

    def check_args(self, args) -> dict:
        """Arguments against the orchestration's parameters: kinds, dtypes, shapes.  ``None`` entries
        (outputs still to be allocated) are skipped.  Returns the dynamic dimensions the arguments
        bind; a dimension two tensors give different sizes is ``_Conflict`` (each tensor has its own
        sizes, as in pypto: the orchestration checks the dimensions it reads as values, and an output
        left out cannot be sized by it)."""
        params = self.params
        dyn: dict = {}
        if not params:
            return dyn
        names = ", ".join(p.name for p in params)
        if len(args) != len(params):
            raise ArgumentError(f"{self.name} takes {len(params)} arguments ({names}), {len(args)} were given")
        for i, (a, p) in enumerate(zip(args, params)):
            if a is None:
                continue
            shape = getattr(a, "shape", None)
            dtype = p.dtype.name if p.dtype is not None else "?"
            if p.kind == "scalar":
                if shape is not None and len(shape) > 0:
                    raise ArgumentError(f"argument {i} ({p.name}) is a scalar of {dtype}, got an array of shape "
                                    f"{tuple(shape)}")
                continue
            if not is_array(a):
                raise ArgumentError(f"argument {i} ({p.name}) must be an array of shape {list(p.shape or ())} {dtype}, "
                                f"got {a!r}")
            got_shape, got_dt = array_info(a, f"argument {i} ({p.name})")
            if p.dtype is not None and not p.dtype.accepts_array(got_dt):
                raise ArgumentError(f"argument {i} ({p.name}) must have dtype {p.dtype.name} ({p.dtype.numpy()}), "
                                f"got {getattr(a, 'dtype', got_dt)}")
            want = list(p.shape or ())
            if len(got_shape) != len(want):
                raise ArgumentError(f"argument {i} ({p.name}) must have shape {want}, got {got_shape}")
            for want_d, got_d in zip(want, got_shape):
                if isinstance(want_d, int):
                    if want_d != got_d:
                        raise ArgumentError(f"argument {i} ({p.name}) must have shape {want}, got {got_shape}")
                elif str(want_d).isidentifier():
                    seen = dyn.setdefault(want_d, got_d)
                    if isinstance(seen, _Conflict):
                        seen.sizes.append((p.name, got_d))
                    elif seen != got_d:
                        first = next(q.name for q, b in zip(params, args) if b is not None and q.kind != "scalar"
                                     and want_d in (q.shape or ()))
                        dyn[want_d] = _Conflict(want_d, [(first, seen), (p.name, got_d)])
        return dyn

