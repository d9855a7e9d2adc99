"""``pytest --pto-corpus=DIR``: keep a copy of every ``.pto`` module the tests write.

A pytest plugin (registered by conftest.py when the option is given). Every module PTO codegen
writes is stored once, named by its content (``DIR/default/<sha256[:16]>.pto``); each compile
that writes pypto HEAD's ``.pto`` is also lowered a second time under ``ptoas_compat="0.27"``
(passes, codegen and the built-in assembler, into a scratch folder; nothing is built or run) and
its modules go to ``DIR/compat-0.27/``. With ``--pto-corpus-only`` nothing is built: a test stops
(skipped) at its first C++ build, so the whole suite writes its corpus in minutes. ``DIR/index.tsv`` lists ``mode, file, test``;
``DIR/refused.tsv`` the compat lowerings ptokit refused (``test, first line of the error``).

This is how the writer is checked against a real ``ptoas``: run each stored file through it
(``--pto-arch`` from the module's ``pto.target_arch``), see docs/assembler.md "Checked against ptoas 0.27".
"""
from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import os
import tempfile
from pathlib import Path

_MODE = contextvars.ContextVar("pto_corpus_mode", default="default")


def _test_id() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]


def _append(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:      # one short line per write: safe across workers
        fh.write(line.replace("\n", " ") + "\n")


class PtoCorpus:
    def __init__(self, root: Path, only: bool = False):
        self.root = Path(root)
        self.only = only
        for mode in ("default", "compat-0.27"):
            (self.root / mode).mkdir(parents=True, exist_ok=True)

    def record(self, text: str) -> None:
        mode = _MODE.get()
        name = hashlib.sha256(text.encode()).hexdigest()[:16] + ".pto"
        path = self.root / mode / name
        if not path.exists():
            path.write_text(text)
        _append(self.root / "index.tsv", f"{mode}\t{name}\t{_test_id()}")

    def install(self) -> None:
        from ptokit import distributed_build, toolchain
        from ptokit.backend import generate

        corpus = self
        emit = generate.emit_pto
        lower = toolchain.lower_to_tree

        def emit_pto(fns, arch, **kw):
            text, abis = emit(fns, arch, **kw)
            corpus.record(text)
            return text, abis

        def lower_to_tree(ir, out, ctx, **kw):
            result = lower(ir, out, ctx, **kw)
            if ctx.ptoas_compat is None and not ir.lowered and _MODE.get() == "default":
                token = _MODE.set("compat-0.27")
                try:
                    with tempfile.TemporaryDirectory(prefix="pto-corpus-") as scratch:
                        lower(ir, Path(scratch), dataclasses.replace(ctx, ptoas_compat="0.27"))
                except Exception as exc:          # noqa: BLE001 - a refusal is what is recorded
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    _append(corpus.root / "refused.tsv", f"{_test_id()}\t{type(exc).__name__}: {first}")
                finally:
                    _MODE.reset(token)
            return result

        generate.emit_pto = emit_pto
        toolchain.lower_to_tree = lower_to_tree
        distributed_build.lower_to_tree = lower_to_tree
        if self.only:
            import pytest
            from ptokit.runtime import build

            def compile_shared(*_a, **_k):
                raise pytest.skip.Exception("--pto-corpus-only: no C++ is built")
            build.compile_shared = compile_shared
