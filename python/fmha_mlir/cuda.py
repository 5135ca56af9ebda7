"""Launching an fmha_mlir kernel on torch CUDA tensors through the CUDA
driver (ctypes over libcuda.so.1; no compiled extension).

    launcher = fmha_mlir.cuda.Launcher(kernel)          # kernel: sm_90 PTX
    launcher(tensors, qo_lens)                          # on torch's stream

`tensors` maps the manifest's operand names (q, k_cache, v_cache, qo_indptr,
kv_indptr, kv_page_indices, kv_last_page_len or block_table, kv_seqlen,
q_descale, k_descale, v_descale, out, lse) to CUDA tensors; each kernel
argument is filled from the manifest's ABI (_abi.argument_values): NAME is
the tensor's data pointer (its storage offset included) or, where the ABI
has NAME_offset, its storage's start with NAME_offset the storage offset;
NAME_dimN its size N, NAME_strideN its stride N (elements). The grid is the manifest's: ceil(max
qo_len / block_m) x num_qo_heads x batch. Every tensor is checked against the
manifest's request (_abi.check: device, dtype, shape, density).
"""
import ctypes

from . import _abi

# Kept for callers of the first version: (operand, part, index, entry).
operand_parts = _abi.operand_parts


class CudaError(RuntimeError):
    pass


_cuda = None


# CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
_MAX_DYNAMIC_SHARED = 8


def _driver():
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
        _check(_cuda.cuInit(0), "cuInit")
    return _cuda


def _check(rc, what):
    if rc != 0:
        raise CudaError(f"{what} failed with CUresult {rc}")


class Launcher:
    """One kernel loaded into the current CUDA context."""

    def __init__(self, kernel):
        if kernel.chip not in ("sm_90", "sm_90a") or kernel.format != "bin":
            raise ValueError("the CUDA launcher takes sm_90 / sm_90a PTX kernels (format bin)")
        self.kernel = kernel
        self.manifest = kernel.manifest
        self.args = _abi.operand_parts(self.manifest)
        self.operands = list(dict.fromkeys(op for op, _, _, _ in self.args))
        self._checked = set()
        cu = self._cu = _driver()
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
        # All of an NVIDIA kernel's shared memory is dynamic (docs/ABI.md);
        # above 48 KiB the function must allow it first.
        self.shared = int(self.manifest.get("dynamic_shared_bytes", 0))
        if self.shared > 48 * 1024:
            _check(cu.cuFuncSetAttribute(self.function, _MAX_DYNAMIC_SHARED, self.shared),
                   "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")

    def check(self, tensors):
        """The tensors' buffers, checked against the manifest (_abi.check)."""
        return _abi.check(self.manifest["request"], self.operands, tensors, "cuda")

    def __call__(self, tensors, qo_lens=None, stream=None, max_qo_len=None, bufs=None):
        """Launches on `tensors`; the grid from `qo_lens`, or from `max_qo_len`
        and qo_indptr's size (no read of device memory: capturable). `bufs`:
        Buffers already read (_abi.describe), by operand name. A set of
        shapes, strides and dtypes is checked once, then remembered."""
        bufs = _abi.check_once(self._checked, self.manifest["request"], self.operands,
                               tensors, bufs, "cuda")
        grid = _abi.grid(self.manifest, qo_lens, max_qo_len, bufs["qo_indptr"].shape[0] - 1)
        if not all(grid):
            return
        # One 8-byte value per argument and a pointer to each (kernelParams).
        n = len(self.args)
        values = (ctypes.c_int64 * n)(*[v for _, v in _abi.argument_values(self.args, bufs)])
        base = ctypes.addressof(values)
        params = (ctypes.c_void_p * n)(*range(base, base + 8 * n, 8))
        block = self.manifest["workgroup"]
        if stream is None:
            import torch
            stream = torch.cuda.current_stream().cuda_stream
        # cuLaunchKernel copies the parameters (also when a CUDA graph is
        # being captured), so `values` need only outlive the call.
        _check(self._cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2],
                                       block[0], block[1], block[2], self.shared,
                                       ctypes.c_void_p(stream), params, None), "cuLaunchKernel")
