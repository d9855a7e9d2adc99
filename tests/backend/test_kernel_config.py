"""kernel_config.py writer/reader: format, round trip, validation."""
from __future__ import annotations

from pathlib import Path

import pytest

from ptokit.artifacts.kernel_config import (
    KernelConfig, KernelEntry, OrchestrationEntry, read_kernel_config, write_kernel_config,
)
from ptokit.errors import UserError
from ptokit.targets import RuntimeKind

GOLDEN = '''# Kernel and Orchestration Configuration
from pathlib import Path
_ROOT_DIR = Path(__file__).parent

RUNTIME_CONFIG = {
\t"runtime": "tensormap_and_ringbuffer",
\t"aicpu_thread_num": 0,
}
ORCHESTRATION = {
\t"source": str(_ROOT_DIR / "orchestration" / "main.cpp"),
\t"function_name": "aicpu_orchestration_entry",
\t"signature": ["IN", "IN", "OUT"],
}
KERNELS = [
\t{"func_id": 0, "name": "add", "source": str(_ROOT_DIR / "kernels" / "aiv" / "add.cpp"), "core_type": "aiv", "signature": ["IN", "IN", "OUT"]},
]
'''


def _cfg(root: Path, runtime=RuntimeKind.TENSORMAP_AND_RINGBUFFER, params=None, kernels=None) -> KernelConfig:
    root = root.resolve()
    if kernels is None:
        kernels = [KernelEntry(0, "add", root / "kernels" / "aiv" / "add.cpp", "aiv", ["IN", "IN", "OUT"])]
    return KernelConfig(
        runtime=runtime,
        aicpu_thread_num=0,
        orchestration=OrchestrationEntry(root / "orchestration" / "main.cpp", "aicpu_orchestration_entry",
                                         ["IN", "IN", "OUT"], params),
        kernels=kernels,
        root=root,
    )


def test_golden_text(tmp_path):
    path = write_kernel_config(tmp_path / "kernel_config.py", _cfg(tmp_path))
    assert path.read_text() == GOLDEN


def test_golden_file_reads(tmp_path):
    (tmp_path / "kernel_config.py").write_text(GOLDEN)
    cfg = read_kernel_config(tmp_path)
    assert cfg == _cfg(tmp_path)
    assert cfg.orchestration.params is None  # no params key: fine


def test_round_trip_with_params_and_sorting(tmp_path):
    root = tmp_path.resolve()
    kernels = [
        KernelEntry(2, "mm", root / "kernels" / "aic" / "mm.cpp", "aic", ["IN", "IN", "OUT"]),
        KernelEntry(0, "exp", root / "kernels" / "aiv" / "exp.cpp", "aiv", ["IN", "OUT"]),
        KernelEntry(1, "acc", root / "kernels" / "aiv" / "acc.cpp", "aiv", ["INOUT"]),
    ]
    params = [
        {"name": "a", "kind": "tensor", "dtype": "FP32", "shape": [64, "M"], "direction": "IN"},
        {"name": "s", "kind": "scalar", "dtype": "FP32"},
    ]
    cfg = _cfg(root, runtime=RuntimeKind.HOST_BUILD_GRAPH, params=params, kernels=kernels)
    write_kernel_config(root / "kernel_config.py", cfg)
    text = (root / "kernel_config.py").read_text()
    assert '"runtime": "host_build_graph"' in text
    lines = [ln for ln in text.splitlines() if ln.startswith('\t{"func_id"')]
    assert [ln.split(",")[0] for ln in lines] == ['\t{"func_id": 0', '\t{"func_id": 1', '\t{"func_id": 2']
    back = read_kernel_config(root / "kernel_config.py")
    cfg.kernels.sort(key=lambda k: k.func_id)
    assert back == cfg
    # deterministic: writing the read-back config gives identical bytes
    write_kernel_config(root / "again.py", back)
    assert (root / "again.py").read_text() == text


def test_tree_is_relocatable(tmp_path):
    a = tmp_path / "a"
    write_kernel_config(a / "kernel_config.py", _cfg(a))
    b = tmp_path / "b"
    a.rename(b)
    cfg = read_kernel_config(b / "kernel_config.py")
    assert cfg.kernels[0].source == b.resolve() / "kernels" / "aiv" / "add.cpp"
    assert cfg.root == b.resolve()


def test_a_source_outside_the_tree_keeps_its_absolute_path(tmp_path):
    # a kernel's external_source= file: the tree moves, the file stays where it lies
    outside = (tmp_path / "user" / "kernels" / "k.cpp").resolve()
    a = tmp_path / "a"
    write_kernel_config(a / "kernel_config.py", _cfg(a, kernels=[KernelEntry(0, "k", outside, "aiv", ["INOUT"])]))
    assert f'"source": "{outside}"' in (a / "kernel_config.py").read_text()
    a.rename(tmp_path / "b")
    assert read_kernel_config(tmp_path / "b" / "kernel_config.py").kernels[0].source == outside


def test_unknown_runtime_name_lists_valid(tmp_path):
    (tmp_path / "kernel_config.py").write_text(GOLDEN.replace("tensormap_and_ringbuffer", "aicpu_build_graph"))
    with pytest.raises(ValueError) as ei:
        read_kernel_config(tmp_path)
    msg = str(ei.value)
    assert "aicpu_build_graph" in msg and "tensormap_and_ringbuffer" in msg and "host_build_graph" in msg


def test_foreign_tree_without_optional_keys(tmp_path):
    (tmp_path / "kernel_config.py").write_text(
        "from pathlib import Path\n_KERNELS_ROOT = Path(__file__).parent\n"
        "ORCHESTRATION = {'source': str(_KERNELS_ROOT / 'orch' / 'o.cpp'), 'function_name': 'build'}\n"
        "KERNELS = [{'func_id': 0, 'source': str(_KERNELS_ROOT / 'aiv' / 'kernel_add.cpp'), 'core_type': 'aiv'}]\n")
    cfg = read_kernel_config(tmp_path / "kernel_config.py")
    assert cfg.runtime is RuntimeKind.TENSORMAP_AND_RINGBUFFER and cfg.aicpu_thread_num == 0
    assert cfg.kernels[0].name == "kernel_add" and cfg.kernels[0].signature == []
    assert cfg.orchestration.signature == [] and cfg.orchestration.params is None


@pytest.mark.parametrize("mutate, key", [
    (lambda t: t.replace('"core_type": "aiv"', '"core_type": "gpu"'), "KERNELS[0]['core_type']"),
    (lambda t: t.replace('"function_name": "aicpu_orchestration_entry",\n', ''), "ORCHESTRATION['function_name']"),
    (lambda t: t.replace('KERNELS = [', 'KERNELZ = ['), "KERNELS"),
    (lambda t: t.replace('{"func_id": 0, ', '{'), "KERNELS[0]['func_id']"),
    (lambda t: t.replace('"signature": ["IN", "IN", "OUT"]}', '"signature": ["IN", "SIDEWAYS"]}'),
     "KERNELS[0]['signature'][1]"),
])
def test_validation_names_file_and_key(tmp_path, mutate, key):
    path = tmp_path / "kernel_config.py"
    path.write_text(mutate(GOLDEN))
    with pytest.raises(UserError) as ei:
        read_kernel_config(path)
    assert str(path.resolve()) in str(ei.value)
    assert key in str(ei.value)


def test_unsorted_ids_rejected(tmp_path):
    line = GOLDEN.splitlines()[-2]
    text = GOLDEN.replace(line, line.replace('"func_id": 0', '"func_id": 1') + "\n" + line)
    path = tmp_path / "kernel_config.py"
    path.write_text(text)
    with pytest.raises(UserError, match=r"KERNELS\[1\]\['func_id'\].*sorted"):
        read_kernel_config(path)


def test_syntax_error_is_user_error(tmp_path):
    path = tmp_path / "kernel_config.py"
    path.write_text("KERNELS = [\n")
    with pytest.raises(UserError, match="cannot load"):
        read_kernel_config(path)


def _with_params(tmp_path, entry: str) -> Path:
    text = GOLDEN.replace('\t"signature": ["IN", "IN", "OUT"],\n}', '\t"signature": ["IN", "IN", "OUT"],\n'
                          f'\t"params": [\n\t\t{entry},\n\t],\n}}', 1)
    assert '"params"' in text
    path = tmp_path / "kernel_config.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("entry, key, what", [
    ('{"name": "a", "kind": "tensor", "dtype": "FP33", "shape": [64, 64], "direction": "IN"}',
     "ORCHESTRATION['params'][0]['dtype']", "'FP33' is not a dtype name; expected one of FP16, BF16, FP32"),
    ('{"name": "s", "kind": "scalar", "dtype": 32}',
     "ORCHESTRATION['params'][0]['dtype']", "32 is not a dtype name"),
    ('{"name": "a", "kind": "tensor", "dtype": "FP32", "shape": "64x64", "direction": "IN"}',
     "ORCHESTRATION['params'][0]['shape']", "expected a list of dimensions such as [64, 64]"),
    ('{"name": "a", "kind": "tensor", "dtype": "FP32", "shape": ["64x64"], "direction": "IN"}',
     "ORCHESTRATION['params'][0]['shape'][0]", "dimension '64x64' is not an integer expression"),
    ('{"name": "a", "kind": "tensor", "dtype": "FP32", "shape": [64, -1], "direction": "IN"}',
     "ORCHESTRATION['params'][0]['shape'][1]", "expected a non-negative int or a dimension name"),
    ('{"name": "a", "kind": "tensor", "dtype": "FP32", "shape": [64, 6.4], "direction": "IN"}',
     "ORCHESTRATION['params'][0]['shape'][1]", "got 6.4"),
])
def test_malformed_params_are_refused_at_read(tmp_path, entry, key, what):
    """docs/build-cache.md: a malformed params entry is a UserError naming the file and the key,
    when the tree is read, not a failure when it runs (issue 31, item 6)."""
    path = _with_params(tmp_path, entry)
    with pytest.raises(UserError) as ei:
        read_kernel_config(path)
    msg = str(ei.value)
    assert str(path.resolve()) in msg and key in msg and what in msg, msg


def test_well_formed_params_read(tmp_path):
    path = _with_params(tmp_path, '{"name": "a", "kind": "tensor", "dtype": "BF16", "shape": ["M", "(M // 2)", 64], '
                                  '"direction": "INOUT"}')
    [p] = read_kernel_config(path).orchestration.params
    assert p["dtype"] == "BF16" and p["shape"] == ["M", "(M // 2)", 64]


def test_param_dtype_names_are_the_ir_dtypes_with_storage():
    from ptokit.artifacts.kernel_config import PARAM_DTYPES
    from ptokit.ir.kinds import DType
    assert set(PARAM_DTYPES) == {d.name for d in DType if d.supported}
