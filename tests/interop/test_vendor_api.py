"""The C++ surface the vendor assembler's output needs from ptokit's CPU tile library
(the NO/RUN items of the interop notes), case by case in vendor_api_cases.cpp."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
INCLUDE = HERE.parents[1] / "ptokit" / "runtime" / "include"
FLAGS = ["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-D__CPU_SIM", f"-I{INCLUDE}"]


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    d = tmp_path_factory.mktemp("vendor_api")
    out = {}
    procs = []
    for rule, defines in (("head", []), ("0.27", ["-DPTO_CPU_FIFO_NOSPLIT_LANE0"])):
        out[rule] = d / f"cases_{rule}"
        procs.append(subprocess.Popen(["g++", *FLAGS, *defines, str(HERE / "vendor_api_cases.cpp"), "-o",
                                       str(out[rule])], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    return out


def run(exe, *args, rule="head"):
    r = subprocess.run([str(exe[rule]), *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip()


def test_mask_setup_is_accepted(exe):
    assert run(exe, "masks") == "ok"


def test_get_subblockid_is_the_lane(exe):
    assert run(exe, "subblockid") == "0 1 0"        # lane 0, lane 1, the cube


def test_tassign_from_a_host_address_in_the_space(exe):
    # both forms bind to offset 1024 and alias the first tile's bytes
    assert run(exe, "tassign_address") == "1024 1024 7"


@pytest.mark.parametrize("case, text", [
    ("tassign_other_space", "fatal TASSIGN: address 0x"),
    ("tassign_foreign", "is neither a byte offset in its space nor inside this core's buffers"),
])
def test_tassign_address_errors(exe, case, text):
    out = run(exe, case)
    assert text in out
    if case == "tassign_other_space":
        assert "given to a Vec tile is inside this core's Mat buffer" in out


def test_tpop_binds_its_tile_to_the_consumer_slot(exe):
    # buffer at 4096, 1024-byte slots, LocalSlotNum 2: slots 0, 1, 0; data of pushes 0, 1, 2
    assert run(exe, "tpop_binds").splitlines() == ["4096 10", "5120 11", "4096 12"]


def test_tpop_of_a_pipe_without_buffers_needs_a_bound_tile(exe):
    assert "fatal TPOP: Vec tile (16x16) used before TASSIGN" in run(exe, "tpop_unbound_without_buffers")


def test_a_vector_core_constructing_a_pipe_attaches(exe):
    assert run(exe, "attach") == "1"                # the lane-1 pipe, not the cube's


@pytest.mark.parametrize("lanes, c2v, kept", [
    ("01", "lane0 1 lane1 1", "100"),               # pypto HEAD: 1:2, lane 0's copy kept
    ("0", "lane0 1 lane1 0", "100"),                # lane 1 never constructed the pipe (0.27's a5 code)
    ("1", "lane0 0 lane1 1", "200"),
])
def test_unsplit_pipe_reaches_the_lanes_that_take_part(exe, lanes, c2v, kept):
    out = run(exe, "lanes", lanes)
    assert f"c2v {c2v} asks 2" in out
    assert f"v2c kept {kept} at mat offset 8192" in out   # the cube's pop bound to its V2C buffer


def test_unsplit_pipe_with_no_lane_is_an_error(exe):
    assert "fatal TPOP: no vector lane of the cluster takes part in pipe 0" in run(exe, "lanes", "none")


def test_lane_join_failure_names_the_pipe(exe):
    assert "fatal TPUSH: timed out waiting on pipe 0 (C2V, lane 1)" in run(exe, "join_error")


def test_ptoas_027_rule_talks_to_aiv0_only(exe):
    out = run(exe, "lanes", "01", rule="0.27")
    assert "c2v lane0 1 lane1 0 asks 0" in out and "v2c kept 100" in out
