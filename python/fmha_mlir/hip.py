"""Launching an fmha_mlir kernel (a gfx942 / gfx950 HSACO) on AMD GPUs
through the HIP runtime (ctypes over libamdhip64.so; no compiled extension).

    launcher = fmha_mlir.hip.Launcher(kernel)      # kernel: gfx942/gfx950, bin
    launcher(tensors, qo_lens)                     # on torch's current stream

As fmha-hip-run does (docs/ABI.md, section 3): one kernarg buffer of the
manifest's kernarg_size, every argument written at its offset (a pointer
with the storage offset included, or, for an operand with a NAME_offset
argument, the storage's start with NAME_offset its storage offset; sizes and
strides in elements),
passed through hipModuleLaunchKernel's `extra` (HIP_LAUNCH_PARAM_BUFFER_
POINTER / SIZE / END), the manifest's grid and workgroup, no dynamic LDS.
The tensors are checked against the manifest first (_abi.check): device,
dtype, shape, density. torch on ROCm names its devices "cuda", so a torch
tensor on an AMD GPU passes as is; the stream is torch's current one (a
hipStream_t) unless given. The library is libamdhip64.so (or $FMHA_HIP_LIBRARY,
or `library=`: fmha-hip-run's stand-in, tools/fmha-hip-run/mock, in tests).
"""
import ctypes
import os

from . import _abi

HIP_LAUNCH_PARAM_BUFFER_POINTER = 1
HIP_LAUNCH_PARAM_BUFFER_SIZE = 2
HIP_LAUNCH_PARAM_END = 3


class HipError(RuntimeError):
    pass


_runtimes = {}


def _runtime(library=None):
    path = library or os.environ.get("FMHA_HIP_LIBRARY") or "libamdhip64.so"
    if path not in _runtimes:
        try:
            hip = ctypes.CDLL(path)
        except OSError as e:
            raise HipError(f"cannot load the HIP runtime {path}: {e}") from None
        hip.hipGetErrorString.restype = ctypes.c_char_p
        hip.hipGetErrorString.argtypes = [ctypes.c_int]
        hip.hipModuleLaunchKernel.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
            ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p,
            ctypes.c_void_p]
        hip.hipModuleGetFunction.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
        hip.hipModuleLoadData.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _check(hip, hip.hipInit(0), "hipInit")
        _runtimes[path] = hip
    return _runtimes[path]


def _check(hip, rc, what):
    if rc != 0:
        raise HipError(f"{what} failed: {hip.hipGetErrorString(rc).decode()} ({rc})")


class Launcher:
    """One kernel loaded into the current HIP device."""

    def __init__(self, kernel, library=None):
        if kernel.chip not in ("gfx942", "gfx950") or kernel.format != "bin":
            raise ValueError("the HIP launcher takes gfx942 / gfx950 code objects (format bin)")
        self.kernel = kernel
        self.manifest = kernel.manifest
        self.parts = _abi.operand_parts(self.manifest)
        self.operands = list(dict.fromkeys(op for op, _, _, _ in self.parts))
        self._checked = set()
        # An sm_90a TMA kernel's CUDA tensor map has no HIP counterpart.
        _abi.refuse_tensormaps(self.parts, "the HIP launcher")
        # Every argument is one 8-byte word at an 8-aligned offset (docs/ABI.md).
        self._size = int(self.manifest["kernarg_size"])
        if int(self.manifest.get("kernarg_align", 8)) > 8:
            raise ValueError("kernarg_align above 8 is not supported")
        self._words = (self._size + 7) // 8
        self._slots = []
        for _, _, _, entry in self.parts:
            if entry["size"] != 8 or entry["offset"] % 8:
                raise ValueError(f"argument {entry['name']}: {entry['size']} bytes at "
                                 f"{entry['offset']}, the launcher writes 8-byte words")
            self._slots.append(entry["offset"] // 8)
        self.hip = _runtime(library)
        count = ctypes.c_int()
        _check(self.hip, self.hip.hipGetDeviceCount(ctypes.byref(count)), "hipGetDeviceCount")
        self._image = ctypes.create_string_buffer(kernel.binary, len(kernel.binary))
        self.module = ctypes.c_void_p()
        _check(self.hip, self.hip.hipModuleLoadData(ctypes.byref(self.module), self._image),
               f"hipModuleLoadData (a code object for {self.manifest.get('target')}; "
               "code object v6 needs ROCm 6.3 or later)")
        self.function = ctypes.c_void_p()
        _check(self.hip, self.hip.hipModuleGetFunction(ctypes.byref(self.function), self.module,
                                                       self.manifest["kernel"].encode()),
               "hipModuleGetFunction")

    def kernarg(self, tensors, bufs=None):
        """The kernarg buffer for `tensors` (checked; `bufs`: Buffers already
        read, by operand name): (8-byte words, size in bytes)."""
        bufs = _abi.check_once(self._checked, self.manifest["request"], self.operands,
                               tensors, bufs, "cuda")
        self._batch = bufs["qo_indptr"].shape[0] - 1
        words = (ctypes.c_int64 * self._words)()
        for slot, (_, value) in zip(self._slots, _abi.argument_values(self.parts, bufs)):
            words[slot] = value
        return words, self._size

    def __call__(self, tensors, qo_lens=None, stream=None, max_qo_len=None, bufs=None):
        """Launches on `tensors`; the grid from `qo_lens`, or from `max_qo_len`
        and qo_indptr's size (no read of device memory: capturable)."""
        words, size = self.kernarg(tensors, bufs)
        gx, gy, gz = _abi.grid(self.manifest, qo_lens, max_qo_len, self._batch)
        if not (gx and gy and gz):
            return
        if stream is None:
            try:
                import torch
                stream = torch.cuda.current_stream().cuda_stream
            except ImportError:
                stream = 0
        size_value = ctypes.c_size_t(size)
        extra = (ctypes.c_void_p * 5)(
            HIP_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(words),
            HIP_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size_value), HIP_LAUNCH_PARAM_END)
        block = self.manifest["workgroup"]
        _check(self.hip, self.hip.hipModuleLaunchKernel(
            self.function, gx, gy, gz, block[0], block[1], block[2], 0,
            ctypes.c_void_p(stream or None), None, extra), "hipModuleLaunchKernel")
