"""Task-graph values of orchestration code: task ids, ``pl.array`` and host access to tensors.

``pl.TaskId`` values come from ``with pl.at(...) as tid`` / ``pl.submit`` (``system.task_id``,
written by the front end), ``pl.system.task_dummy`` and ``pl.system.task_invalid`` (``None``);
``deps=`` lists take them and TASK_ID arrays.  ``pl.array`` rows are typed for any array, so
kernel code can lower the same rows later.  ``pl.read`` / ``pl.write`` on a tensor in
orchestration are host reads and writes of its current contents; ``pl.no_dep`` and
``pl.dump_tag`` mark task arguments.  ``docs/language.md`` ("Task ids and task options").
"""
from __future__ import annotations

from ..types import TASK_ID, ArrayType, DType, ScalarType, TensorType, TupleType
from ._core import OpTypeError, P, count_of, declare

_ORCH = {"orchestration", "orchestration_only"}


def _task_id(ts, attrs):
    return TASK_ID


def _is_task_id(t) -> bool:
    return isinstance(t, ScalarType) and t.dtype is DType.TASK_ID


def _deps(ts, attrs):
    for t in (ts[0].items if ts and isinstance(ts[0], TupleType) else ()):
        if not (_is_task_id(t) or (isinstance(t, ArrayType) and t.dtype is DType.TASK_ID)):
            raise OpTypeError(f"deps= takes task ids (pl.TaskId) and pl.TASK_ID arrays, but got {t}", "deps")
    return TASK_ID


declare("system.task_id", (), _task_id, form="orch", traits=_ORCH, namespaces=(),
        doc="the task id of the enclosing `with pl.at(...) as tid:` block (bound by the front end)")
declare("system.task_invalid", (), _task_id, form="orch", traits=_ORCH, namespaces=("pl.system",),
        doc="the empty task id (`None`): no dependency in deps=, the initial value of a task id")
declare("system.task_dummy", (P("deps", "deps", keyword_only=True),), _deps, form="orch", traits=_ORCH,
        namespaces=("pl.system",), front="front_task_dummy",
        doc="a task with no kernel that completes when all its deps (task ids, TASK_ID arrays; None skipped) have")


def _array_create(ts, attrs):
    n, dt = attrs["extent"], attrs["dtype"]
    if n < 1:
        raise OpTypeError(f"a pl.array needs a positive extent, got {n}", "extent")
    if not isinstance(dt, DType) or not (dt is DType.TASK_ID or (dt.supported and not dt.is_float)):
        raise OpTypeError(f"a pl.array holds pl.TASK_ID or integers, got {dt!r}", "dtype")
    return ArrayType(n, dt)


def _array_of(t, param="array") -> ArrayType:
    if not isinstance(t, ArrayType):
        raise OpTypeError(f"expected a pl.array (pl.array.create(extent, dtype)), but got {t}", param)
    return t


def _index(t) -> None:
    if not isinstance(t, ScalarType) or t.dtype.is_float or t.dtype is DType.TASK_ID:
        raise OpTypeError(f"an array index must be an integer, but got {t}", "index")


def _array_get(ts, attrs):
    a = _array_of(ts[0])
    _index(ts[1])
    return ScalarType(a.dtype)


def _array_update(ts, attrs):
    a = _array_of(ts[0])
    _index(ts[1])
    v = ts[2]
    if not isinstance(v, ScalarType) or (v.dtype is DType.TASK_ID) != (a.dtype is DType.TASK_ID) or v.dtype.is_float:
        raise OpTypeError(f"an element of {a} must be a {'pl.TaskId' if a.dtype is DType.TASK_ID else 'an integer'}, "
                          f"but got {v}", "value")
    return a


declare("array.create", (P("extent", "int"), P("dtype", "dtype")), _array_create, form="array", traits={"orchestration"},
        namespaces=("pl.array",), doc="a small array of extent elements (TASK_ID ones start as the empty task id, "
                                      "integers as 0)")
declare("array.get_element", (P("array", "array"), P("index", "scalar")), _array_get, form="array",
        traits={"orchestration"}, namespaces=("pl.array",), doc="element index of the array (also `arr[i]`)")
declare("array.update_element", (P("array", "array"), P("index", "scalar"), P("value", "scalar")), _array_update,
        form="array", traits={"orchestration"}, namespaces=("pl.array",),
        doc="the array with element index replaced by value; a new value (`arr[i] = v` rebinds arr to it)")


def _tensor_element(ts, what):
    t = ts[0]
    if not isinstance(t, TensorType):
        raise OpTypeError(f"{what} needs a tensor, but got {t}", "tensor")
    n = count_of(ts[1])
    if n != len(t.shape):
        raise OpTypeError(f"{what} takes one index per dimension of the {len(t.shape)}-D {t}, got {n}", "indices")
    for i in ts[1].items:
        if not isinstance(i, ScalarType) or i.dtype.is_float or i.dtype is DType.TASK_ID:
            raise OpTypeError(f"{what} indices must be integers, but got {i}", "indices")
    return t


def _read(ts, attrs):
    return ScalarType(_tensor_element(ts, "pl.read").dtype)


def _write(ts, attrs):
    t = _tensor_element(ts, "pl.write")
    v = ts[2]
    if not isinstance(v, ScalarType) or v.dtype is DType.TASK_ID:
        raise OpTypeError(f"pl.write writes a number into the {t}, but got {v}", "value")
    return t


declare("read", (P("tensor", "tensor"), P("indices", "offsets")), _read, form="orch", traits={"orchestration"},
        front="front_read", namespaces=("pl", "pl.tile", "pl.tensor"), doc="one element of a tensor or tile (indices: one per dimension, or one flat row-major offset); "
                          "in kernel code pto.tgetval / pto.load_scalar, in orchestration the host reads the "
                          "tensor's current contents once its writers have finished")
declare("write", (P("tensor", "tensor"), P("indices", "offsets"), P("value", "scalar")), _write, form="orch",
        traits={"orchestration"}, front="front_write", namespaces=("pl", "pl.tile", "pl.tensor"),
        doc="write one element of a tensor or tile (a statement); in kernel code pto.tsetval / pto.store_scalar, in "
            "orchestration a host write, once the tasks using it have finished")


def _same_tensor(ts, attrs):
    if not isinstance(ts[0], TensorType):
        raise OpTypeError(f"expected a tensor, but got {ts[0]}", "tensor")
    return ts[0]


declare("no_dep", (P("tensor", "tensor"),), _same_tensor, form="orch", traits=_ORCH, front="front_no_dep", namespaces=("pl",),
        doc="a kernel-call argument the runtime does not track for this task (its creator still is)")
declare("dump_tag", (P("tensor", "tensor"),), _same_tensor, form="orch", traits=_ORCH, front="front_dump_tag", namespaces=("pl",),
        doc="statement: the tensor is dumped as an argument of every later task (RunConfig(enable_dump_args=1))")
