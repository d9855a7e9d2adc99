"""The op table is the one declaration of every op: its rows are consistent, the DSL exposes
exactly its names, and no other module keeps a list of op names."""
import ast
from pathlib import Path

import pytest

import ptokit
import ptokit.language as pl
from ptokit.ir.ops import OPS, TRAITS, fifo_ops, ops_with
from ptokit.ir.ops.fifo import DIRECTIONS

PKG = Path(ptokit.__file__).parent


@pytest.mark.parametrize("name", sorted(OPS))
def test_row_is_consistent(name):
    op = OPS[name]
    spellings = [s for p in op.params for s in (p.name,) + p.aliases]
    assert len(spellings) == len(set(spellings)), f"{name}: a parameter spelling is used twice"
    assert set(op.traits) <= TRAITS
    if op.scalar_form:
        s = OPS[op.scalar_form]
        assert [p.name for p in s.params] == [p.name for p in op.params]
        assert s.operand_params[1].kind == "scalar"
    if op.fifo:
        assert op.has("fifo") and op.fifo[1] in ("push", "pop", "free")
    # operands after defaults would make positional calls ambiguous
    seen_default = False
    for p in op.params:
        if p.keyword_only:
            continue
        assert not (seen_default and p.required), f"{name}: required {p.name!r} after a defaulted parameter"
        seen_default = seen_default or not p.required


def test_dsl_exposes_exactly_the_table():
    tile_names = {n for n, op in OPS.items() if "pl.tile" in op.namespaces}
    pl_names = {n for n, op in OPS.items() if "pl" in op.namespaces}
    aliases = {a.rpartition(".")[2]: n for n, op in OPS.items() for a in op.dsl_aliases if a.startswith("pl.tile.")}
    markers = {k for k, v in vars(pl.tile).items() if hasattr(v, "__pto_op__")}
    assert markers == tile_names | set(aliases)
    assert set(vars(pl.tile)) - markers == {"MaskPattern"}     # the enum pypto keeps under pl.tile
    assert all(getattr(pl.tile, a).__pto_op__ == n for a, n in aliases.items())
    assert pl.tile.create.__pto_op__ == "create_tile"
    pl_aliases = {a.rpartition(".")[2]: n for n, op in OPS.items() for a in op.dsl_aliases if a.count(".") == 1
                  and a.startswith("pl.")}
    assert pl_names <= set(dir(pl)) and set(pl._OPS) == pl_names | set(pl_aliases)
    for n in pl_names:
        assert getattr(pl, n).__pto_op__ == n
    assert all(getattr(pl, a).__pto_op__ == n for a, n in pl_aliases.items())     # pl.gather is tensor.gather
    tensor_only = {n for n, op in OPS.items() if "pl.tensor" in op.namespaces and n.startswith("tensor.")}
    assert tensor_only and all(getattr(pl.tensor, n[len("tensor."):]).__pto_op__ == n for n in tensor_only)


def test_pypto_parameter_names():
    names = {n: [p.name for p in OPS[n].params] for n in ("add", "exp", "row_sum", "col_max", "cast", "matmul_acc",
                                                          "row_expand_add", "col_expand_sub", "slice", "load")}
    assert names["add"] == ["lhs", "rhs"] and names["exp"] == ["tile"]
    assert names["row_sum"] == ["tile", "tmp_tile"] and names["col_max"] == ["tile"]
    assert names["cast"] == ["tile", "target_type", "mode"] and names["matmul_acc"] == ["acc", "lhs", "rhs", "a_trans",
                                                                                         "b_trans", "init_cond"]
    assert names["row_expand_add"] == ["tile", "row_vec", "tmp"] and names["col_expand_sub"] == ["tile", "col_vec"]
    assert names["slice"] == ["tile", "shape", "offset"]
    assert names["load"][:3] == ["tensor", "offsets", "shapes"]
    assert "input" in OPS["row_sum"].param("input").aliases   # pl.row_sum(input=..., tmp_tile=...)


def test_traits_drive_the_passes():
    from ptokit.passes import memory_plan, split_mixed
    assert memory_plan._ELEMENTWISE == ops_with("elementwise")
    assert {"add", "adds", "exp", "cast"} <= ops_with("elementwise") and "row_sum" not in ops_with("elementwise")
    assert set(split_mixed.FIFO_OPS) == ops_with("fifo")
    for d in DIRECTIONS.values():
        assert fifo_ops(d.name) == {"push": d.push, "pop": d.pop, "free": d.free}
    assert {"matmul", "matmul_acc", "move"} <= ops_with("cube")


def _op_name_lists(path: Path):
    """String-literal lists/tuples/sets/dict keys in ``path`` holding 3 or more op names."""
    tree = ast.parse(path.read_text())
    names = set(OPS)
    for node in ast.walk(tree):
        elts = None
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            elts = node.elts
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        if not elts:
            continue
        hits = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                and e.value in names]
        if len(hits) >= 3:
            yield node.lineno, hits


def test_no_module_outside_the_table_lists_op_names():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[:2] == ("ir", "ops") or rel.parts[0] == "pto" or rel.name == "optable.py":
            continue      # the op table itself, and the .pto dialect's table of mnemonics
        for line, hits in _op_name_lists(path):
            found.append(f"{rel}:{line}: {hits}")
    assert not found, "op names listed outside ptokit/ir/ops:\n" + "\n".join(found)


def test_docs_op_reference_is_rendered_from_the_table():
    from ptokit.ir.ops import reference
    docs = (PKG.parent / "docs" / "language.md").read_text()
    assert reference.replace_section(docs, reference.markdown()) == docs, \
        "docs/language.md is stale: run python -m ptokit.ir.ops.reference --write docs/language.md"
