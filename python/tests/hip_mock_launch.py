#!/usr/bin/env python3
"""fmha_mlir.hip's launch on fmha-hip-run's stand-in HIP runtime
(tools/fmha-hip-run/mock), for test/Python/hip-mock.test:

    hip_mock_launch.py NAME.json NAME.hsaco libfmha-hip-mock.so [ocp-q]

Builds the buffers of the manifest's request the way fmha-hip-run does
(hipMalloc in operand order, the k and v descales as two views of aiter's
interleaved [N_pages, Hkv, 2] allocation, the page table of the request's
lengths) and launches through fmha_mlir.hip.Launcher; the mock prints the
grid, the block and every kernarg slot on stderr, which the test compares
with fmha-hip-run's launch of the same kernel."""
import ctypes
import json
import math
import struct
import sys

import fmha_mlir
import fmha_mlir.hip as hip


class Device:
    def __init__(self):
        self.type = "cuda"


class DeviceArray:
    """Device memory from the runtime's hipMalloc, as a torch-like tensor."""

    def __init__(self, rt, data, dtype, itemsize, shape, base=None, offset=0, strides=None):
        self.rt, self.dtype, self.itemsize, self.shape = rt, dtype, itemsize, tuple(shape)
        self.device = Device()
        dense = [1] * len(shape)
        for i in range(len(shape) - 1, 0, -1):
            dense[i - 1] = dense[i] * shape[i]
        self._strides = tuple(strides or dense)
        self.offset = offset
        if base is None:
            self.base = ctypes.c_void_p()
            nbytes = len(data)
            hip._check(rt, rt.hipMalloc(ctypes.byref(self.base), ctypes.c_size_t(nbytes or 4)),
                       "hipMalloc")
            if nbytes:
                buf = ctypes.create_string_buffer(data, nbytes)
                hip._check(rt, rt.hipMemcpy(self.base, buf, ctypes.c_size_t(nbytes), 1),
                           "hipMemcpy")
        else:
            self.base = base

    def data_ptr(self):
        return self.base.value + self.offset * self.itemsize

    def storage_offset(self):
        return self.offset

    def stride(self):
        return self._strides

    def element_size(self):
        return self.itemsize


def main():
    manifest = json.load(open(sys.argv[1]))
    binary = open(sys.argv[2], "rb").read()
    rt = hip._runtime(sys.argv[3])
    rt.hipMalloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    rt.hipMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    kernel = fmha_mlir.Kernel(binary, manifest, manifest["chip"], "bin")
    launcher = hip.Launcher(kernel, library=sys.argv[3])
    r = manifest["request"]
    qo, kv, p = r["qo_lens"], r["kv_lens"], r["page_size"]
    hq, hkv, d, dv = r["num_qo_heads"], r["num_kv_heads"], r["head_dim"], r["head_dim_v"]
    need = [math.ceil(n / p) for n in kv]
    n_pages = 2 * sum(need) + 3  # the default pool, as fmha-hip-run's
    t = sum(qo)
    fp8 = {"f8E4M3FNUZ": "float8_e4m3fnuz", "f8E4M3FN": "float8_e4m3fn"}
    i32 = lambda v: struct.pack(f"<{len(v)}i", *v)  # noqa: E731
    f32 = lambda v: struct.pack(f"<{len(v)}f", *v)  # noqa: E731
    arr = lambda data, dtype, size, shape: DeviceArray(rt, data, dtype, size, shape)  # noqa: E731
    tensors = {}
    tensors["q"] = arr(bytes(t * hq * d), fp8[r["q_dtype"]], 1, (t, hq, d))
    tensors["k_cache"] = arr(bytes(n_pages * p * hkv * d), fp8[r["kv_dtype"]], 1,
                             (n_pages, p, hkv, d))
    tensors["v_cache"] = arr(bytes(n_pages * p * hkv * dv), fp8[r["kv_dtype"]], 1,
                             (n_pages, p, hkv, dv))
    qo_indptr = [0]
    for n in qo:
        qo_indptr.append(qo_indptr[-1] + n)
    kv_indptr = [0]
    for n in need:
        kv_indptr.append(kv_indptr[-1] + n)
    pages = list(range(sum(need)))
    last = [n - (m - 1) * p if m else 0 for n, m in zip(kv, need)]
    tensors["qo_indptr"] = arr(i32(qo_indptr), "int32", 4, (len(qo_indptr),))
    tensors["kv_indptr"] = arr(i32(kv_indptr), "int32", 4, (len(kv_indptr),))
    tensors["kv_page_indices"] = arr(i32(pages), "int32", 4, (len(pages),))
    tensors["kv_last_page_len"] = arr(i32(last), "int32", 4, (len(last),))
    tensors["q_descale"] = arr(f32([1.0]), "float32", 4, (1,))
    kv_scales = arr(f32([1.0] * (n_pages * hkv * 2)), "float32", 4, (n_pages, hkv, 2))
    for i, name in enumerate(("k_descale", "v_descale")):
        tensors[name] = DeviceArray(rt, None, "float32", 4, (n_pages, hkv), base=kv_scales.base,
                                    offset=i, strides=(2 * hkv, 2))
    tensors["out"] = arr(bytes(t * hq * dv * 2), "bfloat16", 2, (t, hq, dv))
    if r["lse"]:
        tensors["lse"] = arr(bytes(t * hq * 4), "float32", 4, (t, hq))
    if sys.argv[4:] == ["ocp-q"]:
        # The OCP flavour for a gfx942 (FNUZ) kernel: refused, nothing launched.
        tensors["q"].dtype = "float8_e4m3fn"
        try:
            launcher(tensors, qo)
        except ValueError as e:
            print(f"refused: {e}", file=sys.stderr)
            return
    launcher(tensors, qo)
    print("launched", file=sys.stderr)


if __name__ == "__main__":
    main()
