"""``@pl.jit.host``: the function form of a distributed program's host function.

The host body calls ``@pl.jit`` chip functions (with ``device=r``, or without: round-robin);
each is specialized from its own annotations (a static shape: ``pl.Tensor[[1, 64], pl.FP32]``,
``pld.DistributedTensor[...]``, ``pl.Scalar[...]``) or, for a bare ``pl.Tensor``, from the host
tensor the call passes, and compiled into ``next_levels/<fn>/``.  A bare ``pl.Tensor`` host
parameter takes its shape and dtype from the arguments of ``compile`` (or of the call).
``hostfn.compile(*args, config=RunConfig(distributed_config=...))`` returns the
``DistributedCompiledProgram``; ``hostfn(*args, config=...)`` compiles (once per world size,
device ids, runtime and platform) and runs.
"""
from __future__ import annotations

import ast
import functools
import inspect
from pathlib import Path
from typing import Dict, Optional

import numpy as np

from ..errors import CompileError, UserError, api_boundary
from ..ir import nodes as N
from ..language.source import Source, eval_static
from ..language.annotations import function_params
from ..language.binder import Given, bind_values
from ..language.types import DirAnnot, TensorAnnot
from ..runtime.config import RunConfig
from .helpers import function_scope
from .specialize import ArgSpec, specialize


def chip_specs(jf, values=None) -> list:
    """ArgSpecs of a @pl.jit chip function from its annotations; a bare ``pl.Tensor`` takes the
    shape and dtype of the host value passed for it (``values``: the call's argument Values)."""
    specs = []
    for i, ann in enumerate(jf.param_infos()):
        v = values[i] if values is not None and i < len(values) else None
        if ann.kind == "tensor" and ann.bare and v is not None and v.kind == "tensor" and v.dtype is not None:
            specs.append(ArgSpec(ann.name, "tensor", ann.direction, tuple(v.shape), v.dtype))
        elif ann.kind == "tensor" and not ann.bare:
            if not all(isinstance(d, int) for d in ann.shape):
                raise UserError(f"chip function {jf.fn.__name__}: parameter {ann.name!r} needs a static shape when it "
                                f"is called from a @pl.jit.host function")
            specs.append(ArgSpec(ann.name, "tensor", ann.direction, tuple(ann.shape), ann.dtype, window=ann.window))
        elif ann.kind == "scalar" and ann.dtype is not None:
            specs.append(ArgSpec(ann.name, "scalar", dtype=ann.dtype))
        else:
            raise UserError(f"chip function {jf.fn.__name__}: parameter {ann.name!r} needs an annotation with a shape "
                            f"and dtype (pl.Tensor[[...], dtype], pld.DistributedTensor[...], pl.Scalar[dtype]) when "
                            f"it is called from a @pl.jit.host function")
    return specs


class HostJitFunction:
    """What ``@pl.jit.host`` returns."""

    def __init__(self, fn, *, platform: str = "a2a3sim", runtime=None):
        if not inspect.isfunction(fn):
            raise TypeError(f"@pl.jit.host decorates a function, got {fn!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.platform = platform
        self.runtime = runtime
        self._compiled: Dict[tuple, object] = {}
        self.last_compiled = None

    def __repr__(self) -> str:
        return f"<ptokit jit host function {self.fn.__module__}.{self.fn.__qualname__}>"

    @api_boundary
    def compile(self, *args, config: Optional[RunConfig] = None, output_dir=None):
        # lazy: the compiler stack loads on first compile (as JitFunction does)
        from ..distributed_build import build_tree, builtin_chips, check_config
        from ..distributed_compiled import DistributedCompiledProgram
        from ..language.host import ChipCall, HostReader
        from ..language.host_collectives import collective_call
        from ..toolchain import default_output_dir
        from .frontend import build_program
        from .function import JitFunction
        config = config or RunConfig(platform=self.platform)
        dconfig = check_config(config.distributed_config)
        src = Source(self.fn)
        item = src.tree.body[0]
        g = function_scope(self.fn)
        programs: Dict[str, N.Program] = {}
        specs_of: Dict[str, list] = {}

        def resolve(func, call=None) -> Optional[ChipCall]:
            try:
                target = eval_static(func, src, g, "a callee")
            except CompileError:
                return None
            if isinstance(target, JitFunction):
                name = target.fn.__name__
                values = [reader.expr(a) for a in call.args] if call is not None else None
                specs = chip_specs(target, values)
                if name not in programs:
                    programs[name], specs_of[name] = build_program(target.fn, specs), specs
                elif specs != specs_of[name]:
                    raise CompileError(f"{name} is called with other shapes or dtypes than at its first call; a host "
                                       f"function calls each chip function with one specialization", src.loc(func))
                return ChipCall(name, programs[name].functions[name])
            if getattr(target, "__pto_function__", None) is not None or type(target).__name__ == "JitHelper":
                raise CompileError(f"{ast.unparse(func)} is a kernel: a host function calls @pl.jit chip functions "
                                   f"(which call kernels)", src.loc(func))
            return None

        reader = HostReader(item, src, g, False, resolve, collective_call, world_size=dconfig.world_size,
                            annotations=self._bare_annotations(args))
        host = reader.read()
        chips = {c: programs[c] for c in host.chips}
        chips.update(builtin_chips(host, config.platform))
        out = (Path(output_dir) if output_dir is not None else default_output_dir(self.fn.__name__)).resolve()
        out.mkdir(parents=True, exist_ok=True)
        build_tree(self.fn.__name__, host, chips, dconfig, out, config.platform, self.runtime, src.file,
                   memory_planner=getattr(config, "memory_planner", None))
        compiled = DistributedCompiledProgram(out, distributed_config=dconfig, platform=config.platform)
        self.last_compiled = compiled
        return compiled

    def _bare_annotations(self, args) -> dict:
        """The annotations of bare ``pl.Tensor`` host parameters, from the arguments: the shape
        and dtype of each array (specialize's rules, as for ``@pl.jit``)."""
        read = function_params(self.fn)
        infos = [ann for _, ann, _ in read]
        bare = [i for i in infos if i.kind == "tensor" and i.bare]
        if not bare:
            return {}
        bound = bind_values(self.fn.__name__, [sp for sp, _, _ in read], args, {},
                            hint=" (a bare pl.Tensor takes its shape and dtype from its argument: pass sample arrays)")
        from ..runtime.device import DeviceTensor   # lazy: the runtime's buffers load with a compile
        samples = [np.zeros(a.shape, a.ir_dtype.numpy()) if isinstance(a, DeviceTensor) else
                   a.value if isinstance(a, Given) else a for a in bound.values()]
        specs, _ = specialize(infos, samples)
        out = {}
        for info, spec in zip(infos, specs):
            if info in bare:
                annot = TensorAnnot(tuple(spec.shape), spec.dtype)
                out[info.name] = DirAnnot(info.direction, annot) if info.direction != "IN" else annot
        return out

    @api_boundary
    def __call__(self, *args, config: Optional[RunConfig] = None):
        # lazy: as in compile
        from ..distributed_build import check_config
        config = config or RunConfig(platform=self.platform)
        if config.distributed_config is None:      # pypto's rule: one device (DistributedConfig())
            config = config.replace(distributed_config=check_config(None))
        # bare pl.Tensor parameters specialize on the arrays: their shapes and dtypes are part of the key
        bare = tuple(sorted((n, repr(a)) for n, a in self._bare_annotations(args).items()))
        key = (config.platform,) + tuple(config.distributed_config.cache_key()) + bare
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = self.compile(*args, config=config)
        compiled(*args, config=config)
        return None


def host(fn=None, **options):
    """``@pl.jit.host`` or ``@pl.jit.host(platform="a5sim")``."""
    if fn is None:
        return lambda f: HostJitFunction(f, **options)
    return HostJitFunction(fn, **options)
