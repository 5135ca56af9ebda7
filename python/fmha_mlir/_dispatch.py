"""Where a call runs, decided by the tensors: numpy arrays and CPU torch
tensors on this CPU (fmha_mlir.cpu: the host JIT, or a chip's lanes in the
lane emulator), torch CUDA tensors on the GPU torch has them on: an NVIDIA
H100 / H200 through the CUDA driver (chip sm_90a), an AMD MI300 / MI355
(gfx942 / gfx950, torch on ROCm) through HIP. A kernel is compiled (or
taken from `prebuilt`) once per kernel key and chip, and loaded once.
"""
from . import KernelCache, UnsupportedRequest, _abi, static_key

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


def launch(request, tensors, max_qo_len, chip=None, prebuilt=None, cpu_target="host"):
    """Runs `request`'s kernel on `tensors` (operand name -> tensor); the grid
    from `max_qo_len` and qo_indptr's size, so nothing is read back from the
    device (the launch can be captured in a CUDA graph)."""
    where = _abi.describe("q", tensors["q"]).device
    if where == "cpu":
        from . import cpu
        cpu.compile(request, cpu_target)(tensors)
        return None
    chip = chip or device_chip(tensors["q"])
    key = static_key(request, chip)
    launcher = _LAUNCHERS.get(key)
    if launcher is None:
        kernel = (prebuilt or {}).get(key) or _CACHE.get(request, chip)
        if chip.startswith("gfx"):
            from . import hip
            launcher = hip.Launcher(kernel)
        else:
            from . import cuda
            launcher = cuda.Launcher(kernel)
        _LAUNCHERS[key] = launcher
    launcher(tensors, max_qo_len=max_qo_len)
    return launcher
