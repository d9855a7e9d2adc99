"""Build cache, callable image, simulator and run configuration; pypto's ``pypto.runtime`` names.

* ``RunConfig`` -- the validated run configuration (every pypto field, plus the simulator's);
* ``RunResult`` -- what a run returns;
* ``TensorSpec`` / ``ScalarSpec`` -- arguments of a golden-checked ``run``;
* ``ChipWorker`` / ``DeviceTensor`` / ``RegistrationHandle`` -- explicit dispatch;
* ``run``, ``compile_program`` (compile and run a program: ``ptokit.harness``), and
  ``execute_compiled`` (run an artifact tree);
* ``ExternalTensor`` -- a run argument used in place, no copies (distributed windows, the arena);
* ``Worker`` -- the abstract worker both ``ChipWorker`` and ``DistributedWorker`` are;
* ``benchmark`` / ``BenchmarkStats`` -- launch a compiled program many times and time each launch;
* ``DistributedWorker``, ``execute_distributed_compiled`` -- ``distributed_runner``'s names;
* ``ensure_pto_isa_root`` / ``pto_isa_include_dir``, ``configure_log`` / ``log_level``.

Only ``RunConfig`` is imported with the package; the rest load on first use, so that
``ptokit.runtime.RunConfig`` stays cheap.
"""
import importlib

from .config import RunConfig

_LAZY = {
    "RunResult": ".records",
    "TensorSpec": ".specs",
    "ScalarSpec": ".specs",
    "ChipWorker": ".device",
    "DeviceTensor": ".device",
    "RegistrationHandle": ".device",
    "execute_compiled": ".execute",
    "GoldenMismatch": ".golden",
    "ExternalTensor": ".external",
    "Worker": ".worker",
    "benchmark": ".bench",
    "BenchmarkStats": ".bench",
    "DistributedWorker": ".distributed_runner",
    "execute_distributed_compiled": ".distributed_runner",
    "ensure_pto_isa_root": ".pto_isa",
    "pto_isa_include_dir": ".pto_isa",
    "configure_log": ".log_config",
}
_RENAMED = {"log_level": (".log_config", "current_level")}   # pypto's name -> (module, name there)
# compiling is a later stage than the runtime: pypto spells these pypto.runtime.run /
# compile_program, so they are re-exported from the harness on first use
_HARNESS = ("run", "compile_program")


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    if name in _RENAMED:
        module, attr = _RENAMED[name]
        return getattr(importlib.import_module(module, __name__), attr)
    if name in _HARNESS:
        from .. import harness   # lazy: the harness compiles, a later stage than this package
        return getattr(harness, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RunConfig", "RunResult", "TensorSpec", "ScalarSpec", "ChipWorker", "DeviceTensor",
           "RegistrationHandle", "execute_compiled", "GoldenMismatch", "run", "compile_program", "ExternalTensor",
           "Worker", "benchmark", "BenchmarkStats", "DistributedWorker", "execute_distributed_compiled",
           "ensure_pto_isa_root", "pto_isa_include_dir", "configure_log", "log_level"]
