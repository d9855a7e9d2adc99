"""Every name of pypto-parity.md sections C and F exists under pl. / pl.tile. / pl.tensor. as the spec
says (read from the spec's markdown, tests/parity/spec_names.py), so a gap cannot reappear."""
from pathlib import Path

import pytest

from . import spec_names as S

# Names another open issue builds; each entry says which.  An entry whose name now exists is fine.
PENDING = {
    "pl.expand_clone": "issue 13 (pypto parity 1, the forms): expand_clone is built there",
    "pl.tensor.expand_clone": "issue 13 (pypto parity 1, the forms): expand_clone is built there",
    "pl.tensor.view": "issue 13 (pypto parity 1, the forms): orchestration views over the same memory "
                      "(view / reshape of a tensor) go with its TensorView work",
}
# C0 parameters not taken, each with why (an unknown keyword is a located error naming the parameters).
_ISSUE13 = "issue 13 (pypto parity 1): tensor windows / orchestration tensors, built there"
_UNKNOWN = "not built: the .pto pypto emits for it is not in the spec (docs/decisions.md)"
PENDING_PARAMS = {
    "pl.slice: input": _ISSUE13, "pl.slice: valid_shape": _ISSUE13, "pl.slice: drop_dims": _ISSUE13,
    "pl.slice: pad_value": _ISSUE13, "pl.slice: clamp": _ISSUE13,
    "pl.create_tensor: layout": _ISSUE13, "pl.create_tensor: init_value": _ISSUE13,
    "pl.row_expand_add: tmp": _UNKNOWN,
}

# The tests read a copy of the contract kept with them (like tests/interop/fixtures), so a checkout
# alone runs them; the copy is checked against shared/spec wherever that is laid beside the clone.
COPY = Path(__file__).resolve().parent / "fixtures" / S.SPEC_NAME
SPEC = S.find_spec(Path(__file__).resolve().parent)


@pytest.fixture(scope="module")
def spec_text():
    return COPY.read_text()


if SPEC is not None:     # a clone alone has only the copy: nothing to compare, so no test (not a skip)
    def test_the_copy_is_the_contract():
        assert COPY.read_text() == SPEC.read_text(), (
            f"{SPEC} changed: copy it to {COPY} and make the tests below pass again")


def test_the_walker_reads_the_tables(spec_text):
    names, params = S.expected(spec_text)
    # one name of each kind the walker must find: a C1 row, 'same under pl.tile.', the tensor form of
    # a tile-only row, the F paragraph's list, an F table row, and a C0 signature with its parameters
    for n in ("pl.tile.sels", "pl.tile.row_expand_expdif", "pl.tensor.gatherb", "pl.tensor.dim", "pl.tensor.mrgsort",
              "pl.load"):
        assert n in names, n
    assert params["pl.load"] == ["tensor", "offsets", "shapes", "valid_shape", "target_memory", "clamp"]
    assert {"pl.row_sum", "pl.row_max", "pl.row_min", "pl.maximum", "pl.minimum"} <= set(params)
    assert len(names) > 150


def test_every_spec_name_is_exposed(spec_text):
    missing, _ = S.gaps(spec_text)
    assert sorted(set(missing) - set(PENDING)) == []


def test_every_c0_parameter_is_taken(spec_text):
    _, bad = S.gaps(spec_text)
    assert sorted(set(bad) - set(PENDING_PARAMS)) == []
