"""Run a ``pytest --pto-corpus=DIR`` corpus through a real ``ptoas`` and group what it refuses.

    python tests/interop/check_corpus.py DIR --ptoas PATH/TO/ptoas [-j 2] [--rows OUT]

Each ``DIR/default/*.pto`` and ``DIR/compat-0.27/*.pto`` goes through the tool with the command line of
docs/assembler.md (``ptoas X.pto -o X.cpp --pto-level=level3 --pto-arch a3|a5 --enable-insert-sync``, the
arch from the module's ``pto.target_arch``); its C++ lands beside it (``X.real.cpp``). Written:
``DIR/<mode>/results.tsv`` (``file, arch, ok|rejected, first error``) and, on stdout, accepted/total per
mode and the rejections grouped by their first error, largest group first, each with an example file and
the test that wrote it (``DIR/index.tsv``). With ``--rows OUT`` the smallest accepted file using each
dialect row is copied to ``OUT/<name>.pto`` + ``.real.cpp`` and its rows listed in ``OUT/picked.tsv``
(how tests/interop/fixtures/rows/ is filled; rows.tsv then names them).

Nothing here builds ptoas; the tool is given.
"""
from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

MODES = ("default", "compat-0.27")
_LOC = re.compile(r"^(?:loc\(\"?)?[^:\s]*\.(?:pto|py|mlir)\"?:\d+:\d+\)?:\s*")


def arch_of(text: str) -> str:
    m = re.search(r'pto\.target_arch\s*=\s*"(\w+)"', text)
    return "a5" if m and m.group(1) == "a5" else "a3"


def first_error(output: str) -> str:
    """The first ``error:`` line of the tool's output without its location, else its first non-empty
    line (a crash); '' for no output."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return _LOC.sub("", line.split("error:", 1)[1].strip())
    return lines[0][:200] if lines else ""


def group_key(message: str) -> str:
    """The message with what varies per file (SSA names, numbers, tile types) blanked, so one rule
    broken in many files is one group."""
    key = re.sub(r"!pto\.tile_buf<[^>]*>", "!pto.tile_buf<...>", message)
    key = re.sub(r"%[\w#]+", "%v", key)
    key = re.sub(r"\b\d+\b", "N", key)
    return key[:200]


def run_one(ptoas: str, pto: Path, timeout: float = 120.0) -> Tuple[str, bool, str]:
    arch = arch_of(pto.read_text())
    out = pto.with_suffix(".real.cpp")
    cmd = [ptoas, str(pto), "-o", str(out), "--pto-level=level3", f"--pto-arch={arch}", "--enable-insert-sync"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return arch, False, f"timed out after {timeout:.0f} s"
    ok = proc.returncode == 0 and out.is_file()
    if not ok and out.exists():
        out.unlink()
    return arch, ok, "" if ok else (first_error(proc.stderr + "\n" + proc.stdout) or f"exit {proc.returncode}")


def writers(root: Path) -> Dict[Tuple[str, str], str]:
    """(mode, file) -> the first test that wrote it."""
    out: Dict[Tuple[str, str], str] = {}
    index = root / "index.tsv"
    if index.is_file():
        for line in index.read_text().splitlines():
            parts = line.split("\t")
            if len(parts) == 3:
                out.setdefault((parts[0], parts[1]), parts[2])
    return out


def check(root: Path, ptoas: str, jobs: int = 2) -> Dict[str, List[Tuple[str, str, bool, str]]]:
    results: Dict[str, List[Tuple[str, str, bool, str]]] = {}
    for mode in MODES:
        if not (root / mode).is_dir():
            continue
        files = sorted((root / mode).glob("*.pto"))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            done = list(pool.map(lambda p: (p.name, *run_one(ptoas, p)), files))
        results[mode] = done
        (root / mode / "results.tsv").write_text(
            "".join(f"{n}\t{a}\t{'ok' if ok else 'rejected'}\t{e}\n" for n, a, ok, e in done))
    return results


def report(root: Path, results, out=None) -> None:
    out = out or sys.stdout
    by_writer = writers(root)
    for mode, done in results.items():
        accepted = sum(1 for _, _, ok, _ in done if ok)
        out.write(f"{mode}: {accepted} / {len(done)} accepted\n")
        groups: Dict[str, List[str]] = collections.defaultdict(list)
        for name, _, ok, err in done:
            if not ok:
                groups[group_key(err)].append(name)
        for key, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            out.write(f"  {len(names):4d}  {key}\n        e.g. {names[0]}  ({by_writer.get((mode, names[0]), '?')})\n")
    refused = root / "refused.tsv"
    if refused.is_file():
        lines = [line for line in refused.read_text().splitlines() if line.strip()]
        out.write(f"compat lowerings refused by ptokit: {len(lines)} (tests; refused.tsv)\n")


def rows_used(text: str, name: str) -> List[str]:
    from ptokit.pto.compat import ops_of
    from ptokit.pto.parser import parse
    try:
        module = parse(text, name)
    except Exception:                   # noqa: BLE001 - a file ptokit cannot read covers no row
        return []
    return sorted({op.name for f in module.funcs if f.body is not None for op in ops_of(f.body)})


def pick_rows(root: Path, results, out_dir: Path, wanted: Optional[List[str]] = None) -> Dict[str, str]:
    """The smallest accepted file (either mode) per dialect row, copied with its C++ to ``out_dir``."""
    from ptokit.pto import dialect
    best: Dict[str, Tuple[int, Path]] = {}
    for mode, done in results.items():
        for name, _, ok, _ in done:
            if not ok:
                continue
            path = root / mode / name
            text = path.read_text()
            for op in rows_used(text, name):
                if op in dialect.PTO_OPS and (wanted is None or op in wanted):
                    if op not in best or len(text) < best[op][0]:
                        best[op] = (len(text), path)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_writer = writers(root)
    picked: Dict[str, str] = {}
    lines = []
    for op, (_, path) in sorted(best.items()):
        shutil.copy(path, out_dir / path.name)
        shutil.copy(path.with_suffix(".real.cpp"), out_dir / (path.stem + ".real.cpp"))
        picked[op] = path.name
        lines.append(f"{op}\t{path.name}\t{by_writer.get((path.parent.name, path.name), '?')}\n")
    (out_dir / "picked.tsv").write_text("".join(lines))
    return picked


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--ptoas", required=True)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--rows", type=Path, default=None, help="copy the smallest accepted file per row here")
    args = ap.parse_args(argv)
    results = check(args.corpus, args.ptoas, args.jobs)
    report(args.corpus, results)
    if args.rows is not None:
        picked = pick_rows(args.corpus, results, args.rows)
        sys.stdout.write(f"rows with an accepted file: {len(picked)} (in {args.rows})\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.exit(main())
