"""The distributed artifact formats: distributed_config.py (read as data), host_orch.py (run only
when its sha256 matches), and the chip trees' kernel_config.py additions (RUNTIME_CONFIG
["distributed"], params of kind window / comm_ctx)."""
from __future__ import annotations

import json

import pytest

from dist_util import write_tree, tensor, window, ctx

from ptokit.artifacts.distributed_config import (ChipEntry, DistributedManifest, ScriptEntry, read_distributed_config,
                                                 render_distributed_config, write_distributed_config)
from ptokit.artifacts.host_orch import load_script_function, sha256_text, write_script
from ptokit.artifacts.kernel_config import (KernelConfig, OrchestrationEntry, is_scalar_param, param_direction,
                                            param_dtype, read_kernel_config, write_kernel_config)
from ptokit.errors import ConfigError, UserError
from ptokit.targets import DistributedConfig, RuntimeKind

HOST = "def entry(rt, tensors, world_size):\n    pass\n"


def _manifest(root, **kw):
    sha = write_script(root / "orchestration" / "host_orch.py", HOST)
    base = dict(world_size=2, device_ids=[0, 1], platform="a2a3sim", runtime=RuntimeKind.HOST_BUILD_GRAPH,
                entry=ScriptEntry(root / "orchestration" / "host_orch.py", "entry", sha),
                chips=[ChipEntry("chip_orch", root / "next_levels" / "chip_orch")], root=root, world_size_name="NR",
                params=[tensor("x", "FP32", ["NR", 8, 8])],
                domains=[{"name": "main", "slots": [{"name": "buf", "nbytes": 1024}]}],
                collectives=[{"op": "allreduce", "key": "k", "chip": "chip_orch"}])
    base.update(kw)
    return DistributedManifest(**base)


def test_manifest_round_trip(tmp_path):
    m = _manifest(tmp_path)
    path = write_distributed_config(tmp_path, m)
    text = path.read_text()
    assert text.startswith("# Distributed Program Configuration\nDISTRIBUTED = {\n")
    assert '"runtime": "host_build_graph"' in text and '"path": "next_levels/chip_orch"' in text
    back = read_distributed_config(tmp_path)
    assert (back.world_size, back.device_ids, back.runtime, back.world_size_name) == (2, [0, 1],
                                                                                      RuntimeKind.HOST_BUILD_GRAPH, "NR")
    assert back.chip("chip_orch").path == tmp_path.resolve() / "next_levels" / "chip_orch"
    assert back.entry.sha256 == sha256_text(HOST)
    assert back.domain("main")["slots"] == [{"name": "buf", "nbytes": 1024}]
    assert render_distributed_config(back) == text                  # deterministic: same text again


@pytest.mark.parametrize("line, match", [
    ("import os", "only one `DISTRIBUTED = {...}` assignment of literals"),
    ("X = 1", "only one `DISTRIBUTED = {...}` assignment of literals"),
])
def test_reader_never_runs_the_file(tmp_path, line, match):
    write_distributed_config(tmp_path, _manifest(tmp_path))
    path = tmp_path / "distributed_config.py"
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(UserError, match=match) as ei:
        read_distributed_config(tmp_path)
    assert f"{path.resolve()}:" in str(ei.value) and "^" in str(ei.value)     # located, with a caret


def test_reader_rejects_calls_in_values(tmp_path):
    path = tmp_path / "distributed_config.py"
    path.write_text('DISTRIBUTED = {"device_ids": list(range(2))}\n')
    with pytest.raises(UserError, match="the value of DISTRIBUTED must be literals only"):
        read_distributed_config(tmp_path)


@pytest.mark.parametrize("edit, exc, match", [
    (('"device_ids": [0, 1]', '"device_ids": [0, 0]'), UserError, "device ids must be distinct"),
    (('"world_size": 2', '"world_size": 3'), UserError, "does not equal the 2 device ids"),
    (('"runtime": "host_build_graph"', '"runtime": "ring"'), ConfigError, "unknown runtime kind 'ring'"),
    (('"transport": "shm"', '"transport": "tcp"'), ConfigError, "expected one of shm, mpi"),
    (('"path": "next_levels/chip_orch"', '"path": "../elsewhere"'), UserError, "stay inside it"),
    (('"chip": "chip_orch"', '"chip": "nope"'), UserError, "'nope' is not one of the tree's chips"),
    (('"nbytes": 1024', '"nbytes": 0'), UserError, "expected a positive byte count"),
])
def test_reader_names_the_bad_key(tmp_path, edit, exc, match):
    write_distributed_config(tmp_path, _manifest(tmp_path))
    path = tmp_path / "distributed_config.py"
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1]))
    with pytest.raises(exc, match=match):
        read_distributed_config(tmp_path)


def test_host_program_checks(tmp_path):
    with pytest.raises(UserError, match="import nothing") as ei:
        write_script(tmp_path / "a.py", "import os\ndef entry(rt, tensors, world_size):\n    pass\n")
    assert "a.py:1:1" in str(ei.value)
    with pytest.raises(UserError, match=r"takes \(rt\); expected \(rt, tensors, world_size\)"):
        write_script(tmp_path / "b.py", "def entry(rt):\n    pass\n")
    with pytest.raises(UserError, match="defines no function `entry`"):
        write_script(tmp_path / "c.py", "x = 1\n")
    sha = write_script(tmp_path / "d.py", "def entry(rt, tensors, world_size):\n    return __import__('os')\n")
    fn = load_script_function(tmp_path / "d.py", sha)
    with pytest.raises(NameError):                                    # no __import__ in its builtins either
        fn(None, [], 2)
    with pytest.raises(UserError, match="records 'f+'"):
        load_script_function(tmp_path / "d.py", "f" * 64)


def test_distributed_config_values():
    c = DistributedConfig(device_ids=[3, 1])
    assert c.world_size == 2 and c.runtime is RuntimeKind.TENSORMAP_AND_RINGBUFFER and c.transport == "shm"
    assert c.cache_key() == (2, "tensormap_and_ringbuffer", 0)
    for kw, match in [(dict(device_ids=[]), "at least one device"), (dict(device_ids=[0, -1]), "integers >= 0"),
                      (dict(device_ids=list(range(65))), "at most 64 ranks"), (dict(transport="gloo"), "valid transports"),
                      (dict(block_dim=24), "block_dim=24: not supported yet"), (dict(runtime="x"), "unknown runtime"),
                      (dict(aicpu_thread_num=-1), "aicpu_thread_num=-1")]:
        with pytest.raises(ValueError, match=match):
            DistributedConfig(**kw)


def _chip_config(root, params, distributed):
    (root / "o.cpp").write_text("// orchestration\n")
    return KernelConfig(runtime=RuntimeKind.TENSORMAP_AND_RINGBUFFER, aicpu_thread_num=0,
                        orchestration=OrchestrationEntry(root / "o.cpp", "aicpu_orchestration_entry", [], params),
                        kernels=[], root=root, platform="a2a3sim", distributed=distributed)


def test_kernel_config_distributed_keys_round_trip(tmp_path):
    params = [tensor("x", "FP32", [8]), window("buf", "FP32", [8]), {"name": "n", "kind": "scalar", "dtype": "INT32"},
              ctx("buf")]
    write_kernel_config(tmp_path / "kernel_config.py", _chip_config(tmp_path, params, {"world_size": "NR", "comm_abi": 1}))
    text = (tmp_path / "kernel_config.py").read_text()
    assert '"distributed": {"world_size": "NR", "comm_abi": 1}' in text
    kc = read_kernel_config(tmp_path)
    assert kc.distributed == {"world_size": "NR", "comm_abi": 1}
    got = kc.orchestration.params
    assert [p["kind"] for p in got] == ["tensor", "window", "scalar", "comm_ctx"] and got[3]["for"] == "buf"
    assert [is_scalar_param(p) for p in got] == [False, False, True, True]
    assert [param_direction(p) for p in got[:2]] == ["IN", "INOUT"]          # a window is INOUT by default
    assert [param_dtype(p) for p in got] == [None, None, "INT32", "UINT64"]   # the CommContext address


@pytest.mark.parametrize("params, distributed, match", [
    ([window("buf", "FP32", [8]), ctx("other")], {"world_size": 2}, r"'other' does not name a window param \(buf\)"),
    ([{"name": "q", "kind": "queue"}], {"world_size": 2}, "'queue' is not one of"),
    ([], {"world_size": 0}, "expected a rank count 1..64"),
    ([], {"world_size": 2, "comm_abi": 2}, "CommContext ABI 2 is not the one"),
])
def test_kernel_config_reader_rejects(tmp_path, params, distributed, match):
    cfg = _chip_config(tmp_path, params, None)
    write_kernel_config(tmp_path / "kernel_config.py", cfg)
    path = tmp_path / "kernel_config.py"
    text = path.read_text()
    if distributed is not None:
        text = text.replace('\t"platform": "a2a3sim",\n', f'\t"platform": "a2a3sim",\n\t"distributed": {json.dumps(distributed)},\n')
    path.write_text(text)
    with pytest.raises(UserError, match=match):
        read_kernel_config(tmp_path)


def test_trees_without_the_new_keys_read_as_before(tmp_path):
    write_kernel_config(tmp_path / "kernel_config.py", _chip_config(tmp_path, [tensor("x", "FP32", [8])], None))
    kc = read_kernel_config(tmp_path)
    assert kc.distributed is None and "distributed" not in (tmp_path / "kernel_config.py").read_text()


def test_write_tree_records_the_host_sha(tmp_path):
    tree = write_tree(tmp_path / "t", HOST, [], [])
    m = read_distributed_config(tree)
    assert m.entry.sha256 == sha256_text(HOST) and m.chips == []
