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
import json
import os
import pathlib

__all__ = ["compile", "Kernel", "KernelCache", "load_prebuilt", "version",
           "CompileError", "UnsupportedRequest", "static_key"]


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
            lib.fmha_kernel_binary.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
            lib.fmha_kernel_binary.restype = ctypes.c_void_p
            lib.fmha_kernel_manifest.argtypes = [ctypes.c_void_p]
            lib.fmha_kernel_manifest.restype = ctypes.c_char_p
            lib.fmha_kernel_free.argtypes = [ctypes.c_void_p]
            lib.fmha_free.argtypes = [ctypes.c_void_p]
            _lib = lib
            return lib
    raise OSError("libFmhaMLIR.so not found (set FMHA_MLIR_LIB); tried " + ", ".join(tried))


def version():
    """The library's version ("0.4.0")."""
    return _library().fmha_version().decode()


def compile(request, chip="gfx950", format="bin"):  # noqa: A001 (the API's name)
    """Compiles `request` (a dict with the manifest's request fields; lengths
    required) for `chip` in `format` (bin, isa, llvm, mlir)."""
    lib = _library()
    out = ctypes.c_void_p()
    diag = ctypes.c_void_p()
    code = lib.fmha_compile(json.dumps(request).encode(), chip.encode(), format.encode(),
                            ctypes.byref(out), ctypes.byref(diag))
    if code != 0:
        message = ctypes.string_at(diag.value).decode() if diag.value else "compile failed"
        lib.fmha_free(diag)
        raise (UnsupportedRequest if code == 2 else CompileError)(message)
    try:
        size = ctypes.c_size_t()
        ptr = lib.fmha_kernel_binary(out, ctypes.byref(size))
        binary = ctypes.string_at(ptr, size.value)
        text = lib.fmha_kernel_manifest(out).decode()
    finally:
        lib.fmha_kernel_free(out)
    return Kernel(binary, json.loads(text) if text else None, chip, format)


# The static part of a request (what the kernel depends on), with the C++
# Request's defaults. The lengths are not in it: the kernel reads them from
# the page table at run time and the grid is the manifest's formula.
_STATIC_DEFAULTS = {
    "num_qo_heads": 32, "num_kv_heads": 8, "head_dim": 128, "head_dim_v": 0,
    "page_size": 1024, "page_table": "csr", "kv_layout": "nhd",
    "quant": "kv_blockscale", "mask": "causal", "q_dtype": "f8E4M3FN",
    "kv_dtype": "f8E4M3FN", "out_dtype": "bf16", "sm_scale": 0.0,
    "soft_cap": 0.0, "lse": True,
}


def static_key(request, chip, fmt="bin"):
    """The cache key of a request (a user's dict or a manifest's "request"):
    its static fields with the defaults filled in (head_dim_v 0 is head_dim,
    sm_scale 0 is 1/sqrt(head_dim)), the chip and the format."""
    static = {k: request.get(k, d) for k, d in _STATIC_DEFAULTS.items()}
    if not static["head_dim_v"]:
        static["head_dim_v"] = static["head_dim"]
    if not static["sm_scale"]:
        static["sm_scale"] = 1.0 / float(static["head_dim"]) ** 0.5
    static["sm_scale"] = round(float(static["sm_scale"]), 9)
    static["soft_cap"] = float(static["soft_cap"])
    if static["page_table"] == "block":
        static["page_table"] = "block_table"
    return json.dumps([static, chip, fmt], sort_keys=True)


class KernelCache:
    """Compiles each static request once."""

    def __init__(self):
        self._kernels = {}
        self.compiles = 0

    def get(self, request, chip="gfx950", format="bin"):  # noqa: A002
        key = static_key(request, chip, format)
        if key not in self._kernels:
            self._kernels[key] = compile(request, chip, format)
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
