"""Smoke test of bench/run.py: the quick run prints one table with every row.

Only the table's shape is checked, never a timing (machines are noisy).
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "bench" / "run.py"


def _load_run_module():
    spec = importlib.util.spec_from_file_location("ptokit_bench_run", RUN)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod        # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


bench = _load_run_module()

HEADER = ("metric", "value", "unit", "target", "ratio / notes")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench")
    user_cache = tmp / "user-cache"            # stands in for the user's cache: must stay untouched
    out_json = tmp / "bench.json"
    env = dict(os.environ, PTOKIT_CACHE_DIR=str(user_cache))
    # ~75 s on a quiet 2-core machine (the model rows' cold g++ builds ~25 s of it); the limit only
    # stops a hung run, with room for a machine shared by other suites (load 20: ~300 s)
    proc = subprocess.run([sys.executable, str(RUN), "--quick", "--json", str(out_json)], cwd=str(tmp),
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, json.loads(out_json.read_text()), user_cache


def test_prints_one_table_with_every_row(quick_run):
    stdout, data, _ = quick_run
    lines = stdout.splitlines()
    head = [i for i, line in enumerate(lines) if line.split()[:1] == ["metric"]]
    assert len(head) == 1, stdout
    h = head[0]
    for col in HEADER:
        assert col in lines[h]
    assert set(lines[h + 1].replace(" ", "")) == {"-"}
    body = lines[h + 2:h + 2 + len(bench.ROW_KEYS)]
    assert [r["key"] for r in data["rows"]] == bench.ROW_KEYS
    for line, row in zip(body, data["rows"]):
        assert line.startswith(row["metric"]), (line, row["metric"])
        assert f"  {row['unit']}  " in line
    # the line after the table is blank, then the summary
    assert lines[h + 2 + len(bench.ROW_KEYS)] == ""
    assert f"{len(bench.ROW_KEYS)} rows" in lines[h + 3 + len(bench.ROW_KEYS)]
    # aligned columns: the unit column starts at the same offset on every row
    unit_col = lines[h].index("unit")
    for line, row in zip(body, data["rows"]):
        assert line[unit_col:].startswith(row["unit"]), line


def test_json_numbers(quick_run):
    _, data, _ = quick_run
    assert data["quick"] is True and data["date"]
    keys = {r["key"]: r for r in data["rows"]}
    for r in data["rows"]:
        # the message leads with the row's key and value (a whole row's repr is cut off in reports)
        why = f"row {r['key']}: value {r['value']!r} ({type(r['value']).__name__}), reps {r['reps']}, notes {r['notes']!r}"
        assert isinstance(r["value"], float) and math.isfinite(r["value"]) and r["value"] > 0, why
        assert r["reps"] >= 1, why
        if r["target"] is not None:
            assert r["op"] in ("<=", ">=")
            assert r["verdict"].startswith(("ok (", "MISSED: ")), r
    # the rows the brief names, with their targets
    expect = {"import_time": ("s", "<=", 0.2), "compile_to_pto_config": ("ms", "<=", 50.0),
              "compile_tree": ("ms", "<=", 100.0), "assembler_small": ("ms", "<=", 20.0),
              "build_kernel_cold": ("s", "<=", 0.5), "run_one_task": ("ms", "<=", 5.0),
              "chain_tmr": ("us/task", "<=", 15.0), "chain_hbg": ("us/task", "<=", 15.0),
              "fan_tmr": ("us/task", "<=", 2.0), "fan_hbg": ("us/task", "<=", 2.0),
              "ew_sim": ("x numpy", ">=", 0.6), "ew_sim_large": ("x numpy", ">=", 0.8),
              "softmax_sim": ("x numpy", ">=", 0.8), "layernorm_sim": ("x numpy", ">=", 0.6)}
    for key, (unit, op, target) in expect.items():
        assert (keys[key]["unit"], keys[key]["op"], keys[key]["target"]) == (unit, op, target), key
    # the whole tree's compile is broken down into its stages (their times are measured in separate
    # runs, so how they add up is a figure for docs/benchmarks.md, not a test)
    for k in ("compile_parse", "compile_passes", "compile_pto", "compile_assemble", "compile_orchestration",
              "compile_config"):
        assert keys[k]["unit"] == keys["compile_tree"]["unit"], k


def test_user_cache_untouched(quick_run):
    _, _, user_cache = quick_run
    assert not user_cache.exists() or not any(user_cache.iterdir())


def test_verdict_says_by_how_much():
    missed = bench.Row("x", "m", 0.75, "s", "<=", 0.5)
    assert missed.verdict() == "MISSED: 1.5x the target (+0.250 s)"
    ok = bench.Row("x", "m", 0.25, "s", "<=", 0.5, notes="n")
    assert ok.verdict() == "ok (0.50x of target); n"
    short = bench.Row("x", "m", 0.2, "x numpy", ">=", 0.5)
    assert short.verdict() == "MISSED: 0.40x of the target (short by 0.300 x numpy)"
    assert bench.Row("x", "m", 3.0, "GB/s", notes="info").verdict() == "info"


def test_render_table_aligns_columns():
    rows = [bench.Row("a", "short", 1.0, "s", "<=", 2.0), bench.Row("b", "a much longer metric", 12345.0, "us")]
    text = bench.render_table(rows).splitlines()
    assert len(text) == 4
    assert text[0].startswith("metric")
    starts = {line.index(u) for line, u in ((text[0], "unit"), (text[2], "s  "), (text[3], "us"))}
    assert len(starts) == 1
    assert "12,345" in text[3] and "<= 2.00" in text[2]
