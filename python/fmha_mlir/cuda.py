"""Launching an fmha_mlir kernel on torch CUDA tensors through the CUDA
driver (ctypes over libcuda.so.1; no compiled extension).

    launcher = fmha_mlir.cuda.Launcher(kernel)          # kernel: sm_90 PTX
    launcher(tensors, qo_lens)                          # on torch's stream

`tensors` maps the manifest's operand names (q, k_cache, v_cache, qo_indptr,
kv_indptr, kv_page_indices, kv_last_page_len or block_table, kv_seqlen,
q_descale, k_descale, v_descale, out, lse) to CUDA tensors; each kernel
argument is filled from the manifest's ABI: NAME is the tensor's data
pointer (its storage offset included), NAME_dimN its size N, NAME_strideN its
stride N (elements), NAME_offset 0. The grid is the manifest's: ceil(max
qo_len / block_m) x num_qo_heads x batch. Every tensor is checked against the
manifest's request (device, dtype size, rank, the head dim contiguous).
"""
import ctypes
import math
import re

_ARG = re.compile(r"^(?P<op>[a-z_]+?)(?:_(?P<part>dim|stride)(?P<n>\d+)|_(?P<off>offset))?$")

_ELEM_BYTES = {"f8E4M3FN": 1, "f8E4M3FNUZ": 1, "f8E5M2": 1, "f8E5M2FNUZ": 1,
               "bf16": 2, "f16": 2, "f32": 4}


class CudaError(RuntimeError):
    pass


_cuda = None


def _driver():
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
        _check(_cuda.cuInit(0), "cuInit")
    return _cuda


def _check(rc, what):
    if rc != 0:
        raise CudaError(f"{what} failed with CUresult {rc}")


def operand_parts(manifest):
    """(operand, part, index) of every kernel argument, in ABI order."""
    out = []
    for a in manifest["args"]:
        m = _ARG.match(a["name"])
        if not m:
            raise ValueError(f"manifest argument {a['name']!r} is not NAME[_dimN|_strideN|_offset]")
        part = "pointer" if not (m.group("part") or m.group("off")) else (
            m.group("part") or "offset")
        out.append((m.group("op"), part, int(m.group("n") or 0), a))
    return out


class Launcher:
    """One kernel loaded into the current CUDA context."""

    def __init__(self, kernel):
        if kernel.chip not in ("sm_90", "sm_90a") or kernel.format != "bin":
            raise ValueError("the CUDA launcher takes sm_90 / sm_90a PTX kernels (format bin)")
        self.kernel = kernel
        self.manifest = kernel.manifest
        self.args = operand_parts(self.manifest)
        cu = _driver()
        ctx = ctypes.c_void_p()
        _check(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:
            raise CudaError("no current CUDA context (initialise torch.cuda first)")
        self.module = ctypes.c_void_p()
        ptx = kernel.binary + b"\0"
        _check(cu.cuModuleLoadData(ctypes.byref(self.module), ptx), "cuModuleLoadData")
        self.function = ctypes.c_void_p()
        _check(cu.cuModuleGetFunction(ctypes.byref(self.function), self.module,
                                      self.manifest["kernel"].encode()), "cuModuleGetFunction")

    def check(self, tensors):
        req = self.manifest["request"]
        need = {op for op, _, _, _ in self.args}
        missing = sorted(need - set(tensors))
        if missing:
            raise ValueError(f"missing tensors: {', '.join(missing)}")
        for name in need:
            t = tensors[name]
            if not t.is_cuda:
                raise ValueError(f"{name}: must be a CUDA tensor")
        for name, key in (("q", "q_dtype"), ("k_cache", "kv_dtype"), ("v_cache", "kv_dtype"),
                          ("out", "out_dtype")):
            if name in tensors and tensors[name].element_size() != _ELEM_BYTES[req[key]]:
                raise ValueError(f"{name}: elements of {tensors[name].element_size()} bytes, "
                                 f"the kernel's {req[key]} has {_ELEM_BYTES[req[key]]}")
        strided = {op for op, part, _, _ in self.args if part == "stride"}
        for name in need - strided:
            if not tensors[name].is_contiguous():
                raise ValueError(f"{name}: must be contiguous (the kernel's memref has "
                                 "an identity layout)")

    def __call__(self, tensors, qo_lens, stream=None):
        import torch
        self.check(tensors)
        values = []
        for op, part, n, a in self.args:
            t = tensors[op]
            if part == "pointer":
                values.append(ctypes.c_void_p(t.data_ptr()))
            elif part == "dim":
                values.append(ctypes.c_int64(t.shape[n]))
            elif part == "stride":
                values.append(ctypes.c_int64(t.stride(n)))
            else:
                values.append(ctypes.c_int64(0))
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
        cfg = self.manifest["config"]
        req = self.manifest["request"]
        grid = (math.ceil(max(qo_lens) / cfg["block_m"]) if qo_lens else 0,
                req["num_qo_heads"], len(qo_lens))
        if grid[0] == 0 or grid[2] == 0:
            return
        block = self.manifest["workgroup"]
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        cu = _driver()
        _check(cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2],
                                 block[0], block[1], block[2], 0,
                                 ctypes.c_void_p(stream), params, None), "cuLaunchKernel")
        self._keep = values  # alive until the next launch
