"""Helpers of the interop tests: the fixture manifest, a replaying stand-in for the vendor
assembler, trees with the real assembler's C++ in them, and seeded runs to compare.

The fixtures (``fixtures/``, see its README) are ptokit's own ``.pto`` next to the C++ the real
ptoas 0.27 wrote for it. A tree "with the real assembler's C++" is made the way a user with
``PTOAS_ROOT`` gets it: ``ptokit.compile`` runs an executable called ``ptoas`` found through
``PTOAS_ROOT``. Here that executable replays the recorded output for exactly the ``.pto`` it is
given (matched by content hash), so the whole product path (command line, wrapper, external
diagnostics, build, run) is the real one; only the assembling itself is the recording.
"""
from __future__ import annotations

import ast
import contextlib
import csv
import functools
import hashlib
import importlib
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

import ptokit
import ptokit.language as pl
from ptokit.artifacts.kernel_config import read_kernel_config
from ptokit.backend.assembler import assemble_text
from ptokit.backend.wrapper import generated_region, select_function
from ptokit.runtime.inputs import make_inputs
from ptokit.runtime.config import RunConfig
from ptokit.runtime.launcher import run_tree

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GEN_MARK = "// --- ptoas-generated code ---"
ENTRY_MARK = "// --- Kernel entry point ---"
RUNTIMES = ("tensormap_and_ringbuffer", "host_build_graph")
DIM = 128                     # every dynamic dimension of a generated input (as runs.tsv used)
SLOT_NUM = re.compile(r", slot_num = \d+")
# the size of a reserved slot buffer: the probes were recorded with 2 (one way) or 4 (both ways)
# slots; under ptoas_compat="0.27" ptokit reserves what 0.27 then uses. 0.27's C++ does not depend
# on it (it emits the buffer's base), so a probe replays for either size.
RESERVE_SIZE = re.compile(r'(pto\.reserve_buffer \{name = "[^"]+", size = )\d+')


@dataclass(frozen=True)
class Unit:
    case: str
    unit: str
    platform: str
    arch: str                 # the ptoas --pto-arch the recording was made with (a3 / a5)
    functions: Tuple[Tuple[str, str], ...]   # (name, aiv|aic)
    accepted: bool
    program: str              # tests/programs.py:Name or tests/mixed/programs.py:make_x(args)


def manifest() -> List[Unit]:
    with open(FIXTURES / "manifest.tsv", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    out = []
    for r in rows:
        fns = tuple(tuple(f.split(":")) for f in r["functions"].split(","))
        out.append(Unit(r["case"], r["unit"], r["platform"], r["ptoas_arch"], fns, r["ptoas"] == "accepted",
                        r["program"]))
    return out


PROBES = FIXTURES / "probes" / "no_slot_num"


@dataclass(frozen=True)
class Recording:
    unit: Unit
    probe: bool               # from probes/no_slot_num (the .pto minus slot_num; not faithful slot counts)

    @property
    def pto(self) -> Path:
        return (PROBES if self.probe else FIXTURES / "cases") / self.unit.case / f"{self.unit.unit}.pto"

    @property
    def cpp(self) -> Path:
        return self.pto.with_name(f"{self.unit.unit}.real.cpp")

    @property
    def name(self) -> str:
        return f"{'probes/no_slot_num/' if self.probe else ''}{self.unit.case}/{self.unit.unit}"


@functools.lru_cache(maxsize=None)
def cases() -> Dict[str, Tuple[List[Unit], List[Recording]]]:
    """case -> (all its units, the recordings among them): an accepted pair, else a probe."""
    by_case: Dict[str, Tuple[List[Unit], List[Recording]]] = {}
    for u in manifest():
        units, recs = by_case.setdefault(u.case, ([], []))
        units.append(u)
        if u.accepted:
            recs.append(Recording(u, False))
        elif (PROBES / u.case / f"{u.unit}.real.cpp").is_file():
            recs.append(Recording(u, True))
    return {c: v for c, v in sorted(by_case.items()) if v[1]}


# ---------------------------------------------------------------------------------------------
# programs named by the manifest
# ---------------------------------------------------------------------------------------------

_MODULES = {"tests/programs.py": "programs", "tests/mixed/programs.py": "mixed.programs"}


def _arg(node):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "pl":
        return getattr(pl, node.attr)
    return ast.literal_eval(node)


def load_program(spec: str):
    """The @pl.program a manifest row names: a class, or a factory call with literal arguments."""
    path, expr = spec.split(":", 1)
    mod = importlib.import_module(_MODULES[path])
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.Name):
        return getattr(mod, node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return getattr(mod, node.func.id)(*[_arg(a) for a in node.args])
    raise ValueError(f"manifest program {spec!r}: not a name or a call")


# ---------------------------------------------------------------------------------------------
# the replaying ptoas
# ---------------------------------------------------------------------------------------------

# the recordings predate pl.cast's pypto default, mode="round", which every pto.tcvt now writes
CAST_DEFAULT = " {rmode = #pto<round_mode ROUND>}"

_REPLAY = r'''#!{python}
"""Replays the real ptoas's recorded output for the exact .pto given (tests/interop)."""
import hashlib, json, re, shutil, sys
args = sys.argv[1:]
src, out = args[0], args[args.index("-o") + 1]
arch = args[args.index("--pto-arch") + 1]
index = json.load(open({index!r}))
text = open(src, encoding="utf-8").read()
# probes were recorded without slot_num; all recordings predate the cast rounding attribute
bare = text.replace({cast_default!r}, "")
keys = [text, re.sub(r", slot_num = \d+", "", text), bare, re.sub(r", slot_num = \d+", "", bare)]
keys += [re.sub({reserve!r}, r"\1N", t) for t in keys]
for t in keys:
    hit = index.get(hashlib.sha256(t.encode()).hexdigest())
    if hit:
        if hit["arch"] != arch:
            sys.exit(f"{{src}}: recorded for --pto-arch {{hit['arch']}}, asked for {{arch}}")
        shutil.copyfile(hit["cpp"], out)
        sys.exit(0)
sys.exit(f"{{src}}: no recorded ptoas output for this .pto (a stale fixture?)")
'''


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write_replaying_ptoas(folder: Path) -> Path:
    """A folder for PTOAS_ROOT whose ``ptoas`` replays every recording."""
    folder.mkdir(parents=True, exist_ok=True)
    index = {}
    for _, recs in cases().values():
        for r in recs:
            index[sha256_text(r.pto.read_text())] = {"cpp": str(r.cpp), "arch": r.unit.arch}
            if r.probe:
                index[sha256_text(RESERVE_SIZE.sub(r"\1N", r.pto.read_text()))] = {"cpp": str(r.cpp),
                                                                                  "arch": r.unit.arch}
    (folder / "index.json").write_text(json.dumps(index, indent=0))
    exe = folder / "ptoas"
    exe.write_text(_REPLAY.format(python=sys.executable, index=str(folder / "index.json"), cast_default=CAST_DEFAULT,
                                  reserve=RESERVE_SIZE.pattern))
    exe.chmod(0o755)
    return folder


@contextlib.contextmanager
def env(**values):
    """Set (str) or unset (None) environment variables for the block."""
    saved = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def compile_case(units: List[Unit], out: Path, ptoas_root: Optional[Path] = None, ptoas_compat: Optional[str] = None):
    """Compile the case's program on its platform; with ``ptoas_root`` through that assembler."""
    u = units[0]
    with env(PTOAS_ROOT=ptoas_root, PATH=os.environ["PATH"] if ptoas_root else _path_without_ptoas()):
        return ptokit.compile(load_program(u.program), output_dir=out, platform=u.platform, ptoas_compat=ptoas_compat)


def _path_without_ptoas() -> str:
    """PATH without a folder holding a `ptoas`, so the built-in assembler is the one used."""
    parts = [p for p in os.environ.get("PATH", "").split(os.pathsep) if not (Path(p) / "ptoas").exists()]
    return os.pathsep.join(parts)


def as_recorded(fresh: str, recorded: str) -> str:
    """``fresh`` .pto text without what ptokit now writes by default and the recording could not
    have (the cast rounding mode)."""
    if "pto.tcvt" in fresh and CAST_DEFAULT not in recorded:
        return fresh.replace(CAST_DEFAULT, "")
    return fresh


def is_stale(rec: Recording, tree: Path) -> bool:
    """The freshly written .pto differs from the recorded one (probes: compared minus slot_num)."""
    fresh = (tree / "ptoas" / f"{rec.unit.unit}.pto").read_text()
    if rec.probe:
        fresh = SLOT_NUM.sub("", fresh)
    recorded = rec.pto.read_text()
    return as_recorded(fresh, recorded) != recorded


def substitute(tree: Path, unit: Unit, cpp: str, external: bool) -> None:
    """Replace the generated region of the unit's kernel file(s) in ``tree`` with ``cpp``."""
    for name, core in unit.functions:
        path = tree / "kernels" / core / f"{name}.cpp"
        text = path.read_text()
        head, rest = text.split(GEN_MARK + "\n", 1)
        _, tail = rest.split("\n" + ENTRY_MARK, 1)
        code = select_function(cpp, name) if len(unit.functions) > 1 else cpp
        path.write_text(head + GEN_MARK + "\n" + generated_region(code, external=external) + "\n\n"
                        + ENTRY_MARK + tail)


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("passes_dump", "ptoas_passes"))
    return dst


_ARCH = {"a3": "a2a3", "a5": "a5"}


@dataclass
class PairTrees:
    builtin: Path             # the built-in assembler's tree
    real: Path                # the same tree with the real assembler's C++ where recorded
    stale: List[str]          # recordings whose .pto ptokit no longer writes
    replayed: bool            # real tree made by ptokit.compile through PTOAS_ROOT (else by substitution)


def pair_trees(case: str, out: Path, replay_root: Path) -> PairTrees:
    """The two trees of a case. When every unit is recorded and none is stale, the real tree is
    compiled through the replaying ptoas (the product path). Otherwise it is a copy of the fresh
    tree with the recordings substituted; a stale recording is compared against the built-in
    assembler's output of the recorded .pto itself (substituted into the built-in tree)."""
    units, recs = cases()[case]
    fresh = compile_case(units, out / "builtin").output_dir
    stale = [r for r in recs if is_stale(r, fresh)]
    if len(recs) == len(units) and not stale:
        real = compile_case(units, out / "real", ptoas_root=replay_root).output_dir
        return PairTrees(fresh, real, [], True)
    builtin = copy_tree(fresh, out / "builtin_subst") if stale else fresh
    real = copy_tree(fresh, out / "real_subst")
    for r in recs:
        if r in stale:
            substitute(builtin, r.unit, assemble_text(r.pto.read_text(), filename=str(r.pto),
                                                      arch=_ARCH[r.unit.arch]), external=False)
        substitute(real, r.unit, r.cpp.read_text(), external=True)
    return PairTrees(builtin, real, [r.name for r in stale], False)


# ---------------------------------------------------------------------------------------------
# runs
# ---------------------------------------------------------------------------------------------

def run_io(tree: Path, runtime: str, seed: int = 1, timeout: float = 60.0
           ) -> Tuple[Dict[str, np.ndarray], Dict[str, np.ndarray]]:
    """Run a tree on seeded generated inputs (every dynamic dim = DIM): (inputs, OUT/INOUT tensors)."""
    kc = read_kernel_config(tree)
    params = kc.orchestration.params
    dims = {str(d): DIM for p in params for d in p.get("shape", []) if not isinstance(d, int)}
    args, names = make_inputs(params, dims=dims, seed=seed)
    ins = {n: np.array(a) for p, n, a in zip(params, names, args) if p.get("kind") != "scalar"}
    run_tree(tree, args, RunConfig(platform=kc.platform, runtime=runtime, timeout=timeout), quiet=True)
    outs = {n: np.asarray(a) for p, n, a in zip(params, names, args)
            if p.get("kind") != "scalar" and str(p.get("direction", "IN")).upper() in ("OUT", "INOUT")}
    return ins, outs


def run_outputs(tree: Path, runtime: str, seed: int = 1, timeout: float = 60.0) -> Dict[str, np.ndarray]:
    return run_io(tree, runtime, seed, timeout)[1]


def assert_same_outputs(expected: Dict[str, np.ndarray], got: Dict[str, np.ndarray], what: str) -> None:
    """Bit-for-bit equal outputs (runs.tsv: every recorded pair matches exactly)."""
    assert expected.keys() == got.keys(), f"{what}: outputs {sorted(got)} vs {sorted(expected)}"
    for name in expected:
        a, b = expected[name], got[name]
        assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: {name} {b.dtype}{b.shape} vs {a.dtype}{a.shape}"
        if not np.array_equal(a.view(np.uint8), b.view(np.uint8)):
            diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
            raise AssertionError(f"{what}: output {name} differs (max abs diff {np.nanmax(diff):g}, "
                                 f"{int(np.count_nonzero(a != b))} of {a.size} elements)")


def real_code_in(tree: Path, unit: Unit) -> bool:
    """The unit's kernel file(s) hold the vendor assembler's code (its sync-tail helper)."""
    return all("ptoas_auto_sync_tail" in (tree / "kernels" / core / f"{name}.cpp").read_text()
               for name, core in unit.functions)
