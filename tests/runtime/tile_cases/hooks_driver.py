"""Run in a subprocess by test_tile_lib_errors.py: loads fake_runtime.so RTLD_GLOBAL, then
hook_kernel.so, and exercises the weak hooks (core buffers, fatal, GM check, FIFO).
Prints one JSON object with the observations."""
import ctypes
import json
import sys
import threading

import numpy as np

rt = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
k = ctypes.CDLL(sys.argv[2])
rt.rt_space_base.restype = ctypes.c_void_p
rt.rt_space_base.argtypes = [ctypes.c_int, ctypes.c_int]
rt.rt_register_gm.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
rt.rt_run.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
rt.rt_init()
res = {}


def run(core, fn, *args):
    a = (ctypes.c_int64 * max(1, len(args)))(*args)
    msg = ctypes.create_string_buffer(512)
    failed = rt.rt_run(core, ctypes.cast(getattr(k, fn), ctypes.c_void_p), a, msg, 512)
    return failed, msg.value.decode()


R, C = 16, 32
x = np.arange(R * C, dtype=np.float32).reshape(R, C)
rt.rt_register_gm(x.ctypes.data, x.nbytes)
slot = ctypes.c_void_p()
res["tile_addr_failed"], _ = run(1, "k_tile_addr", x.ctypes.data, ctypes.addressof(slot))
res["tile_addr"] = slot.value
res["vec_base_core1"] = rt.rt_space_base(1, 0)
buf = np.ctypeslib.as_array((ctypes.c_float * (R * C)).from_address(rt.rt_space_base(1, 0) + 256))
res["runtime_buffer_matches"] = bool(np.array_equal(buf.reshape(R, C), np.arange(R * C, dtype=np.float32).reshape(R, C) + 1))
res["gm_after"] = bool(np.array_equal(x, np.arange(R * C, dtype=np.float32).reshape(R, C) + 1))
res["capacity"] = run(1, "k_capacity", 188416)
small = np.zeros((4, C), np.float32)
rt.rt_register_gm(small.ctypes.data, small.nbytes)
res["oob"] = run(1, "k_load_rows", small.ctypes.data, 8)
res["in_bounds"] = run(1, "k_load_rows", small.ctypes.data, 4)

# FIFO: cube (core 0) -> vector lanes (cores 1, 2)
a = np.random.default_rng(0).uniform(-1, 1, (R, R)).astype(np.float32)
b = np.random.default_rng(1).uniform(-1, 1, (R, C)).astype(np.float32)
want = (a.astype(np.float64) @ b.astype(np.float64))
for arr in (a, b):
    rt.rt_register_gm(arr.ctypes.data, arr.nbytes)


def threaded(jobs):
    out = [None] * len(jobs)

    def go(i, job):
        out[i] = run(*job)
    ts = [threading.Thread(target=go, args=(i, j)) for i, j in enumerate(jobs)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out


def close(o):
    return bool(np.allclose(o, want, rtol=1e-5, atol=1e-5))


o = np.zeros((R, C), np.float32)
rt.rt_register_gm(o.ctypes.data, o.nbytes)
# no split: the cube talks to lane 0 only
r = threaded([(0, "k_cube_push", a.ctypes.data, b.ctypes.data, 0), (1, "k_vec_pop", o.ctypes.data, R, C, C)])
res["c2v_nosplit"] = [r, close(o)]
o[:] = 0
r = threaded([(0, "k_cube_push", a.ctypes.data, b.ctypes.data, 1),
              (1, "k_vec_pop", o.ctypes.data, R // 2, C, C),
              (2, "k_vec_pop", o[R // 2:].ctypes.data, R // 2, C, C)])
res["c2v_updown"] = [r, close(o)]
o[:] = 0
r = threaded([(0, "k_cube_push", a.ctypes.data, b.ctypes.data, 2),
              (1, "k_vec_pop", o.ctypes.data, R, C // 2, C),
              (2, "k_vec_pop", o[:, C // 2:].ctypes.data, R, C // 2, C)])
res["c2v_leftright"] = [r, close(o)]
o2 = np.zeros((R, C), np.float32)
rt.rt_register_gm(o2.ctypes.data, o2.nbytes)
r = threaded([(1, "k_vec_push", x.ctypes.data), (0, "k_cube_pop", o2.ctypes.data)])
res["v2c"] = [r, bool(np.array_equal(o2, x))]
rt.rt_set_timeout_ms(200)
res["timeout"] = run(1, "k_vec_pop", o.ctypes.data, R, C, C)
print(json.dumps(res))
