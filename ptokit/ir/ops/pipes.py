"""Hand-written cross-core pipes (pypto-parity E3) and cross-core events / barriers (E4).

A hand-written group is an ``AIC`` and an ``AIV`` function joined by a ``Group`` function
(docs/mixed-kernels.md, "Hand-written pipes and events"): the consumer of a direction reserves
its slot buffer (``pl.reserve_buffer``), the producer imports it (``pl.import_peer_buffer``),
both initialize the pipe (``pl.aic_initialize_pipe`` / ``pl.aiv_initialize_pipe``), then push,
pop and free with the FIFO ops of ``fifo.py`` (``id=`` picks the pipe).  The HandPipes pass
(passes/hand_pipes.py) checks that the two sides agree.

Events: ``pl.system.sync_set`` / ``sync_wait`` raise and wait on a cross-core flag of the
cluster; ``pl.system.syncall`` is a barrier of every core the task launched;
``pl.system.set_ffts`` names the a2a3 FFTS workspace.
"""
from __future__ import annotations

from ..types import BOOL, DType, ScalarType, TensorType
from ._core import OpTypeError, P, declare

AUTO = -1           # pl.AUTO: the compiler places the reserved buffer
INT32 = ScalarType(DType.INT32)
_NS = ("pl", "pl.system")


def _reserve(ts, attrs):
    if not isinstance(attrs.get("name"), str) or not attrs["name"]:
        raise OpTypeError("pl.reserve_buffer needs name= (the buffer's name, as the peer imports it)", "name")
    if attrs.get("size", 0) <= 0:
        raise OpTypeError(f"pl.reserve_buffer: size={attrs.get('size')!r}; the size is a positive byte count", "size")
    base = attrs.get("base", AUTO)
    if base != AUTO and base < 0:
        raise OpTypeError(f"pl.reserve_buffer: base={base}; give a byte offset >= 0 or pl.AUTO", "base")
    return INT32


def _import(ts, attrs):
    if not attrs.get("name"):
        raise OpTypeError("pl.import_peer_buffer needs name= (the buffer the peer reserved)", "name")
    if not attrs.get("peer_func"):
        raise OpTypeError("pl.import_peer_buffer needs peer_func= (the function that reserves the buffer)",
                          "peer_func")
    return INT32


def _init_pipe(name):
    def rule(ts, attrs):
        for t in ts:
            if not isinstance(t, ScalarType) or t.dtype.is_float:
                raise OpTypeError(f"pl.{name}: a consumer buffer is an integer (pl.reserve_buffer / "
                                  f"pl.import_peer_buffer / 0), got {t}")
        if attrs.get("dir_mask") not in (1, 2, 3):
            raise OpTypeError(f"pl.{name}: dir_mask={attrs.get('dir_mask')!r}; 1 = cube to vector, 2 = vector to "
                              f"cube, 3 = both", "dir_mask")
        if attrs.get("slot_size", 0) <= 0:
            raise OpTypeError(f"pl.{name}: slot_size={attrs.get('slot_size')!r}; a positive byte count", "slot_size")
        for k in ("slot_num", "local_slot_num"):
            if attrs.get(k) is not None and attrs[k] <= 0:
                raise OpTypeError(f"pl.{name}: {k}={attrs[k]}; a positive count", k)
        if attrs.get("id") is not None and not 0 <= attrs["id"] < 16:
            raise OpTypeError(f"pl.{name}: id={attrs['id']}; pipe ids are 0..15", "id")
        return BOOL
    return rule


_PIPE_PARAMS = (P("c2v_consumer_buf", "scalar", None), P("v2c_consumer_buf", "scalar", None),
                P("dir_mask", "int", keyword_only=True), P("slot_size", "int", keyword_only=True),
                P("slot_num", "int", None, keyword_only=True), P("local_slot_num", "int", None, keyword_only=True),
                P("id", "int", None, keyword_only=True))

declare("reserve_buffer", (P("name", "str", keyword_only=True), P("size", "int", keyword_only=True),
                           P("base", "int", AUTO, keyword_only=True)),
        _reserve, form="pipe_setup", namespaces=_NS, pto="pto.reserve_buffer",
        doc="reserve a named slot buffer for the pipe this function consumes (base=pl.AUTO: placed after its tiles)")
declare("import_peer_buffer", (P("name", "str", keyword_only=True), P("peer_func", "str", keyword_only=True)),
        _import, form="pipe_setup", namespaces=_NS, pto="pto.import_reserved_buffer",
        doc="the address of the slot buffer the peer function reserved under that name")
for _side, _traits in (("aic", {"cube"}), ("aiv", set())):
    declare(f"{_side}_initialize_pipe", _PIPE_PARAMS, _init_pipe(f"{_side}_initialize_pipe"), form="pipe_setup",
            namespaces=_NS, pto=f"pto.{_side}_initialize_pipe", front="front_init_pipe", traits=_traits,
            doc=f"set up a cross-core pipe on the {'cube' if _side == 'aic' else 'vector'} side (dir_mask 1 = C->V, "
                f"2 = V->C, 3 = both; id= numbers the pipe)")


# ---------------------------------------------------------------- events and barriers (E4)
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL")
CORE_TYPES = ("aic", "aiv")
SYNCALL_CORES = ("mix", "aiv_only", "aic_only")


def _pipe_name(attrs, op):
    p = attrs.get("pipe")
    name = getattr(p, "name", p)
    if isinstance(name, str) and name.upper().startswith("PIPE_"):
        name = name[5:]
    if not isinstance(name, str) or name.upper() not in PIPES:
        raise OpTypeError(f"pl.system.{op}: pipe={p!r}; one of pl.PipeType.{', pl.PipeType.'.join(PIPES)}", "pipe")
    attrs["pipe"] = name.upper()


def _core_type(attrs, op):
    c = attrs.get("core_type")
    if c is not None and c not in CORE_TYPES:
        raise OpTypeError(f"pl.system.{op}: core_type={c!r}; \"aic\" or \"aiv\"", "core_type")


def _event(ts, op):
    if len(ts) != 1 or not isinstance(ts[0], ScalarType) or ts[0].dtype.is_float:
        raise OpTypeError(f"pl.system.{op}: the event id is an integer 0..13 (or an index scalar)", "event_id")


def _sync_set(ts, attrs):
    _event(ts, "sync_set")
    _pipe_name(attrs, "sync_set")
    _core_type(attrs, "sync_set")
    if attrs.get("ffts_mode") not in (None, 0, 1, 2):
        raise OpTypeError(f"pl.system.sync_set: ffts_mode={attrs['ffts_mode']!r}; 0, 1 or 2 (2: the waiter is released "
                          f"once both vector lanes set)", "ffts_mode")
    return BOOL


def _sync_wait(ts, attrs):
    _event(ts, "sync_wait")
    _pipe_name(attrs, "sync_wait")
    _core_type(attrs, "sync_wait")
    return BOOL


def _set_ffts(ts, attrs):
    t = ts[0]
    if not isinstance(t, TensorType) or t.dtype is not DType.INT64 or len(t.shape) != 1 or \
            (isinstance(t.shape[0], int) and t.shape[0] < 256):
        raise OpTypeError(f"pl.system.set_ffts takes a 1-D INT64 tensor of at least 256 elements, got {t}", "workspace")
    return BOOL


def _syncall(ts, attrs):
    if attrs.get("core_type") not in SYNCALL_CORES:
        raise OpTypeError(f"pl.system.syncall: core_type={attrs.get('core_type')!r}; one of "
                          f"{', '.join(repr(c) for c in SYNCALL_CORES)}", "core_type")
    mode = attrs.get("mode")
    if mode not in ("hard", "soft"):
        raise OpTypeError(f"pl.system.syncall: mode={mode!r}; \"hard\" or \"soft\"", "mode")
    ws = ts[0] if ts else None
    if mode == "soft":
        if ws is None:
            raise OpTypeError("pl.system.syncall(mode=\"soft\") needs gm_workspace= (an INT32 GM tensor of at least 16 "
                              "elements)", "gm_workspace")
        if not isinstance(ws, TensorType) or ws.dtype is not DType.INT32 or \
                (all(isinstance(d, int) for d in ws.shape) and _numel(ws.shape) < 16):
            raise OpTypeError(f"pl.system.syncall: gm_workspace is an INT32 tensor of at least 16 elements, got {ws}",
                              "gm_workspace")
    elif ws is not None:
        raise OpTypeError("pl.system.syncall(mode=\"hard\") takes no gm_workspace= (the hardware barrier needs none)",
                          "gm_workspace")
    if len(ts) > 1 and mode == "hard":
        raise OpTypeError("pl.system.syncall: used_cores= goes with mode=\"soft\"", "used_cores")
    return BOOL


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _count(ts, attrs):
    return INT32


# launch widths for pl.spmd sizes with a hard syncall (orchestration code; rt_available_*_count())
for _n, _what in (("cluster", "clusters (each an AIC and two AIVs: the width of a mixed or cube SPMD launch)"),
                  ("aiv", "standalone vector cores (the width of a vector-only SPMD launch)")):
    declare(f"system.available_{_n}_count", (), _count, form="orch", traits={"orchestration", "orchestration_only"},
            namespaces=("pl.system",), doc=f"this run's launchable {_what}")


declare("sync_set", (P("event_id", "index"), P("pipe", "str", keyword_only=True),
                     P("ffts_mode", "int", None, keyword_only=True), P("core_type", "str", None, keyword_only=True)),
        _sync_set, form="event", namespaces=("pl.system",), pto="pto.sync.set", front="front_event",
        doc="raise cross-core event event_id for the peer core(s) of the cluster once pipe= has finished")
declare("sync_wait", (P("event_id", "index"), P("pipe", "str", keyword_only=True),
                      P("core_type", "str", None, keyword_only=True)),
        _sync_wait, form="event", namespaces=("pl.system",), pto="pto.sync.wait", front="front_event",
        doc="wait until the peer core(s) raised cross-core event event_id (bounded by the run's timeout)")
declare("set_ffts", (P("workspace", "tensor"),), _set_ffts, form="event", namespaces=("pl.system",),
        pto="pto.set_ffts", doc="a2a3: the FFTS workspace the cross-core events use (a 1-D INT64 tensor of >= 256)")
declare("syncall", (P("core_type", "str", "mix", keyword_only=True), P("mode", "str", "hard", keyword_only=True),
                    P("gm_workspace", "tensor", None, keyword_only=True),
                    P("used_cores", "index", None, keyword_only=True)),
        _syncall, form="event", namespaces=("pl.system",), pto="pto.syncall",
        doc="barrier of every core the task launched (all blocks; core_type mix / aiv_only / aic_only)")
