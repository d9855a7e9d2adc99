"""pack_tree: a built artifact tree becomes one image whose children are the kernel .so files."""
from __future__ import annotations

from pathlib import Path

from ptokit.artifacts.kernel_config import KernelConfig, KernelEntry, OrchestrationEntry, write_kernel_config
from ptokit.targets import RuntimeKind
from ptokit.runtime import callable as cc
from ptokit.runtime.build import build_tree


def test_pack_tree(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    root = (tmp_path / "prog").resolve()
    for rel, body in [("orchestration/main.cpp", 'extern "C" int o() { return 1; }\n'),
                      ("kernels/aiv/add.cpp", 'extern "C" void kernel_entry(long*) {}\n'),
                      ("kernels/aic/mm.cpp", 'extern "C" void kernel_entry(long* a) { a[0] = 1; }\n')]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    cfg = KernelConfig(
        runtime=RuntimeKind.TENSORMAP_AND_RINGBUFFER, aicpu_thread_num=0,
        orchestration=OrchestrationEntry(root / "orchestration" / "main.cpp", "aicpu_orchestration_entry",
                                         ["IN", "OUT"],
                                         [{"name": "a", "kind": "tensor", "dtype": "FP32", "shape": [4], "direction": "IN"},
                                          {"name": "s", "kind": "scalar", "dtype": "FP32"},
                                          {"name": "y", "kind": "tensor", "dtype": "FP32", "shape": [4], "direction": "OUT"}]),
        kernels=[KernelEntry(0, "add", root / "kernels" / "aiv" / "add.cpp", "aiv", ["IN", "IN", "OUT"]),
                 KernelEntry(1, "mm", root / "kernels" / "aic" / "mm.cpp", "aic", ["INOUT"])],
        root=root)
    write_kernel_config(root / "kernel_config.py", cfg)
    built = build_tree(root)
    img = cc.pack_tree(built)
    view = cc.unpack_chip_callable(img)
    assert view.func_name == "aicpu_orchestration_entry" and view.config_name == "prog"
    assert view.signature == [cc.IN, cc.SCALAR, cc.OUT]
    assert view.orchestration == Path(built.orchestration_so).read_bytes()
    assert [c.func_id for c in view.children] == [0, 1]
    assert view.children[0].signature == [1, 1, 2] and view.children[1].signature == [3]
    assert view.children[1].binary == Path(built.kernel_sos[1]).read_bytes()
    assert view.children[1].binary[:4] == b"\x7fELF"
    assert cc.pack_tree(built) == img  # deterministic
