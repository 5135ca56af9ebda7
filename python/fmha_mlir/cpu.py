"""Running fmha_mlir kernels on this CPU, on numpy arrays or CPU torch
tensors, through libFmhaMLIR.so's CPU interface (fmha_cpu_compile / run):

    k = fmha_mlir.cpu.compile(request, target="host")   # or "gfx942", ...
    k(tensors)              # operand name -> array; writes out (and lse)

target "host" runs the tiled form lowered for the CPU (fmha-to-host-
pipeline, the JIT); a chip (gfx942, gfx950, sm_90, sm_90a) runs that chip's
lane-level kernel, the one fmha-compile emits, lane by lane in the lane
emulator (docs/LANE_EMULATOR.md): slow, but the AMD code path executed.
A kernel serves every request with the same kernel key (complete_request):
the lengths come from the tensors. numpy has no fp8 or bf16: pass their raw
codes as uint8 / uint16 arrays. Every tensor is checked first (_abi.check),
then again by the library, which also checks the page table (no page id
outside the pool) before anything runs.
"""
import ctypes
import json

from . import CompileError, UnsupportedRequest, _abi, _library, _take, complete_request, options_json


class CpuError(RuntimeError):
    """The run failed (a lane emulator error: divergent lanes, a missed
    barrier, an out-of-bounds access)."""


class _Buffer(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p), ("rank", ctypes.c_int),
                ("sizes", ctypes.POINTER(ctypes.c_longlong)),
                ("strides", ctypes.POINTER(ctypes.c_longlong))]


class Kernel:
    """A request compiled for the CPU (host or a chip's lanes)."""

    def __init__(self, request, target="host", options=None):
        lib = _library()
        self.key, self.request = complete_request(request)
        self.target = target
        out = ctypes.c_void_p()
        diag = ctypes.c_void_p()
        code = lib.fmha_cpu_compile_options(json.dumps(request).encode(), target.encode(),
                                            options_json(options),
                                            ctypes.byref(out), ctypes.byref(diag))
        if code != 0:
            message = _take(lib, diag) or "compile failed"
            raise (UnsupportedRequest if code == 2 else CompileError)(message)
        self._handle = out
        self._lib = lib
        self.operands = [o["name"] for o in json.loads(lib.fmha_cpu_kernel_operands(out))]

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.value:
            self._lib.fmha_cpu_kernel_free(handle)
            self._handle = None

    def __call__(self, tensors, bufs=None):
        """Runs on `tensors` (every operand in self.operands, by name; `bufs`:
        Buffers already read, by operand name)."""
        bufs = _abi.describe_all(self.operands, tensors, bufs)
        _abi.check_buffers(self.request, bufs, "cpu")
        keep = []
        structs = (_Buffer * len(self.operands))()
        for i, name in enumerate(self.operands):
            b = bufs[name]
            sizes = (ctypes.c_longlong * max(1, len(b.shape)))(*b.shape)
            strides = (ctypes.c_longlong * max(1, len(b.strides)))(*b.strides)
            keep += [sizes, strides]
            structs[i] = _Buffer(name.encode(), ctypes.c_void_p(b.ptr), len(b.shape),
                                 sizes, strides)
        diag = ctypes.c_void_p()
        code = self._lib.fmha_cpu_run(self._handle, structs, len(self.operands),
                                      ctypes.byref(diag))
        if code != 0:
            message = _take(self._lib, diag) or "run failed"
            raise (ValueError if code == 2 else CpuError)(message)


_kernels = {}


def compile(request, target="host", options=None):  # noqa: A001 (the module's verb)
    """The CPU kernel of `request` for `target` with the lowering's choices
    in `options` (fmha_mlir.options_json), compiled once per kernel key."""
    key = (complete_request(request)[0], target, options_json(options))
    if key not in _kernels:
        _kernels[key] = Kernel(request, target, options)
    return _kernels[key]
