"""Function.attrs holds declared keys only (ptokit/ir/attrs.py): a stage writing an undeclared key
or a value of the wrong type fails at the write; docs/passes.md renders the declarations."""
import copy
import pickle
from pathlib import Path

import pytest

from ptokit.errors import InternalError
from ptokit.ir import attrs
from ptokit.ir import nodes as N

PAGE = Path(__file__).resolve().parents[2] / "docs" / "passes.md"


def _fn(**attrs_):
    return N.Function("k", N.FunctionType.InCore, [], [], [], attrs=attrs_)


def test_declared_keys_are_accepted_and_survive_copies():
    f = _fn(core_type="aiv")
    f.attrs["memory_peak"] = {"Vec": 4096}
    f.attrs.setdefault("split_regions", {})["mode"] = 1
    for g in (copy.deepcopy(f), pickle.loads(pickle.dumps(f))):
        assert isinstance(g.attrs, attrs.FunctionAttrs)
        assert dict(g.attrs) == {"core_type": "aiv", "memory_peak": {"Vec": 4096}, "split_regions": {"mode": 1}}


@pytest.mark.parametrize("write", [
    lambda f: f.attrs.__setitem__("tile_adress", {}),           # a misspelt key
    lambda f: f.attrs.update({"kernel_id": {}}),
    lambda f: f.attrs.setdefault("fifo_seen", True),
    lambda f: f.attrs.__setitem__("split", "1"),                # the wrong type
    lambda f: f.attrs.__setitem__("split", 3),                  # not one of the split modes
    lambda f: f.attrs.__setitem__("core_type", "cube"),
    lambda f: _fn(memory_peak=[("Vec", 1)]),                    # checked at construction too
])
def test_an_undeclared_key_or_a_wrong_value_fails_at_the_write(write):
    with pytest.raises(InternalError, match=r"Function.attrs\["):
        write(_fn())


def test_the_docs_table_is_rendered_from_the_declarations():
    text = PAGE.read_text(encoding="utf-8")
    assert text == attrs.render_into(text), "run: python -m ptokit.ir.attrs --write docs/passes.md"
    for key in attrs.FUNCTION_ATTRS:
        assert f"| `{key}` |" in text
