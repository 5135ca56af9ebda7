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

An sm_90a kernel compiled with TMA also takes a CUDA tensor map (CUtensorMap,
128 bytes, by value) per cache TMA reads: a manifest entry of kind
"tensormap" (k_cache_tmap, v_cache_tmap). Its kernelParams entry points at a
64-byte aligned map that cuTensorMapEncodeTiled encoded from the cache's
address, sizes and strides in the entry's dims order, box, element size and
swizzle (tensormap_params, which first raises ValueError naming the driver
rule a cache breaks); maps are kept per buffer (TensorMaps), so a launch on
the same buffers encodes nothing, and none reads device memory (capturable).
Launcher(kernel, driver=...) takes a stand-in for libcuda (tests).
"""
import collections
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


# cuda.h's CUtensorMap enums.
_TMAP_DATA_TYPE = {1: 0, 2: 1}  # CU_TENSOR_MAP_DATA_TYPE_UINT8, _UINT16 (bytes are moved)
_TMAP_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}  # CU_TENSOR_MAP_SWIZZLE_NONE, _32B, _64B, _128B
_TMAP_INTERLEAVE_NONE = 0
_TMAP_L2_PROMOTION_L2_128B = 2
_TMAP_FLOAT_OOB_FILL_NONE = 0
# The driver's rules on what it encodes.
TMAP_ADDRESS_ALIGN = 16
TMAP_STRIDE_ALIGN = 16
TMAP_MAX_STRIDE = 1 << 40  # bytes, exclusive
TMAP_MAX_DIM = 1 << 32  # elements, inclusive

# cuTensorMapEncodeTiled's arguments after the map itself, as plain ints
# (global_strides: bytes, one per map dimension above the innermost).
TensorMapParams = collections.namedtuple(
    "TensorMapParams", "data_type rank address global_dim global_strides box "
    "element_strides interleave swizzle l2_promotion oob_fill")


def tensormap_params(entry, buf):
    """The cuTensorMapEncodeTiled arguments of manifest entry `entry` (kind
    tensormap, _abi.tensormap_operand) for the cache's Buffer `buf`: map
    dimension i (innermost first) is the tensor's dimension dims[i]; the
    address is the tensor's first element (its storage offset included).
    Raises ValueError naming the argument and the driver's rule it breaks:
    element size, rank, a 16-byte aligned address, sizes 1..2^32, the
    innermost dimension contiguous, strides multiples of 16 bytes (not
    negative) below 2^40."""
    _abi.tensormap_operand(entry)
    name = entry["name"]
    t = entry["tensormap"]
    dims, eb = t["dims"], t["element_bytes"]
    where = f"{name}: the tensor map of shape {list(buf.shape)}, strides {list(buf.strides)}"
    if buf.itemsize != eb:
        raise ValueError(f"{where}: elements of {buf.itemsize} bytes, the manifest's map "
                         f"has element_bytes {eb}")
    if len(buf.shape) != len(dims) or len(buf.strides) != len(dims):
        raise ValueError(f"{where}: rank {len(buf.shape)}, the manifest's map has dims {dims}")
    if buf.ptr % TMAP_ADDRESS_ALIGN:
        raise ValueError(f"{where}: the global address {buf.ptr:#x} is not "
                         f"{TMAP_ADDRESS_ALIGN}-byte aligned")
    global_dim = [int(buf.shape[d]) for d in dims]
    for i, size in enumerate(global_dim):
        if not 1 <= size <= TMAP_MAX_DIM:
            raise ValueError(f"{where}: globalDim[{i}] (tensor dimension {dims[i]}) is "
                             f"{size}, the driver takes 1..2^32")
    if buf.strides[dims[0]] != 1:
        raise ValueError(f"{where}: the innermost map dimension (tensor dimension {dims[0]}) "
                         f"has stride {buf.strides[dims[0]]}; it must be contiguous (stride 1)")
    global_strides = [int(buf.strides[d]) * eb for d in dims[1:]]
    for i, stride in enumerate(global_strides):
        if stride < 0 or stride % TMAP_STRIDE_ALIGN:
            raise ValueError(f"{where}: globalStrides[{i}] (tensor dimension {dims[i + 1]}) is "
                             f"{stride} bytes, not a multiple of {TMAP_STRIDE_ALIGN} (>= 0)")
        if stride >= TMAP_MAX_STRIDE:
            raise ValueError(f"{where}: globalStrides[{i}] (tensor dimension {dims[i + 1]}) is "
                             f"{stride} bytes, not below 2^40")
    return TensorMapParams(_TMAP_DATA_TYPE[eb], len(dims), int(buf.ptr), global_dim,
                           global_strides, [int(b) for b in t["box"]], [1] * len(dims),
                           _TMAP_INTERLEAVE_NONE, _TMAP_SWIZZLE[t.get("swizzle", 0)],
                           _TMAP_L2_PROMOTION_L2_128B, _TMAP_FLOAT_OOB_FILL_NONE)


class TensorMap:
    """128 bytes of host memory at a 64-byte aligned address (a CUtensorMap,
    `struct alignas(64) { cuuint64_t opaque[16]; }`): what kernelParams
    points at for a tensor map argument."""
    __slots__ = ("_storage", "address", "params")

    def __init__(self, params=None):
        size, align = _abi.TENSORMAP_SIZE, _abi.TENSORMAP_ALIGN
        self._storage = ctypes.create_string_buffer(size + align - 1)
        self.address = -(-ctypes.addressof(self._storage) // align) * align
        self.params = params

    def raw(self):
        """The encoded map's 128 bytes."""
        return ctypes.string_at(self.address, _abi.TENSORMAP_SIZE)


def encode_tensormap(driver, params):
    """A TensorMap encoded by `driver` (libcuda or a stand-in) from
    TensorMapParams."""
    fn = getattr(driver, "cuTensorMapEncodeTiled", None)
    if fn is None:
        raise CudaError("the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or later): "
                        "a kernel compiled with TMA cannot be launched")
    m = TensorMap(params)
    r = params.rank
    rc = fn(ctypes.c_void_p(m.address), ctypes.c_int(params.data_type), ctypes.c_uint32(r),
            ctypes.c_void_p(params.address), (ctypes.c_uint64 * r)(*params.global_dim),
            (ctypes.c_uint64 * max(1, r - 1))(*params.global_strides),
            (ctypes.c_uint32 * r)(*params.box), (ctypes.c_uint32 * r)(*params.element_strides),
            ctypes.c_int(params.interleave), ctypes.c_int(params.swizzle),
            ctypes.c_int(params.l2_promotion), ctypes.c_int(params.oob_fill))
    _check(rc, f"cuTensorMapEncodeTiled({params})")
    return m


class TensorMaps:
    """The tensor maps one launcher has encoded, by manifest entry and buffer
    (address, shape, strides, dtype, device): a launch on the buffers of an
    earlier one encodes nothing. Called as _abi.argument_values' `tensormap`.
    Bounded: above `limit` maps it starts again."""

    def __init__(self, driver, limit=256):
        self.driver = driver
        self.limit = limit
        self.encodes = 0
        self._maps = {}

    def __call__(self, entry, buf):
        t = entry["tensormap"]
        key = (entry["name"], tuple(t["dims"]), tuple(t["box"]), t["element_bytes"],
               t.get("swizzle", 0), buf.ptr, buf.shape, buf.strides, buf.dtype, buf.index)
        m = self._maps.get(key)
        if m is None:
            m = encode_tensormap(self.driver, tensormap_params(entry, buf))
            self.encodes += 1
            if len(self._maps) >= self.limit:
                self._maps.clear()
            self._maps[key] = m
        return m


class Launcher:
    """One kernel loaded into the current CUDA context."""

    def __init__(self, kernel, driver=None):
        """`driver`: the CUDA driver's functions (default libcuda.so.1,
        initialised); a stand-in for tests."""
        if kernel.chip not in ("sm_90", "sm_90a") or kernel.format != "bin":
            raise ValueError("the CUDA launcher takes sm_90 / sm_90a PTX kernels (format bin)")
        self.kernel = kernel
        self.manifest = kernel.manifest
        self.args = _abi.operand_parts(self.manifest)
        self.operands = list(dict.fromkeys(op for op, _, _, _ in self.args))
        self._checked = set()
        # Tensor map arguments: kernelParams points at their encoded maps.
        self._tensormap_slots = [i for i, (_, part, _, _) in enumerate(self.args)
                                 if part == "tensormap"]
        cu = self._cu = driver or _driver()
        self.tensormaps = TensorMaps(cu)
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
        # One 8-byte value per argument and a pointer to each (kernelParams);
        # a tensor map argument's pointer is its encoded map's (128 bytes,
        # 64-aligned; kept by self.tensormaps).
        n = len(self.args)
        args = _abi.argument_values(self.args, bufs, self.tensormaps)
        values = (ctypes.c_int64 * n)(*[0 if kind == "tensormap" else v for kind, v in args])
        base = ctypes.addressof(values)
        params = (ctypes.c_void_p * n)(*range(base, base + 8 * n, 8))
        for i in self._tensormap_slots:
            params[i] = args[i][1].address
        block = self.manifest["workgroup"]
        if stream is None:
            import torch
            stream = torch.cuda.current_stream().cuda_stream
        # cuLaunchKernel copies the parameters (also when a CUDA graph is
        # being captured), so `values` and the maps need only outlive the call.
        _check(self._cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2],
                                       block[0], block[1], block[2], self.shared,
                                       ctypes.c_void_p(stream), params, None), "cuLaunchKernel")
