"""Device ABI: C++ tensor.h / intrinsic.h layouts against the Python ctypes mirrors."""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from ptokit.runtime import abi
from ptokit.runtime.build import INCLUDE_DIR, compile_shared

CASES = Path(__file__).resolve().parent / "sim_cases"


@pytest.fixture(scope="module")
def probe():
    so = compile_shared(CASES / "abi_offsets.cpp", include_dirs=[INCLUDE_DIR], extra_flags=["-Werror"],
                        name_hint="simtest:abi")
    lib = ctypes.CDLL(str(so))
    lib.element_size.restype = ctypes.c_uint32
    lib.element_size.argtypes = [ctypes.c_uint8]
    lib.scalar_bits_f32.restype = ctypes.c_uint64
    lib.scalar_bits_f32.argtypes = [ctypes.c_float]
    lib.scalar_bits_i32.restype = ctypes.c_uint64
    lib.scalar_bits_i32.argtypes = [ctypes.c_int32]
    return lib


def test_chip_tensor_offsets_match_cpp(probe):
    out = (ctypes.c_uint64 * 32)()
    n = probe.chip_tensor_layout(out)
    vals = list(out)[:n]
    assert vals[0] == ctypes.sizeof(abi.ChipTensor) == abi.CHIP_TENSOR_SIZE == 128
    assert vals[1] == abi.CHIP_TENSOR_ALIGN == 64
    names = ["buffer.addr", "buffer.size", "owner_task_id", "start_offset", "version", "ndims", "dtype",
             "manual_dep", "is_contiguous", "address_space", "shapes", "extent_elem_cache", "strides", "padding"]
    cpp = dict(zip(names, vals[2:]))
    assert cpp == abi.CHIP_TENSOR_OFFSETS == abi.chip_tensor_offsets()


def test_context_offsets_match_cpp(probe):
    out = (ctypes.c_uint64 * 16)()
    n = probe.context_layout(out)
    v = list(out)[:n]
    assert v[0] == ctypes.sizeof(abi.LocalContext)
    assert v[1:5] == [abi.LocalContext.block_idx.offset, abi.LocalContext.block_num.offset,
                      abi.LocalContext.task_id.offset, abi.LocalContext.core_id.offset]
    assert v[5] == ctypes.sizeof(abi.GlobalContext)
    assert v[6:10] == [abi.GlobalContext.sub_block_id.offset, abi.GlobalContext.cluster_id.offset,
                       abi.GlobalContext.core_id.offset, abi.GlobalContext.core_type.offset]


def test_datatype_sizes_match_cpp(probe):
    for dt in abi.DataType:
        assert probe.element_size(int(dt)) == dt.size
    assert abi.datatype_of_numpy(np.float16) == abi.DataType.FLOAT16
    import ml_dtypes
    assert abi.datatype_of_numpy(ml_dtypes.bfloat16) == abi.DataType.BFLOAT16
    with pytest.raises(ValueError, match="complex64"):
        abi.datatype_of_numpy(np.complex64)


def test_scalar_encoding_matches_to_u64(probe):
    assert abi.to_u64(1.5) == probe.scalar_bits_f32(1.5) == 0x3FC00000
    assert abi.to_u64(-1, "INT32") == probe.scalar_bits_i32(-1) == 0xFFFFFFFF
    assert abi.to_u64(-1) == (1 << 64) - 1                   # plain int: int64
    assert abi.to_u64(np.float32(2.0)) == 0x40000000
    assert abi.to_u64(True) == 1
    assert abi.from_u64(0x3FC00000, "FP32") == np.float32(1.5)


def test_make_tensor_view(probe):
    out = (ctypes.c_uint64 * 6)()
    probe.view_probe(out)
    assert list(out) == [4 * 16 + 8, 4, 8, 0, 3 * 16, 1]


def test_make_chip_tensor():
    t = abi.make_chip_tensor(0x1000, 24, (2, 3), abi.DataType.FLOAT32)
    assert t.owner_task_id == abi.UINT64_MAX and t.ndims == 2
    assert list(t.shapes)[:2] == [2, 3] and list(t.strides)[:2] == [3, 1] and t.extent_elem_cache == 6
    with pytest.raises(ValueError):
        abi.make_chip_tensor(0, 0, (1,) * 6, abi.DataType.FLOAT32)
