"""docs/api.md is generated from the op table and the language's names: the committed page is what
the generator writes, every ``pl.*`` name is on it, and the dtypes come from the type rules."""
from pathlib import Path

import ptokit.language as pl
from ptokit.ir.ops import OPS
from ptokit.language import api_doc

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_the_committed_page_is_generated():
    assert PAGE.read_text() == api_doc.markdown(), (
        "docs/api.md is out of date: run python -m ptokit.language.api_doc --write docs/api.md")


def test_every_pl_name_is_on_the_page():
    text = PAGE.read_text()
    missing = [n for n in pl.__all__ if f"`pl.{n}`" not in text]
    assert not missing, missing
    for name, op in OPS.items():
        for spelling in api_doc._spellings(op):
            assert f"`{spelling}`" in text, (name, spelling)


def test_each_op_has_a_signature_dtypes_and_an_example():
    text = PAGE.read_text()
    sections = text.split("\n### `")[1:]
    ops = [s for s in sections if not s.startswith("Index") and "\nExample: `y = " in s]
    assert len(ops) == sum(1 for op in OPS.values() if op.namespaces)
    assert all("- dtypes: " in s and "```python\n" in s for s in ops)


def test_dtypes_are_what_the_type_rules_accept():
    assert api_doc.accepted_dtypes(OPS["exp"])[:3] == ["FP32", "FP16", "BF16"]
    assert "INT32" not in api_doc.accepted_dtypes(OPS["exp"])        # float only
    assert "INT32" in api_doc.accepted_dtypes(OPS["and_"]) and "FP32" not in api_doc.accepted_dtypes(OPS["and_"])
    assert api_doc.accepted_dtypes(OPS["matmul"]) is None           # cube operands: the meaning says
