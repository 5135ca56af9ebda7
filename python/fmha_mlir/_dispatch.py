"""Where a call runs, decided by the tensors: numpy arrays and CPU torch
tensors on this CPU (fmha_mlir.cpu: the host JIT, or a chip's lanes in the
lane emulator), torch CUDA tensors on the GPU torch has them on: an NVIDIA
H100 / H200 through the CUDA driver (chip sm_90a), an AMD MI300 / MI355
(gfx942 / gfx950, torch on ROCm) through HIP. A kernel is compiled (or
taken from `prebuilt`) once per kernel key and chip, and loaded once.
"""
from . import _STATIC, KernelCache, UnsupportedRequest, _abi, static_key

_CACHE = KernelCache()
_LAUNCHERS = {}


def device_chip(tensor):
    """The chip of the GPU `tensor` lives on, as the compiler names it."""
    import torch
    if getattr(torch.version, "hip", None):
        arch = torch.cuda.get_device_properties(tensor.device).gcnArchName.split(":")[0]
        if arch in ("gfx942", "gfx950"):
            return arch
        raise UnsupportedRequest(f"{arch}: the AMD kernels are for gfx942 and gfx950")
    major, minor = torch.cuda.get_device_capability(tensor.device)
    if (major, minor) == (9, 0):
        return "sm_90a"
    raise UnsupportedRequest(f"sm_{major}{minor}: the NVIDIA kernels are for sm_90 "
                             "(H100, H200)")


def launch(request, tensors, max_qo_len, chip=None, prebuilt=None, cpu_target="host",
           bufs=None):
    """Runs `request`'s kernel on `tensors` (operand name -> tensor; `bufs`:
    Buffers already read, by operand name); the grid from `max_qo_len` and
    qo_indptr's size, so nothing is read back from the device (the launch
    can be captured in a CUDA graph). The first kernel found for a key and
    chip (in `prebuilt`, else compiled) serves every later call."""
    bufs = dict(bufs or {})
    if "q" not in bufs:
        bufs["q"] = _abi.describe("q", tensors["q"])
    if bufs["q"].device == "cpu":
        from . import cpu
        cpu.compile(request, cpu_target)(tensors, bufs)
        return None
    chip = chip or device_chip(tensors["q"])
    # Each GPU gets its own loaded module: the key holds the tensors' device.
    index = getattr(getattr(tensors["q"], "device", None), "index", None)
    # A complete request in canonical names (every static field) is looked
    # up without a string key; any other goes through static_key.
    fields = tuple(request.get(k) for k in _STATIC)
    fast = ((fields, bool(request.get("runtime_scalars", False)), chip, index)
            if None not in fields and _canonical(request) else None)
    with _on_device(index):
        launcher = _LAUNCHERS.get(fast) if fast else None
        if launcher is None:
            key = (static_key(request, chip), index)
            launcher = _LAUNCHERS.get(key)
            if launcher is None:
                launcher = _LAUNCHERS[key] = _load(request, chip, key[0], prebuilt)
            if fast:
                _LAUNCHERS[fast] = launcher
        launcher(tensors, max_qo_len=max_qo_len, bufs=bufs)
    return launcher


def _canonical(request):
    """Whether the request's names are complete_request's (so the fast key
    of two spellings of one kernel cannot differ)."""
    mask = request.get("mask", "")
    return (request.get("page_table") in ("csr", "block_table") and
            request.get("kv_layout") in ("nhd", "hnd") and
            (mask in ("none", "causal") or mask.startswith("window(")))


class _on_device:
    """torch.cuda.device(index) for the GPU the tensors are on, so a module
    loads into that GPU's context and launches on its current stream."""

    def __init__(self, index):
        self.index = index
        self.ctx = None

    def __enter__(self):
        if self.index is not None:
            import torch
            self.ctx = torch.cuda.device(self.index)
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)


def _load(request, chip, key, prebuilt):
    kernel = (prebuilt or {}).get(key)
    if kernel is None:
        try:
            kernel = _CACHE.get(request, chip)
        except OSError as e:
            # Ahead of time only (no compiler here): not a kernel we have.
            raise UnsupportedRequest(f"no prebuilt kernel for this request on {chip}, "
                                     f"and no compiler to build one ({e})") from None
    if chip.startswith("gfx"):
        from . import hip
        return hip.Launcher(kernel)
    from . import cuda
    return cuda.Launcher(kernel)
