"""An entry point shaped like aiter's `mha_batch_prefill_func`, so a caller
of aiter's FP8 batch prefill can switch by changing an import:

    from fmha_mlir.aiter import mha_batch_prefill_func
    out = mha_batch_prefill_func(q, k_cache, v_cache, cu_seqlens_q, kv_indptr,
                                 kv_page_indices, max_seqlen_q, max_seqlen_k,
                                 causal=True, q_descale=qd, k_descale=kd,
                                 v_descale=vd, kv_last_page_lens=last)

aiter's positional arguments and keywords, in aiter's order; then its FP8
and paged-cache keywords (q_descale, k_descale, v_descale,
kv_last_page_lens, block_table, seqlen_k). The caches are aiter's linear
layout: [num_pages, page_size, Hkv, D] (or [total_k, Hkv, D] for pages of
one token; kv_layout="hnd" takes [num_pages, Hkv, page_size, D]), dense or
views with any page, token and head strides (k = kv[:, 0], v = kv[:, 1] of
one [num_pages, 2, page_size, Hkv, D] cache: the kernel with run-time
strides, kv_strided, is picked; docs/ABI.md gives the stride rule). The
descales: [num_pages, Hkv] views (aiter's interleaved [num_pages, Hkv, 2]
buffer gives kv[..., 0] and kv[..., 1]) for per-page scales, one element
for per-tensor, none for 16-bit caches. The page table is CSR (kv_indptr,
kv_page_indices, kv_last_page_lens) or, with block_table and seqlen_k, a
block table.

The tensors decide where it runs (fmha_mlir._dispatch): torch CUDA tensors
on an H100 / H200 or, with torch on ROCm, a gfx942 / gfx950; numpy arrays or
CPU torch tensors on this CPU (numpy has no fp8 or bf16: pass their codes as
uint8 / uint16 with q_dtype / kv_dtype naming them). Nothing is read back from
the device, so the call can be captured in a CUDA graph (its grid is
max_seqlen_q's and the batch's: capture with the largest max_seqlen_q the
graph will see). By default the kernel reads softmax_scale, the window
bounds and logits_soft_cap at run time (runtime_scalars=True), so one kernel serves every layer
of a model with the same shapes. Returns out, or (out, lse) with return_lse, lse as
flash-attention's varlen functions give it: [Hq, total_q] (a transposed view
of the kernel's [total_q, Hq]). What the kernels do not do (dropout, ALiBi,
attention probabilities, and whatever the compiler refuses for the chip)
raises NotImplementedError (fmha_mlir.UnsupportedRequest) before anything
runs, so a caller can fall back.
"""
import math
import struct

from . import UnsupportedRequest, _abi, _dispatch

_NUMPY_DEFAULT = {"uint8": "f8E4M3FN", "uint16": "bf16", "float16": "f16", "float32": "f32"}
_TORCH_NAME = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}
_NUMPY_NAME = {"bf16": "uint16", "f16": "float16", "f32": "float32"}


def _elem(name, b, given):
    """The request's element type of a buffer (`given` overrides)."""
    if given:
        return given
    if b.dtype in _abi.TORCH_DTYPES:
        return _abi.TORCH_DTYPES[b.dtype]
    if b.dtype in _NUMPY_DEFAULT:
        return _NUMPY_DEFAULT[b.dtype]
    raise UnsupportedRequest(f"{name}: dtype {b.dtype} is not one the kernels take")


def _is_torch(x):
    return hasattr(x, "data_ptr") and hasattr(x, "element_size")


def _empty(like, shape, elem):
    if _is_torch(like):
        import torch
        return torch.empty(shape, dtype=getattr(torch, _TORCH_NAME[elem]), device=like.device)
    import numpy as np
    return np.empty(shape, dtype=_NUMPY_NAME[elem])


def _ones(like, n):
    if _is_torch(like):
        import torch
        return torch.ones(n, dtype=torch.float32, device=like.device)
    import numpy as np
    return np.ones(n, dtype=np.float32)


def _unsqueeze1(x):
    return x.unsqueeze(1) if _is_torch(x) else x[:, None]


def _transposed(x):
    return x.t() if _is_torch(x) else x.T


def mha_batch_prefill_func(q, k, v, cu_seqlens_q, kv_indptr, kv_page_indices,
                           max_seqlen_q, max_seqlen_k, dropout_p=0.0, softmax_scale=None,
                           logits_soft_cap=0.0, causal=False, window_size=(-1, -1),
                           alibi_slopes=None, deterministic=False, return_lse=False,
                           return_attn_probs=False, out=None, q_descale=None, k_descale=None,
                           v_descale=None, kv_last_page_lens=None, block_table=None,
                           seqlen_k=None, *, kv_layout="nhd", q_dtype=None, kv_dtype=None,
                           out_dtype=None, runtime_scalars=True, chip=None, prebuilt=None,
                           cpu_target="host"):
    """aiter's mha_batch_prefill_func on fmha-mlir's kernels (module doc).
    Extra keywords: kv_layout (nhd | hnd), q_dtype / kv_dtype / out_dtype
    (the request's names, e.g. "f8E4M3FNUZ": for numpy inputs, or to
    override), runtime_scalars (default True: the kernel reads softmax_scale,
    the window bounds and the soft cap at run time, so one kernel serves every layer;
    False compiles them in), chip (the GPU's chip is detected), prebuilt (kernels from
    fmha_mlir.load_prebuilt), cpu_target (host, or a chip for the lane
    emulator)."""
    del deterministic  # the kernels are deterministic
    if dropout_p:
        raise UnsupportedRequest("dropout is not supported (inference kernels)")
    if alibi_slopes is not None:
        raise UnsupportedRequest("ALiBi slopes are not supported")
    if return_attn_probs:
        raise UnsupportedRequest("returning attention probabilities is not supported")
    if kv_layout not in ("nhd", "hnd"):
        raise ValueError(f"kv_layout must be nhd or hnd, not {kv_layout!r}")
    qb = _abi.describe("q", q)
    if len(qb.shape) != 3:
        raise ValueError(f"q: shape {list(qb.shape)}, must be [total_q, Hq, D]")
    if len(_abi.describe("k", k).shape) == 3:
        if kv_layout != "nhd":
            raise ValueError("k: [total_k, Hkv, D] is the NHD layout of pages of one token")
        k, v = _unsqueeze1(k), _unsqueeze1(v)
    kb, vb = _abi.describe("k", k), _abi.describe("v", v)
    if len(kb.shape) != 4 or len(vb.shape) != 4:
        raise ValueError(f"k, v: shapes {list(kb.shape)}, {list(vb.shape)}, must be "
                         "[num_pages, page_size, Hkv, D] (nhd) or [num_pages, Hkv, "
                         "page_size, D] (hnd)")
    page_size, hkv = (kb.shape[1], kb.shape[2]) if kv_layout == "nhd" else (kb.shape[2], kb.shape[1])
    total_q, hq, d = qb.shape
    dv = vb.shape[3]
    qt, kvt = _elem("q", qb, q_dtype), _elem("k", kb, kv_dtype)
    if _elem("v", vb, kv_dtype) != kvt:
        raise ValueError("k and v must have the same dtype")
    fp8 = kvt.startswith("f8")
    if not fp8:
        if any(x is not None for x in (k_descale, v_descale)):
            raise ValueError("k_descale / v_descale are for fp8 caches")
        quant = "none"
    elif k_descale is None or v_descale is None:
        raise ValueError("an fp8 cache needs k_descale and v_descale")
    else:
        quant = "kv_blockscale" if len(k_descale.shape) == 2 else "per_tensor"
    if out is not None:
        ot = _elem("out", _abi.describe("out", out), out_dtype)
    else:
        ot = out_dtype or ("bf16" if qt.startswith("f8") else qt)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(d)
    softmax_scale = float(softmax_scale)
    if not (softmax_scale > 0.0 and math.isfinite(softmax_scale)):
        raise ValueError(f"softmax_scale must be finite and > 0, got {softmax_scale}")
    # A bound of max_seqlen_k or more cuts nothing: unbounded (-1), which also
    # keeps the kernel's i32 key positions from overflowing.
    left, right = (-1, -1) if window_size is None else (int(w) for w in window_size)
    if left < -1 or right < -1:
        raise ValueError(f"window_size bounds must be >= -1, got {tuple(window_size)}")
    left = -1 if left >= int(max_seqlen_k) else left
    right = -1 if right >= int(max_seqlen_k) else right
    if causal:
        right = 0
    if (left, right) == (-1, -1):
        mask = "none"
    elif (left, right) == (-1, 0):
        mask = "causal"
    else:
        mask = f"window({left},{right})"
    if block_table is not None:
        if seqlen_k is None:
            raise ValueError("block_table needs seqlen_k (the sequences' KV lengths)")
        table = "block_table"
    else:
        table = "csr"
        if kv_last_page_lens is None:
            if page_size != 1:
                raise ValueError("kv_last_page_lens is needed for pages of more than one token")
            kv_last_page_lens = _ones_int(kv_indptr)
    batch = len(cu_seqlens_q) - 1
    # The compile request, complete in complete_request's names (so its key
    # needs no library call): its lengths only give the manifest a grid (one
    # kernel serves any lengths; the launch reads them from the tensors).
    request = {"qo_lens": [max(1, int(max_seqlen_q))], "kv_lens": [max(1, int(max_seqlen_k))],
               "num_qo_heads": hq, "num_kv_heads": hkv, "head_dim": d, "head_dim_v": dv,
               "page_size": page_size, "page_table": table, "kv_layout": kv_layout,
               "quant": quant, "mask": mask, "q_dtype": qt, "kv_dtype": kvt,
               "out_dtype": ot, "sm_scale": softmax_scale,
               "soft_cap": float(logits_soft_cap or 0.0), "lse": bool(return_lse),
               "runtime_scalars": bool(runtime_scalars)}
    # K / V that are views (k = kv[:, 0] of a combined (N_pages, 2, P, Hkv, D)
    # cache) take the kernel with run-time strides; dense ones the dense one.
    kb, vb = _abi.describe("k", k), _abi.describe("v", v)
    if not (_abi.is_dense(kb.shape, kb.strides) and _abi.is_dense(vb.shape, vb.strides)):
        request["kv_strided"] = True
    if out is None:
        out = _empty(q, (total_q, hq, dv), ot)
    lse = _empty(q, (total_q, hq), "f32") if return_lse else None
    tensors = {"q": q, "k_cache": k, "v_cache": v, "qo_indptr": cu_seqlens_q, "out": out,
               "q_descale": q_descale if q_descale is not None else _ones(q, 1)}
    if fp8:
        tensors.update(k_descale=k_descale, v_descale=v_descale)
    if runtime_scalars:
        tensors["runtime_scalars"] = _scalars(q, request["sm_scale"], mask,
                                              request["soft_cap"])
    if table == "csr":
        tensors.update(kv_indptr=kv_indptr, kv_page_indices=kv_page_indices,
                       kv_last_page_len=kv_last_page_lens)
    else:
        tensors.update(block_table=block_table, kv_seqlen=seqlen_k)
    if lse is not None:
        tensors["lse"] = lse
    if batch > 0 and total_q > 0:
        _dispatch.launch(request, tensors, int(max_seqlen_q), chip=chip, prebuilt=prebuilt,
                         cpu_target=cpu_target, bufs={"q": qb, "k_cache": kb, "v_cache": vb})
    return (out, _transposed(lse)) if return_lse else out


_SCALARS = {}


def _scalars(like, sm_scale, mask, soft_cap=0.0):
    """The [4] int32 run-time scalars (sm_scale as f32 bits, window left,
    window right, soft cap as f32 bits or 0), one tensor per device and
    values, made on first use (make that first call before a CUDA graph
    capture)."""
    left, right = -1, -1
    if mask.startswith("window("):
        left, right = (int(x) for x in mask[7:-1].split(","))
    bits = struct.unpack("<i", struct.pack("<f", sm_scale))[0]
    cap = struct.unpack("<i", struct.pack("<f", soft_cap))[0] if soft_cap > 0 else 0
    device = like.device if _is_torch(like) else "numpy"
    key = (str(device), bits, left, right, cap)
    t = _SCALARS.get(key)
    if t is None:
        vals = [bits, left, right, cap]
        if _is_torch(like):
            import torch
            t = torch.tensor(vals, dtype=torch.int32, device=like.device)
        else:
            import numpy as np
            t = np.array(vals, dtype=np.int32)
        _SCALARS[key] = t
    return t


def _ones_int(like):
    """kv_last_page_lens for pages of one token: 1 per sequence."""
    n = _abi.describe("kv_indptr", like).shape[0] - 1
    if _is_torch(like):
        import torch
        return torch.ones(n, dtype=torch.int32, device=like.device)
    import numpy as np
    return np.ones(n, dtype=np.int32)
