"""The CommContext forms of kernel code, as pypto HEAD writes them (pto_ops_distributed.cpp): the context
is a ``!pto.ptr<i64>`` parameter, ``pld.rank`` / ``pld.nranks`` the low / high half of its slot 2, a peer's
window ``pto.addptr`` by ``(windowsIn[peer] - windowsIn[rank]) / sizeof(element)``; the kernel's C++ takes
the context as a pointer. Run results: test_kernel_ops.py, test_errors.py (a peer out of range)."""
import re

import pytest

import ptokit
from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError

from dsl_programs import PutGet


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return ptokit.compile(PutGet, output_dir=tmp_path_factory.mktemp("putget")).output_dir


def _pto(tree):
    (pto,) = (tree / "ptoas").glob("*.pto")
    return pto.read_text()


def test_context_is_a_pointer_read_with_load_scalar(tree):
    text = _pto(tree)
    assert "pto.comm.rank" not in text and "pto.comm.nranks" not in text and "pto.comm.peer_ptr" not in text
    sig = re.search(r"func\.func @k\((.*?)\) attributes", text).group(1)
    # mode (an INT64 scalar), then one context per window
    assert sig.endswith("%arg5: i64, %arg6: !pto.ptr<i64>, %arg7: !pto.ptr<i64>, %arg8: !pto.ptr<i64>"), sig
    # rank: slot 2's low half; nranks: its high half
    assert re.search(r"(%s\d+) = pto\.load_scalar %arg\d+\[%c2_index\] : !pto\.ptr<i64> -> i64.*\n"
                     r"\s*%s\d+ = arith\.trunci \1 : i64 to i32", text)
    assert re.search(r"(%s\d+) = pto\.load_scalar %arg\d+\[%c2_index\] : !pto\.ptr<i64> -> i64.*\n"
                     r"\s*(%s\d+) = arith\.shrui \1, %c32_i64 : i64.*\n\s*%s\d+ = arith\.trunci \2 : i64 to i32", text)


def test_a_peer_window_is_addptr_by_the_window_bases(tree):
    text = _pto(tree)
    m = re.search(r"(%s\d+) = arith\.subi (%s\d+), (%s\d+) : i64.*\n\s*(%s\d+) = arith\.divsi \1, %c4_i64 : i64.*\n"
                  r"\s*(%s\d+) = arith\.index_cast \4 : i64 to index.*\n"
                  r"\s*(%s\d+) = pto\.addptr %arg\d+, \5 : !pto\.ptr<f32> -> !pto\.ptr<f32>", text)
    assert m, "peer pointer: windowsIn[peer] - windowsIn[rank], in f32 elements, added to the local pointer"
    for base in (m.group(2), m.group(3)):      # both bases are slots 4 + k of the context
        idx = re.search(re.escape(base) + r" = pto\.load_scalar %arg\d+\[(%s\d+)\]", text).group(1)
        assert re.search(re.escape(idx) + r" = arith\.addi %c4_index, %s\d+ : index", text)


def test_the_wrapper_passes_the_context_as_a_pointer(tree):
    cpp = "".join(p.read_text() for p in (tree / "kernels").rglob("*.cpp"))
    assert re.search(r"__gm__ int64_t\* sig__ctx = reinterpret_cast<__gm__ int64_t\*>\(args\[\d+\]\);", cpp)
    assert re.search(r"int64_t v\d+ = LOAD_SCALAR\(v\d+, 2\);", cpp)


ADDPTR = """module {{
  func.func @k(%arg0: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  %c4_index = arith.constant 4 : index
  %p = pto.addptr %arg0, %c4_index : {types}
  return
  }}
}}
"""


def test_addptr_is_typed_by_its_pointer_only():
    assemble_text(ADDPTR.format(types="!pto.ptr<f32> -> !pto.ptr<f32>"))
    with pytest.raises(AssemblerError, match=r"'pto.addptr' is written %ptr, %offset : !pto.ptr<T> -> !pto.ptr<T>") \
            as info:
        assemble_text(ADDPTR.format(types="!pto.ptr<f32>, index -> !pto.ptr<f32>"))     # the old call form
    assert info.value.loc.line == 4
    with pytest.raises(AssemblerError, match=r"all of \{ptr, result\} have same type"):
        assemble_text(ADDPTR.format(types="!pto.ptr<f32> -> !pto.ptr<f16>"))
