"""End-to-end tests of fmha_mlir on this CPU (numpy): the kernels compiled
through libFmhaMLIR.so's CPU interface run on numpy buffers and are checked
against a float64 attention written here from docs/SPEC.md section 3 (it
decodes the fp8 and bf16 codes itself; nothing is taken from the library).
The bar is SPEC section 6's spread-data one: per row, max |O - O_ref| <
0.07 max(1, max |O_ref| of the row), lse within 1e-3 max(1, |lse_ref|)."""
import math
import unittest

import numpy as np

import fmha_mlir
import fmha_mlir.cpu as cpu
from fmha_mlir.aiter import mha_batch_prefill_func


def fp8_table(fnuz):
    """Value of every code of e4m3fn (bias 7, NaN at S.1111.111) or
    e4m3fnuz (bias 8, NaN only at 0x80, no -0)."""
    bias = 8 if fnuz else 7
    out = np.zeros(256)
    for c in range(256):
        s, e, m = c >> 7, (c >> 3) & 15, c & 7
        if (fnuz and c == 0x80) or (not fnuz and e == 15 and m == 7):
            out[c] = np.nan
            continue
        v = (m / 8) * 2.0 ** (1 - bias) if e == 0 else (1 + m / 8) * 2.0 ** (e - bias)
        out[c] = -v if s else v
    return out


def bf16_values(codes):
    return (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def random_codes(rng, shape, fnuz):
    """Positive fp8 codes of values in [0, 2): exponent field <= bias."""
    e = rng.integers(0, 9 if fnuz else 8, size=shape)
    m = rng.integers(0, 8, size=shape)
    return ((e << 3) | m).astype(np.uint8)


class Case:
    """A paged problem in numpy: codes, table, descales, and its reference."""

    def __init__(self, rng, qo_lens, kv_lens, hq=4, hkv=2, d=64, dv=None, page=16,
                 layout="nhd", quant="kv_blockscale", fnuz=False, share_prefix=False,
                 extra_pages=3):
        self.qo_lens, self.kv_lens = list(qo_lens), list(kv_lens)
        self.hq, self.hkv, self.d, self.dv, self.page = hq, hkv, d, dv or d, page
        self.layout, self.quant, self.fnuz = layout, quant, fnuz
        need = [math.ceil(n / page) for n in kv_lens]
        self.n_pages = sum(need) + extra_pages
        order = rng.permutation(self.n_pages)
        self.pages, at = [], 0
        for b, n in enumerate(need):
            if share_prefix and b == 1 and need[0] >= n > 0:
                # Sequence 1 reads sequence 0's first pages (a shared prefix).
                self.pages.append(list(self.pages[0][:n]))
                continue
            self.pages.append([int(p) for p in order[at:at + n]])
            at += n
        t = sum(qo_lens)
        cache = (lambda dim: (self.n_pages, page, hkv, dim)) if layout == "nhd" else (
            lambda dim: (self.n_pages, hkv, page, dim))
        self.q = random_codes(rng, (t, hq, d), fnuz)
        self.k = random_codes(rng, cache(d), fnuz)
        self.v = random_codes(rng, cache(self.dv), fnuz)
        self.q_descale = np.array([0.75], dtype=np.float32)
        if quant == "kv_blockscale":
            # aiter's interleaved [N_pages, Hkv, 2]: K at 0, V at 1, spread
            # over 2^-3 .. 2^3 per page and head so a wrong index shows.
            self.kv = (2.0 ** rng.integers(-3, 4, size=(self.n_pages, hkv, 2))).astype(np.float32)
            self.k_descale, self.v_descale = self.kv[:, :, 0], self.kv[:, :, 1]
        else:
            self.k_descale = np.array([1.5], dtype=np.float32)
            self.v_descale = np.array([0.5], dtype=np.float32)
        self.qo_indptr = np.array([0] + list(np.cumsum(qo_lens)), dtype=np.int32)
        self.kv_indptr = np.array([0] + list(np.cumsum([len(p) for p in self.pages])),
                                  dtype=np.int32)
        self.kv_page_indices = np.array([p for ps in self.pages for p in ps] or [0],
                                        dtype=np.int32)[:max(1, int(self.kv_indptr[-1]))]
        self.kv_last_page_len = np.array(
            [n - (len(p) - 1) * page if p else 0 for n, p in zip(kv_lens, self.pages)],
            dtype=np.int32)
        width = max([len(p) for p in self.pages] + [1])
        self.block_table = np.zeros((len(kv_lens), width), dtype=np.int32)
        for b, ps in enumerate(self.pages):
            self.block_table[b, :len(ps)] = ps
        self.kv_seqlen = np.array(kv_lens, dtype=np.int32)

    def tensors(self, out_dtype="bf16", table="csr", lse=True):
        t = self.q.shape[0]
        holder = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}[out_dtype]
        ts = {"q": self.q, "k_cache": self.k, "v_cache": self.v, "qo_indptr": self.qo_indptr,
              "q_descale": self.q_descale, "k_descale": self.k_descale,
              "v_descale": self.v_descale,
              "out": np.zeros((t, self.hq, self.dv), dtype=holder)}
        if table == "csr":
            ts.update(kv_indptr=self.kv_indptr, kv_page_indices=self.kv_page_indices,
                      kv_last_page_len=self.kv_last_page_len)
        else:
            ts.update(block_table=self.block_table, kv_seqlen=self.kv_seqlen)
        if lse:
            ts["lse"] = np.zeros((t, self.hq), dtype=np.float32)
        return ts

    def reference(self, mask="causal", sm_scale=None, soft_cap=0.0):
        """O [T, Hq, Dv] and lse [T, Hq] in float64 (SPEC section 3)."""
        table = fp8_table(self.fnuz)
        q = table[self.q] * float(self.q_descale[0])
        sm_scale = sm_scale or 1.0 / math.sqrt(self.d)
        o = np.zeros((self.q.shape[0], self.hq, self.dv))
        lse = np.full((self.q.shape[0], self.hq), -np.inf)
        group = self.hq // self.hkv
        for b, (sq, sk) in enumerate(zip(self.qo_lens, self.kv_lens)):
            r0 = int(self.qo_indptr[b])
            js = np.arange(sk)
            pg = np.array([self.pages[b][j // self.page] for j in js], dtype=np.int64)
            slot = js % self.page
            for g in range(self.hkv):
                if self.layout == "nhd":
                    kc, vc = self.k[pg, slot, g], self.v[pg, slot, g]
                else:
                    kc, vc = self.k[pg, g, slot], self.v[pg, g, slot]
                if self.quant == "kv_blockscale":
                    kd, vd = self.k_descale[pg, g][:, None], self.v_descale[pg, g][:, None]
                else:
                    kd, vd = float(self.k_descale[0]), float(self.v_descale[0])
                kk, vv = table[kc] * kd, table[vc] * vd
                for h in range(g * group, (g + 1) * group):
                    qq = q[r0:r0 + sq, h]
                    s = sm_scale * qq @ kk.T if sk else np.zeros((sq, 0))
                    if soft_cap:
                        s = soft_cap * np.tanh(s / soft_cap)
                    pos = np.arange(sq)[:, None] + sk - sq
                    if mask == "none":
                        vis = np.ones((sq, sk), bool)
                    elif mask == "causal":
                        vis = js[None, :] <= pos
                    else:
                        left, right = (int(x) for x in mask.split(":")[1].split(","))
                        vis = np.ones((sq, sk), bool)
                        if left >= 0:
                            vis &= js[None, :] >= pos - left
                        if right >= 0:
                            vis &= js[None, :] <= pos + right
                    s = np.where(vis, s, -np.inf)
                    for i in range(sq):
                        if not vis[i].any():
                            continue
                        m = s[i].max()
                        p = np.exp(s[i] - m)
                        o[r0 + i, h] = p @ vv / p.sum()
                        lse[r0 + i, h] = m + math.log(p.sum())
        return o, lse


def as_float(out):
    return bf16_values(out) if out.dtype == np.uint16 else out.astype(np.float64)


class Check:
    def assertMatches(self, case, ts, **ref):
        o_ref, lse_ref = case.reference(**ref)
        o = as_float(ts["out"])
        self.assertTrue(np.isfinite(o).all(), "non-finite output")
        bar = 0.07 * np.maximum(1.0, np.abs(o_ref).max(axis=2))
        err = np.abs(o - o_ref).max(axis=2)
        self.assertTrue((err < bar).all(), f"row error {err.max():.4f} over the bar")
        if "lse" in ts:
            lse = ts["lse"].astype(np.float64)
            empty = np.isinf(lse_ref)
            self.assertTrue((np.isneginf(lse) == empty).all(), "lse -inf rows differ")
            d = np.abs(lse[~empty] - lse_ref[~empty])
            self.assertTrue((d < 1e-3 * np.maximum(1, np.abs(lse_ref[~empty]))).all(),
                            f"lse error {d.max() if d.size else 0:.2e}")
        return float(err.max())


REQ = {"num_qo_heads": 4, "num_kv_heads": 2, "head_dim": 64, "page_size": 16}


class HostTest(unittest.TestCase, Check):
    def test_csr_kv_blockscale_against_numpy(self):
        # Ragged: Sk not a page multiple, Sq > Sk (rows that see nothing),
        # Sk = 0; sequence 1 shares sequence 0's first pages.
        case = Case(np.random.default_rng(1), [17, 33, 9], [130, 20, 0], share_prefix=True)
        k = cpu.compile(REQ)
        ts = case.tensors()
        k(ts)
        self.assertMatches(case, ts)

    def test_one_kernel_serves_any_lengths(self):
        k = cpu.compile(REQ)
        compiled = len(cpu._kernels)
        for i, (qo, kv) in enumerate([([64], [64]), ([1, 2, 3, 4], [300, 1, 17, 40])]):
            case = Case(np.random.default_rng(10 + i), qo, kv)
            ts = case.tensors()
            self.assertIs(cpu.compile(dict(REQ, qo_lens=qo, kv_lens=kv)), k)
            k(ts)
            self.assertMatches(case, ts)
        self.assertEqual(len(cpu._kernels), compiled)

    def test_block_table_hnd_window_per_tensor_f16(self):
        case = Case(np.random.default_rng(2), [40, 7], [200, 90], hq=4, hkv=1, page=32,
                    layout="hnd", quant="per_tensor")
        req = dict(REQ, num_kv_heads=1, page_size=32, page_table="block_table",
                   kv_layout="hnd", quant="per_tensor", mask="window:24,4", out_dtype="f16")
        ts = case.tensors(out_dtype="f16", table="block")
        cpu.compile(req)(ts)
        self.assertMatches(case, ts, mask="window:24,4")

    def test_refusals_name_the_rule(self):
        case = Case(np.random.default_rng(3), [17, 33], [130, 20])
        k = cpu.compile(REQ)

        def refused(change, pattern):
            ts = case.tensors()
            change(ts)
            with self.assertRaisesRegex(ValueError, pattern):
                k(ts)
            self.assertTrue((ts["out"] == 0).all(), "a refused run wrote out")

        refused(lambda ts: ts.update(q=ts["q"].astype(np.float32)),
                r"q: dtype float32, the kernel.s f8E4M3FN needs float8_e4m3fn or uint8")
        refused(lambda ts: ts.pop("v_descale"), r"missing tensors: v_descale")
        refused(lambda ts: ts.update(q=np.repeat(ts["q"], 2, axis=2)[:, :, ::2]),
                r"q: must be dense row-major")
        refused(lambda ts: ts.update(k_cache=np.ascontiguousarray(ts["k_cache"][:, :8])),
                r"k_cache: shape \[\d+, 8, 2, 64\], the kernel's request needs")
        bad = case.kv_page_indices.copy()
        bad[0] = case.n_pages
        refused(lambda ts: ts.update(kv_page_indices=bad),
                r"invalid page table: kv_page_indices\[0\] = \d+ .* not a page id")
        refused(lambda ts: ts.update(qo_indptr=np.array([0, 17, 60], dtype=np.int32)),
                r"qo_indptr\[2\] = 60 is past q's 50 rows")

    def test_unsupported_target(self):
        with self.assertRaises(fmha_mlir.UnsupportedRequest):
            cpu.compile(REQ, target="sm_80")

    def test_combined_kv_cache_views(self):
        # FlashInfer's / SGLang's one cache tensor (N_pages, 2, P, Hkv, D):
        # k = kv[:, 0] and v = kv[:, 1] go in as views (page stride 2 P Hkv D)
        # to a kv_strided kernel; a dense kernel refuses them, and so does
        # the strided one for views that overlap or are not 16-byte strides.
        case = Case(np.random.default_rng(8), [17, 33], [130, 20])
        kv = np.stack([case.k, case.v], axis=1)
        self.assertEqual(kv.shape, (case.n_pages, 2, 16, 2, 64))
        strided = dict(REQ, kv_strided=True)
        for target in ("host", "gfx942"):
            req, c = strided, case
            if target == "gfx942":
                c = Case(np.random.default_rng(9), [20, 3], [40, 9], fnuz=True)
                kv = np.stack([c.k, c.v], axis=1)
                req = dict(strided, q_dtype="f8E4M3FNUZ", kv_dtype="f8E4M3FNUZ")
            ts = c.tensors()
            ts.update(k_cache=kv[:, 0], v_cache=kv[:, 1])
            self.assertFalse(ts["k_cache"].flags["C_CONTIGUOUS"])
            cpu.compile(req, target=target)(ts)
            self.assertMatches(c, ts)
        kv = np.stack([case.k, case.v], axis=1)
        ts = case.tensors()
        ts.update(k_cache=kv[:, 0], v_cache=kv[:, 1])
        with self.assertRaisesRegex(ValueError, r"k_cache: must be dense row-major"):
            cpu.compile(REQ)(ts)
        k = cpu.compile(strided)
        self.assertIsNot(k, cpu.compile(REQ))
        # Tokens of a page over each other (a token stride of one head).
        over = np.lib.stride_tricks.as_strided(case.k, strides=(2048, 64, 64, 1))
        ts = case.tensors()
        ts.update(k_cache=over)
        with self.assertRaisesRegex(ValueError, r"k_cache: the strides overlap"):
            k(ts)
        # Heads 72 bytes apart: not a 16-byte multiple.
        wide = np.zeros((case.n_pages, 16, 2, 72), dtype=np.uint8)[..., :64]
        ts = case.tensors()
        ts.update(k_cache=wide)
        with self.assertRaisesRegex(ValueError, r"k_cache: strides must be multiples of 16 bytes"):
            k(ts)
        self.assertTrue((ts["out"] == 0).all(), "a refused run wrote out")


class LaneEmulatorTest(unittest.TestCase, Check):
    """The AMD kernel (gfx942's lane-level code, what fmha-compile turns
    into the HSACO) executed from Python by the lane emulator."""

    def test_gfx942_lanes_against_numpy(self):
        case = Case(np.random.default_rng(4), [20, 3], [40, 0], hq=2, hkv=1, fnuz=True)
        req = dict(REQ, num_qo_heads=2, num_kv_heads=1, q_dtype="f8E4M3FNUZ",
                   kv_dtype="f8E4M3FNUZ")
        ts = case.tensors()
        cpu.compile(req, target="gfx942")(ts)
        self.assertMatches(case, ts)

    def test_gfx942_lanes_with_lowering_options(self):
        # The lowering's choices reach the lane kernel (K straight into LDS,
        # 8 waves a workgroup), which still matches numpy; an option of the
        # wrong type is refused by name.
        case = Case(np.random.default_rng(4), [20, 3], [300, 150], hq=2, hkv=1, fnuz=True)
        req = dict(REQ, num_qo_heads=2, num_kv_heads=1, q_dtype="f8E4M3FNUZ",
                   kv_dtype="f8E4M3FNUZ")
        ts = case.tensors()
        k = cpu.compile(req, target="gfx942", options={"lds_loads": True, "warps": 8})
        self.assertIsNot(k, cpu.compile(req, target="gfx942"))
        k(ts)
        self.assertMatches(case, ts)
        with self.assertRaisesRegex(ValueError, '"warps" must be an integer'):
            cpu.compile(req, target="gfx942", options={"warps": "8"})


class AiterEntryTest(unittest.TestCase, Check):
    """fmha_mlir.aiter.mha_batch_prefill_func on numpy arrays (the CPU)."""

    def test_matches_numpy_and_returns_aiter_lse(self):
        case = Case(np.random.default_rng(5), [17, 33, 9], [130, 20, 0])
        out, lse = mha_batch_prefill_func(
            case.q, case.k, case.v, case.qo_indptr, case.kv_indptr, case.kv_page_indices,
            33, 130, causal=True, return_lse=True, q_descale=case.q_descale,
            k_descale=case.k_descale, v_descale=case.v_descale,
            kv_last_page_lens=case.kv_last_page_len)
        self.assertEqual(lse.shape, (4, 59))  # [Hq, total_q], as aiter's
        self.assertMatches(case, {"out": out, "lse": np.ascontiguousarray(lse.T)})

    def test_views_of_a_combined_cache(self):
        # k and v as views of one (N_pages, 2, P, Hkv, D) cache: the entry
        # point picks the kernel with run-time strides, no copy.
        case = Case(np.random.default_rng(7), [17, 33, 9], [130, 20, 0])
        kv = np.stack([case.k, case.v], axis=1)
        out = mha_batch_prefill_func(
            case.q, kv[:, 0], kv[:, 1], case.qo_indptr, case.kv_indptr, case.kv_page_indices,
            33, 130, causal=True, q_descale=case.q_descale, k_descale=case.k_descale,
            v_descale=case.v_descale, kv_last_page_lens=case.kv_last_page_len)
        self.assertMatches(case, {"out": out})

    def test_soft_cap_and_block_table(self):
        case = Case(np.random.default_rng(6), [40, 17], [200, 90])
        out = mha_batch_prefill_func(
            case.q, case.k, case.v, case.qo_indptr, None, None, 40, 200, causal=False,
            softmax_scale=0.3, logits_soft_cap=20.0, q_descale=case.q_descale,
            k_descale=case.k_descale, v_descale=case.v_descale,
            block_table=case.block_table, seqlen_k=case.kv_seqlen)
        self.assertMatches(case, {"out": out}, mask="none", sm_scale=0.3, soft_cap=20.0)

    def test_one_kernel_serves_every_scale_and_window(self):
        # Layers with their own softmax scale and window share one kernel
        # (runtime_scalars, the default); each matches the reference.
        compiled = len(cpu._kernels)
        for i, (scale, window, mask) in enumerate([(0.3, (24, 4), "window:24,4"),
                                                   (0.05, (100, -1), "window:100,-1"),
                                                   (0.125, (-1, 8), "window:-1,8")]):
            case = Case(np.random.default_rng(20 + i), [40, 17], [200, 90])
            out = mha_batch_prefill_func(
                case.q, case.k, case.v, case.qo_indptr, case.kv_indptr,
                case.kv_page_indices, 40, 200, softmax_scale=scale, window_size=window,
                q_descale=case.q_descale, k_descale=case.k_descale,
                v_descale=case.v_descale, kv_last_page_lens=case.kv_last_page_len)
            self.assertMatches(case, {"out": out}, mask=mask, sm_scale=scale)
        self.assertEqual(len(cpu._kernels), compiled + 1)
        # A soft cap's value is a run-time scalar too: two caps, one kernel.
        compiled = len(cpu._kernels)
        for i, cap in enumerate([5.0, 30.0]):
            case = Case(np.random.default_rng(40 + i), [40, 17], [200, 90])
            out = mha_batch_prefill_func(
                case.q, case.k, case.v, case.qo_indptr, case.kv_indptr,
                case.kv_page_indices, 40, 200, softmax_scale=0.3, logits_soft_cap=cap,
                q_descale=case.q_descale, k_descale=case.k_descale,
                v_descale=case.v_descale, kv_last_page_lens=case.kv_last_page_len)
            self.assertMatches(case, {"out": out}, mask="none", sm_scale=0.3, soft_cap=cap)
        self.assertEqual(len(cpu._kernels), compiled + 1)
        a = dict(REQ, runtime_scalars=True, mask="window:24,4", sm_scale=0.3)
        b = dict(a, mask="window:100,-1", sm_scale=0.05)
        self.assertEqual(fmha_mlir.static_key(a, "gfx942"), fmha_mlir.static_key(b, "gfx942"))
        a["runtime_scalars"] = b["runtime_scalars"] = False
        self.assertNotEqual(fmha_mlir.static_key(a, "gfx942"), fmha_mlir.static_key(b, "gfx942"))

    def test_scale_and_window_bounds_are_checked(self):
        # A zero or NaN scale is refused (aiter defaults only None); a bound
        # of max_seqlen_k or more cuts nothing (unbounded, no i32 overflow).
        case = Case(np.random.default_rng(30), [40, 17], [200, 90])
        args = (case.q, case.k, case.v, case.qo_indptr, case.kv_indptr,
                case.kv_page_indices, 40, 200)
        kw = dict(q_descale=case.q_descale, k_descale=case.k_descale,
                  v_descale=case.v_descale, kv_last_page_lens=case.kv_last_page_len)
        for bad in (0.0, float("nan"), -1.0):
            with self.assertRaisesRegex(ValueError, "softmax_scale must be finite and > 0"):
                mha_batch_prefill_func(*args, softmax_scale=bad, **kw)
        with self.assertRaisesRegex(ValueError, "window_size bounds must be >= -1"):
            mha_batch_prefill_func(*args, window_size=(-2, 4), **kw)
        out = mha_batch_prefill_func(*args, window_size=(2**31 - 2, 2**31 - 2), **kw)
        self.assertMatches(case, {"out": out}, mask="none")

    def test_bad_runtime_scalars_are_refused(self):
        case = Case(np.random.default_rng(9), [5], [20])
        k = cpu.compile(dict(REQ, runtime_scalars=True))
        ts = case.tensors()
        ts["runtime_scalars"] = np.array([0, -1, -1, 0], dtype=np.int32)  # sm_scale 0.0
        with self.assertRaisesRegex(ValueError, r"runtime_scalars\[0\] \(sm_scale\) must be finite"):
            k(ts)
        ts["runtime_scalars"] = np.array([0x3e000000, 4, 4, 0], dtype=np.int32)  # causal: no bounds
        with self.assertRaisesRegex(ValueError, "must be -1, -1 without a window"):
            k(ts)
        ts["runtime_scalars"] = np.array([0x3e000000, -1, -1, 0x40a00000], dtype=np.int32)  # cap 5
        with self.assertRaisesRegex(ValueError, r"runtime_scalars\[3\] \(soft cap\) must be 0"):
            k(ts)
        ts["runtime_scalars"] = np.array([0x3e000000, -1, -1, 0], dtype=np.int32)  # 0.125
        k(ts)
        self.assertMatches(case, ts, sm_scale=0.125)
        # A kernel with a soft cap reads its value at run time: > 0 and finite.
        kc = cpu.compile(dict(REQ, runtime_scalars=True, soft_cap=5.0))
        ts["runtime_scalars"] = np.array([0x3e000000, -1, -1, 0], dtype=np.int32)
        with self.assertRaisesRegex(ValueError, r"runtime_scalars\[3\] \(soft cap\) must be finite and > 0"):
            kc(ts)

    def test_what_it_does_not_do_raises_not_implemented(self):
        case = Case(np.random.default_rng(7), [5], [20])
        args = (case.q, case.k, case.v, case.qo_indptr, case.kv_indptr,
                case.kv_page_indices, 5, 20)
        kw = dict(q_descale=case.q_descale, k_descale=case.k_descale,
                  v_descale=case.v_descale, kv_last_page_lens=case.kv_last_page_len)
        for extra in (dict(dropout_p=0.1), dict(alibi_slopes=np.ones(4, np.float32)),
                      dict(return_attn_probs=True)):
            with self.assertRaises(NotImplementedError):
                mha_batch_prefill_func(*args, **kw, **extra)
        with self.assertRaisesRegex(ValueError, "kv_last_page_lens is needed"):
            mha_batch_prefill_func(*args, q_descale=case.q_descale,
                                   k_descale=case.k_descale, v_descale=case.v_descale)


class WrapperCpuTest(unittest.TestCase, Check):
    def test_plan_run_on_numpy(self):
        import fmha_mlir.wrappers as wr
        case = Case(np.random.default_rng(8), [17, 33], [130, 20])
        w = wr.BatchPrefillWithPagedKVCacheWrapper(chip="sm_90a")
        w.plan(case.qo_indptr, case.kv_indptr, case.kv_page_indices, case.kv_last_page_len,
               4, 2, 64, 16, causal=True)
        out, lse = w.run(case.q, case.k, case.v, case.k_descale, case.v_descale,
                         case.q_descale)
        self.assertMatches(case, {"out": out, "lse": lse})


if __name__ == "__main__":
    unittest.main()
