"""fmha_mlir: fmha-mlir's FP8 paged-attention prefill kernels from Python.

Pure Python on ctypes over libFmhaMLIR.so's C interface (fmha/API/CAPI.h):
no compiled extension, so it works with whatever torch or numpy the user
has.

    import fmha_mlir
    k = fmha_mlir.compile({"qo_lens": [100], "kv_lens": [1500]}, chip="sm_90")
    k.binary      # PTX (sm_90) or an HSACO code object (gfx942, gfx950)
    k.manifest    # the kernel's ABI and config (docs/ABI.md), a dict

    cache = fmha_mlir.KernelCache()          # one compile per static request
    k = cache.get(request, chip="gfx942")    # lengths do not enter the key

    kernels = fmha_mlir.load_prebuilt("dir")  # NAME.json + NAME.ptx|.hsaco

The library is found through $FMHA_MLIR_LIB, else next to the package in a
build tree (build/lib/API) or an install prefix (lib/). A request the
compiler refuses raises UnsupportedRequest (a NotImplementedError, so a
caller can fall back, and a ValueError).
"""
import ctypes
import functools
import json
import os
import pathlib

__all__ = ["compile", "Kernel", "KernelCache", "load_prebuilt", "version",
           "CompileError", "UnsupportedRequest", "static_key", "complete_request"]


class CompileError(RuntimeError):
    """The compiler failed on a request it should take (exit code 3)."""


class UnsupportedRequest(NotImplementedError, ValueError):
    """The request or target is invalid or not supported (exit code 2)."""


class Kernel:
    """A compiled kernel: its bytes, its manifest and the target."""

    def __init__(self, binary, manifest, chip, fmt):
        self.binary = binary
        self.manifest = manifest
        self.chip = chip
        self.format = fmt

    @property
    def symbol(self):
        return self.manifest.get("kernel") if self.manifest else None

    def __repr__(self):
        return (f"Kernel(chip={self.chip!r}, format={self.format!r}, "
                f"symbol={self.symbol!r}, {len(self.binary)} bytes)")


def _candidates():
    env = os.environ.get("FMHA_MLIR_LIB")
    if env:
        yield pathlib.Path(env)
    here = pathlib.Path(__file__).resolve().parent
    for up in [here.parent.parent, here.parent]:
        yield up / "build" / "lib" / "API" / "libFmhaMLIR.so"
        yield up / "lib" / "libFmhaMLIR.so"


_lib = None


def _library():
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.exists():
            lib = ctypes.CDLL(str(path))
            lib.fmha_version.restype = ctypes.c_char_p
            lib.fmha_compile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(ctypes.c_void_p)]
            lib.fmha_compile.restype = ctypes.c_int
            lib.fmha_compile_options.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                 ctypes.c_char_p, ctypes.c_char_p,
                                                 ctypes.POINTER(ctypes.c_void_p),
                                                 ctypes.POINTER(ctypes.c_void_p)]
            lib.fmha_compile_options.restype = ctypes.c_int
            lib.fmha_kernel_binary.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
            lib.fmha_kernel_binary.restype = ctypes.c_void_p
            lib.fmha_kernel_manifest.argtypes = [ctypes.c_void_p]
            lib.fmha_kernel_manifest.restype = ctypes.c_char_p
            lib.fmha_kernel_free.argtypes = [ctypes.c_void_p]
            lib.fmha_free.argtypes = [ctypes.c_void_p]
            lib.fmha_request_complete.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                                  ctypes.POINTER(ctypes.c_void_p)]
            lib.fmha_request_complete.restype = ctypes.c_int
            lib.fmha_cpu_compile.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_void_p),
                                             ctypes.POINTER(ctypes.c_void_p)]
            lib.fmha_cpu_compile.restype = ctypes.c_int
            lib.fmha_cpu_compile_options.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                     ctypes.c_char_p,
                                                     ctypes.POINTER(ctypes.c_void_p),
                                                     ctypes.POINTER(ctypes.c_void_p)]
            lib.fmha_cpu_compile_options.restype = ctypes.c_int
            lib.fmha_cpu_kernel_operands.argtypes = [ctypes.c_void_p]
            lib.fmha_cpu_kernel_operands.restype = ctypes.c_char_p
            lib.fmha_cpu_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.POINTER(ctypes.c_void_p)]
            lib.fmha_cpu_run.restype = ctypes.c_int
            lib.fmha_cpu_kernel_free.argtypes = [ctypes.c_void_p]
            _lib = lib
            return lib
    raise OSError("libFmhaMLIR.so not found (set FMHA_MLIR_LIB); tried " + ", ".join(tried))


def version():
    """The library's version ("0.4.0")."""
    return _library().fmha_version().decode()


def options_json(options):
    """The lowering options (a dict, or None for the compiler's choices) as
    the C interface takes them (fmha_compile_options): keys folds, peel,
    pipeline, warp_specialize, transpose_v, ping_pong (bool), kv_stages,
    kv_unroll, warps, block_n (int), lds_loads, lds_swizzle, stage_descales, tma (bool
    or None: the chip's choice),
    vd_route (str). Keys set to None are left out (the compiler's choice),
    and no options at all is None, so that a kernel has one cache key."""
    kept = {k: v for k, v in (options or {}).items() if v is not None}
    return json.dumps(kept, sort_keys=True).encode() if kept else None


def compile(request, chip="gfx950", format="bin", options=None):  # noqa: A001 (the API's name)
    """Compiles `request` (a dict with the manifest's request fields; lengths
    required) for `chip` in `format` (bin, isa, llvm, mlir), with the
    lowering's choices in `options` (options_json; None: the compiler's)."""
    lib = _library()
    out = ctypes.c_void_p()
    diag = ctypes.c_void_p()
    code = lib.fmha_compile_options(json.dumps(request).encode(), chip.encode(),
                                    format.encode(), options_json(options),
                                    ctypes.byref(out), ctypes.byref(diag))
    if code != 0:
        message = _take(lib, diag) or "compile failed"
        raise (UnsupportedRequest if code == 2 else CompileError)(message)
    try:
        size = ctypes.c_size_t()
        ptr = lib.fmha_kernel_binary(out, ctypes.byref(size))
        binary = ctypes.string_at(ptr, size.value)
        text = lib.fmha_kernel_manifest(out).decode()
    finally:
        lib.fmha_kernel_free(out)
    return Kernel(binary, json.loads(text) if text else None, chip, format)


def complete_request(request):
    """(kernel key, completed request) of `request` (a user's dict or a
    manifest's "request"; lengths may be left out): the key is the static
    part, what a compiled kernel depends on (heads, dims, page size, table,
    layout, quant, dtypes, mask, sm_scale, soft cap, lse); the completed
    request has every field with the C++ defaults resolved, as a manifest's
    "request" does. Raises UnsupportedRequest for an invalid request."""
    key, completed = _complete(json.dumps(request, sort_keys=True))
    return key, json.loads(completed)


@functools.lru_cache(maxsize=4096)
def _complete(text):
    lib = _library()
    out = ctypes.c_void_p()
    diag = ctypes.c_void_p()
    code = lib.fmha_request_complete(text.encode(), ctypes.byref(out),
                                     ctypes.byref(diag))
    if code != 0:
        raise UnsupportedRequest(_take(lib, diag) or "invalid request")
    done = json.loads(_take(lib, out))
    return done["kernel_key"], json.dumps(done["request"])


def _take(lib, ptr):
    """The C string at `ptr` (freed), or None."""
    if not ptr.value:
        return None
    text = ctypes.string_at(ptr.value).decode()
    lib.fmha_free(ptr)
    return text


# The static fields of a request: what a compiled kernel depends on (the
# C++ Request::kernelKey). The lengths are not among them: the kernel reads
# them from the page table at run time and the grid is the manifest's
# formula.
_STATIC = ("num_qo_heads", "num_kv_heads", "head_dim", "head_dim_v", "page_size",
           "page_table", "kv_layout", "quant", "mask", "q_dtype", "kv_dtype", "out_dtype",
           "sm_scale", "soft_cap", "lse")


def static_key(request, chip, fmt="bin"):
    """The cache key of a request for `chip` and a format: the request's
    static fields, completed. A complete request (a manifest's "request", or
    one with every static field in the names complete_request gives, as the
    aiter entry point builds) is keyed as it is, without the library, so
    prebuilt kernels are found where libFmhaMLIR.so is not installed; any
    other is completed by the library first."""
    if all(k in request for k in _STATIC) and request["head_dim_v"] and request["sm_scale"]:
        done = request
    else:
        done = complete_request(request)[1]
    static = {k: done[k] for k in _STATIC}
    for k in ("sm_scale", "soft_cap"):
        static[k] = float(static[k])
    static["lse"] = bool(static["lse"])
    # A kernel that reads sm_scale, the window bounds and the soft cap at
    # run time serves every value of them (whether there is a cap is static).
    static["runtime_scalars"] = bool(done.get("runtime_scalars", False))
    # A kernel that takes K and V strides at run time is another kernel.
    static["kv_strided"] = bool(done.get("kv_strided", False))
    if static["runtime_scalars"]:
        static["sm_scale"] = "rt"
        if static["mask"].startswith("window"):
            static["mask"] = "window(rt)"
        if static["soft_cap"] > 0:
            static["soft_cap"] = "rt"
    return json.dumps([static, chip, fmt], sort_keys=True)


class KernelCache:
    """Compiles each static request once."""

    def __init__(self):
        self._kernels = {}
        self.compiles = 0

    def get(self, request, chip="gfx950", format="bin", options=None):  # noqa: A002
        key = (static_key(request, chip, format), options_json(options))
        if key not in self._kernels:
            self._kernels[key] = compile(request, chip, format, options)
            self.compiles += 1
        return self._kernels[key]

    def __len__(self):
        return len(self._kernels)


def load_prebuilt(directory):
    """Kernels fmha-compile wrote ahead of time: every NAME.json with its
    NAME.ptx or NAME.hsaco, keyed by static_key of its request and chip."""
    kernels = {}
    for manifest_path in sorted(pathlib.Path(directory).glob("*.json")):
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format") != "fmha-kernel-manifest/1":
            continue
        binary_path = None
        for ext in (".ptx", ".hsaco"):
            p = manifest_path.with_suffix(ext)
            if p.exists():
                binary_path = p
        if binary_path is None:
            raise FileNotFoundError(f"{manifest_path}: no {manifest_path.stem}.ptx or .hsaco beside it")
        kernel = Kernel(binary_path.read_bytes(), manifest, manifest["chip"], "bin")
        kernels[static_key(manifest["request"], manifest["chip"])] = kernel
    return kernels
