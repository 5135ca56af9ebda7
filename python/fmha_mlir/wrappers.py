"""A FlashInfer-style plan / run wrapper over fmha_mlir's kernels.

    w = fmha_mlir.wrappers.BatchPrefillWithPagedKVCacheWrapper(chip="sm_90a")
    w.plan(qo_indptr, kv_indptr, kv_indices, kv_last_page_len,
           num_qo_heads, num_kv_heads, head_dim, page_size, causal=True)
    out, lse = w.run(q, k_cache, v_cache, k_descale, v_descale, q_descale)

plan() takes the page table (CSR, FlashInfer's names) and the static shape,
finds the kernel (in `prebuilt`, a directory of fmha-compile output, or by
compiling it: one compile per static request, KernelCache) and keeps the
lengths; run() launches it on torch's current stream (fmha_mlir.cuda, or
fmha_mlir.hip for a gfx942 / gfx950 chip), or runs it on this CPU for numpy
arrays and CPU torch tensors (fmha_mlir.cpu), with
the KV cache in NHD layout [pages, page_size, num_kv_heads, head_dim] and the
descales one per (page, KV head). A request the kernels do not take raises
NotImplementedError (fmha_mlir.UnsupportedRequest), so a caller can fall
back.
"""
import math

from . import KernelCache, UnsupportedRequest, _abi, load_prebuilt, static_key


def _dtype_name(t):
    name = str(t).replace("torch.", "")
    if name in _abi.TORCH_DTYPES.values():
        return name
    if name not in _abi.TORCH_DTYPES:
        raise UnsupportedRequest(f"dtype {t} is not one the kernels take")
    return _abi.TORCH_DTYPES[name]


class BatchPrefillWithPagedKVCacheWrapper:
    def __init__(self, chip="sm_90a", prebuilt=None, cache=None, cpu_target="host"):
        self.chip = chip
        self.cpu_target = cpu_target
        self.prebuilt = load_prebuilt(prebuilt) if prebuilt else {}
        self.cache = cache or KernelCache()
        self.request = None

    def plan(self, qo_indptr, kv_indptr, kv_indices, kv_last_page_len,
             num_qo_heads, num_kv_heads, head_dim, page_size, causal=True,
             window_left=-1, q_dtype="float8_e4m3fn", kv_dtype="float8_e4m3fn",
             out_dtype="bfloat16", sm_scale=None, return_lse=True, launch=False):
        """launch=True loads the kernel on the GPU now (else the first GPU
        run() does)."""
        def ints(x):
            return [int(v) for v in (x.tolist() if hasattr(x, "tolist") else x)]
        qo, kvp, last = ints(qo_indptr), ints(kv_indptr), ints(kv_last_page_len)
        if len(qo) != len(kvp) or len(last) != len(qo) - 1:
            raise ValueError("qo_indptr and kv_indptr need batch + 1 entries, "
                             "kv_last_page_len batch")
        qo_lens = [b - a for a, b in zip(qo, qo[1:])]
        kv_lens = [(n - 1) * page_size + l if n > 0 else 0
                   for n, l in zip([b - a for a, b in zip(kvp, kvp[1:])], last)]
        mask = "causal" if causal else "none"
        if window_left >= 0:
            mask = f"window({window_left},{0 if causal else -1})"
        # Complete, in complete_request's names: keyed without the library.
        req = {"qo_lens": qo_lens, "kv_lens": kv_lens, "num_qo_heads": int(num_qo_heads),
               "num_kv_heads": int(num_kv_heads), "head_dim": int(head_dim),
               "head_dim_v": int(head_dim), "page_size": int(page_size),
               "page_table": "csr", "kv_layout": "nhd", "quant": "kv_blockscale",
               "mask": mask, "q_dtype": _dtype_name(q_dtype),
               "kv_dtype": _dtype_name(kv_dtype), "out_dtype": _dtype_name(out_dtype),
               "sm_scale": float(1.0 / math.sqrt(int(head_dim)) if sm_scale is None else sm_scale),
               "soft_cap": 0.0, "lse": bool(return_lse)}
        self.kernel = self.prebuilt.get(static_key(req, self.chip))
        if self.kernel is None:
            self.kernel = self.cache.get(req, chip=self.chip)
        self.launcher = None
        if launch:
            self._load()
        self.request = req
        self.tables = dict(qo_indptr=qo_indptr, kv_indptr=kv_indptr,
                           kv_page_indices=kv_indices, kv_last_page_len=kv_last_page_len)
        return self

    def _load(self):
        if self.chip.startswith("gfx"):
            from . import hip
            self.launcher = hip.Launcher(self.kernel)
        else:
            from . import cuda
            self.launcher = cuda.Launcher(self.kernel)

    def run(self, q, k_cache, v_cache, k_descale, v_descale, q_descale=None,
            out=None, lse=None):
        """Runs on torch GPU tensors (the planned chip), or on numpy arrays /
        CPU torch tensors on this CPU (fmha_mlir.cpu, cpu_target)."""
        if self.request is None:
            raise RuntimeError("plan() first")
        req = self.request
        on_cpu = _abi.describe("q", q).device == "cpu"
        if out is None:
            out = _empty(q, (q.shape[0], req["num_qo_heads"], req["head_dim"]), req["out_dtype"])
        if lse is None and req["lse"]:
            lse = _empty(q, (q.shape[0], req["num_qo_heads"]), "f32")
        if q_descale is None:
            q_descale = _empty(q, (1,), "f32")
            q_descale[0] = 1.0
        tensors = dict(self.tables, q=q, k_cache=k_cache, v_cache=v_cache,
                       q_descale=q_descale, k_descale=k_descale, v_descale=v_descale,
                       out=out)
        if req["lse"]:
            tensors["lse"] = lse
        if on_cpu:
            from . import cpu
            cpu.compile(req, self.cpu_target)(tensors)
        else:
            if self.launcher is None:
                self._load()
            self.launcher(tensors, req["qo_lens"])
        return (out, lse) if req["lse"] else out


def _empty(like, shape, elem):
    if hasattr(like, "data_ptr"):
        import torch
        name = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}[elem]
        return torch.empty(shape, dtype=getattr(torch, name), device=like.device)
    import numpy as np
    return np.empty(shape, dtype={"bf16": "uint16", "f16": "float16", "f32": "float32"}[elem])
