"""Tests of the fmha_mlir package on this machine (no GPU): compiles
through libFmhaMLIR.so's C interface and checks the kernels against
fmha-compile's (byte for byte) and the manifest's ABI."""
import json
import os
import subprocess
import tempfile
import math
import unittest

import fmha_mlir

FMHA_COMPILE = os.environ.get("FMHA_COMPILE", "fmha-compile")
# fmha-compile runs without the LD_PRELOAD a sanitized build's lit gives this
# python (the ASan runtime for libFmhaMLIR.so): the tool links its own.
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
REQ = {"qo_lens": [100, 7], "kv_lens": [1500, 64]}


class CompileTest(unittest.TestCase):
    def test_version(self):
        self.assertRegex(fmha_mlir.version(), r"^\d+\.\d+\.\d+$")

    def test_sm90_ptx_and_manifest(self):
        k = fmha_mlir.compile(REQ, chip="sm_90")
        self.assertIn(b".entry fmha_batch_prefill_kernel", k.binary)
        self.assertEqual(k.manifest["chip"], "sm_90")
        self.assertEqual(k.manifest["request"]["qo_lens"], [100, 7])
        names = [a["name"] for a in k.manifest["args"]]
        self.assertEqual(names[0], "q")
        self.assertIn("out", names)

    def test_sm90a_grid_takes_two_heads_a_workgroup(self):
        # sm_90a's default kernel is warp-specialized: two query heads a
        # workgroup, so the launch grid's y is half the heads (a grid of
        # num_qo_heads would run heads past the tensors).
        from fmha_mlir import _abi
        k = fmha_mlir.compile(REQ, chip="sm_90a")
        self.assertEqual(k.manifest["grid"]["y"], "num_qo_heads / 2")
        self.assertEqual(_abi.grid(k.manifest, [100, 7]), (2, 16, 2))
        one = fmha_mlir.compile(REQ, chip="sm_90")
        self.assertEqual(_abi.grid(one.manifest, [100, 7])[1], 32)

    def test_gfx942_takes_fnuz(self):
        req = dict(REQ, q_dtype="f8E4M3FNUZ", kv_dtype="f8E4M3FNUZ")
        k = fmha_mlir.compile(req, chip="gfx942")
        self.assertEqual(k.binary[:4], b"\x7fELF")
        self.assertEqual(k.manifest["target"], "amdgcn-amd-amdhsa--gfx942")

    def test_lowering_options_are_fmha_compile_flags(self):
        # options= gives the lowering's choices: the same bytes as
        # fmha-compile with the flags of those names, and other bytes than
        # the default; an unknown option is refused by name.
        req = dict(REQ, q_dtype="f8E4M3FNUZ", kv_dtype="f8E4M3FNUZ", page_size=16)
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(env=TOOL_ENV, args=[FMHA_COMPILE, "--chip", "gfx942", "--qo-len", "100,7",
                            "--kv-len", "1500,64", "--page-size", "16", "--q-dtype", "f8E4M3FNUZ",
                            "--kv-dtype", "f8E4M3FNUZ", "--lse", "--lds-loads",
                            "--lds-swizzle=false",
                            "--warps", "8", "--vd-route", "exp2_bias", "--emit", "isa",
                            "-o", os.path.join(d, "k")], check=True)
            with open(os.path.join(d, "k.s"), "rb") as f:
                isa = f.read()
        options = {"lds_loads": True, "warps": 8, "vd_route": "exp2_bias", "lds_swizzle": False}
        k = fmha_mlir.compile(req, chip="gfx942", format="isa", options=options)
        self.assertEqual(k.binary, isa)
        self.assertNotEqual(fmha_mlir.compile(req, chip="gfx942", format="isa").binary, isa)
        # lds_swizzle reaches the kernel: with the chip's choice (chunk-major
        # V^T) the code object differs.
        self.assertNotEqual(fmha_mlir.compile(req, chip="gfx942", format="isa",
                                              options=dict(options, lds_swizzle=None)).binary, isa)
        with self.assertRaisesRegex(NotImplementedError, 'unknown key "lds"'):
            fmha_mlir.compile(req, chip="gfx942", format="isa", options={"lds": True})
        cache = fmha_mlir.KernelCache()
        cache.get(req, "gfx942", "isa")
        cache.get(req, "gfx942", "isa", options)
        self.assertEqual(cache.compiles, 2)
        # The same choices again, in another order or with a key left to
        # the compiler (None), and no options as {}: no compile.
        cache.get(req, "gfx942", "isa", {"vd_route": "exp2_bias", "warps": 8, "lds_loads": True,
                                         "lds_swizzle": False})
        cache.get(req, "gfx942", "isa", dict(options, kv_unroll=None))
        cache.get(req, "gfx942", "isa", {})
        self.assertEqual(cache.compiles, 2)

    def test_same_bytes_as_fmha_compile(self):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(env=TOOL_ENV, args=[FMHA_COMPILE, "--chip", "sm_90", "--qo-len", "100,7",
                            "--kv-len", "1500,64", "--q-dtype", "f8E4M3FN",
                            "--kv-dtype", "f8E4M3FN", "--lse", "-o", os.path.join(d, "k")],
                           check=True)
            with open(os.path.join(d, "k.ptx"), "rb") as f:
                ptx = f.read()
        self.assertEqual(fmha_mlir.compile(REQ, chip="sm_90").binary, ptx)

    def test_unsupported_raises_not_implemented(self):
        with self.assertRaises(NotImplementedError) as e:
            fmha_mlir.compile(dict(REQ, q_dtype="bf16", kv_dtype="bf16", quant="none",
                                   head_dim=256), chip="sm_90a")
        self.assertIn("convert-fmha-to-gpu", str(e.exception))
        # A 16-bit Q over an fp8 cache is quantized per tile, as the
        # manifest says (sm_90a too: the quantized Q stays in registers).
        for chip in ("sm_90", "sm_90a"):
            k = fmha_mlir.compile(dict(REQ, q_dtype="bf16"), chip=chip)
            self.assertEqual(k.manifest["config"]["q_scale"], "per_tile")
        with self.assertRaises(ValueError):
            fmha_mlir.compile(dict(REQ, num_kv_heads=5), chip="sm_90")
        with self.assertRaises(fmha_mlir.UnsupportedRequest) as e:
            fmha_mlir.compile(dict(REQ, q_dtype="f8E4M3FN"), chip="gfx942")
        self.assertIn("FNUZ", str(e.exception))
        with self.assertRaises(fmha_mlir.UnsupportedRequest):
            fmha_mlir.compile({"qo_lens": [1]}, chip="sm_90")
        with self.assertRaises(fmha_mlir.UnsupportedRequest):
            fmha_mlir.compile(REQ, chip="sm_80")

    def test_text_formats(self):
        k = fmha_mlir.compile(REQ, chip="gfx950", format="isa")
        self.assertIn(b"v_mfma_f32_32x32x64_f8f6f4", k.binary)
        self.assertIsNone(k.manifest)


class CacheTest(unittest.TestCase):
    def test_lengths_do_not_recompile(self):
        cache = fmha_mlir.KernelCache()
        a = cache.get(REQ, chip="sm_90")
        b = cache.get({"qo_lens": [3, 4, 5], "kv_lens": [9, 99, 999]}, chip="sm_90")
        c = cache.get(dict(REQ, page_size=16), chip="sm_90")
        self.assertIs(a, b)
        self.assertIsNot(a, c)
        self.assertEqual(cache.compiles, 2)
        self.assertNotEqual(a.binary, c.binary)

    def test_complete_requests_are_keyed_as_the_library_keys_them(self):
        # A request the library completes and the completed request itself
        # (keyed in Python) give one key; a field that matters changes it.
        for req in (REQ, dict(REQ, mask="window:24,4", page_table="block"),
                    dict(REQ, quant="pertensor", kv_layout="hnd", sm_scale=0.3),
                    dict(REQ, head_dim=64, head_dim_v=0, lse=False, soft_cap=5)):
            key, done = fmha_mlir.complete_request(req)
            self.assertEqual(fmha_mlir.static_key(req, "sm_90"),
                             fmha_mlir.static_key(done, "sm_90"))
            self.assertNotIn("qo_lens", key)
        self.assertNotEqual(fmha_mlir.static_key(REQ, "sm_90"),
                            fmha_mlir.static_key(dict(REQ, page_size=16), "sm_90"))
        self.assertNotEqual(fmha_mlir.static_key(REQ, "sm_90"),
                            fmha_mlir.static_key(REQ, "sm_90a"))

    def test_prebuilt_kernels_need_no_library(self):
        # Where only the code objects are installed (no libFmhaMLIR.so, no
        # libMLIR.so), prebuilt kernels load and complete requests find them.
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(env=TOOL_ENV, args=[FMHA_COMPILE, "--chip", "sm_90a", "--qo-len", "5",
                            "--kv-len", "50", "--page-size", "64", "-o", os.path.join(d, "k")],
                           check=True)
            _, done = fmha_mlir.complete_request(dict(REQ, page_size=64, lse=False))
            saved = fmha_mlir._library

            def missing():
                raise OSError("libFmhaMLIR.so not found")
            fmha_mlir._library = missing
            try:
                kernels = fmha_mlir.load_prebuilt(d)
                self.assertIn(fmha_mlir.static_key(done, "sm_90a"), kernels)
                with self.assertRaises(OSError):
                    fmha_mlir.static_key({"page_size": 64}, "sm_90a")
            finally:
                fmha_mlir._library = saved

    def test_prebuilt_directory(self):
        with tempfile.TemporaryDirectory() as d:
            for page in (16, 1024):
                subprocess.run(env=TOOL_ENV, args=[FMHA_COMPILE, "--chip", "sm_90", "--qo-len", "5",
                                "--kv-len", "50", "--page-size", str(page), "--lse",
                                "-o", os.path.join(d, f"p{page}")], check=True)
            kernels = fmha_mlir.load_prebuilt(d)
        self.assertEqual(len(kernels), 2)
        key = fmha_mlir.static_key(dict(REQ, page_size=16), "sm_90")
        self.assertIn(key, kernels)
        self.assertEqual(kernels[key].binary,
                         fmha_mlir.compile(dict(REQ, page_size=16), chip="sm_90").binary)


class DispatchTest(unittest.TestCase):
    """The launcher cache of fmha_mlir._dispatch (no GPU: the loader is a stub)."""

    def test_run_time_scalars_are_part_of_the_launcher_key(self):
        import fmha_mlir._dispatch as dp
        loaded = []
        saved_load, saved_chip = dp._load, dp.device_chip
        dp._LAUNCHERS.clear()

        class Stub:
            def __init__(self, req):
                self.req = req

            def __call__(self, tensors, max_qo_len=None, bufs=None):
                pass
        dp._load = lambda request, chip, key, prebuilt: loaded.append(key) or Stub(request)
        dp.device_chip = lambda t: "sm_90a"
        try:
            _, done = fmha_mlir.complete_request(REQ)
            fake = {"q": None}
            bufs = {"q": fmha_mlir._abi.Buffer(0, (1, 32, 128), (4096, 128, 1), 1,
                                                 "float8_e4m3fn", "cuda", 0)}
            a = dp.launch(dict(done, runtime_scalars=False), fake, 1, bufs=bufs)
            b = dp.launch(dict(done, runtime_scalars=True), fake, 1, bufs=bufs)
            c = dp.launch(dict(done, runtime_scalars=True, sm_scale=0.5), fake, 1, bufs=bufs)
            self.assertIsNot(a, b)
            self.assertIs(b, c)  # a run-time scale does not make a new kernel
            self.assertEqual(len(loaded), 2)
        finally:
            dp._load, dp.device_chip = saved_load, saved_chip
            dp._LAUNCHERS.clear()


class WrapperTest(unittest.TestCase):
    """The FlashInfer-style wrapper's plan (no GPU: launch=False)."""

    def test_plan_derives_the_request_and_finds_the_kernel(self):
        import fmha_mlir.wrappers as wr
        w = wr.BatchPrefillWithPagedKVCacheWrapper(chip="sm_90")
        # Two sequences: 100 queries over 2 pages (1024 + 476 keys), 7 over
        # one page of 64 keys.
        w.plan([0, 100, 107], [0, 2, 3], [5, 1, 2], [476, 64], 32, 8, 128, 1024,
               causal=True, launch=False)
        self.assertEqual(w.request["qo_lens"], [100, 7])
        self.assertEqual(w.request["kv_lens"], [1500, 64])
        self.assertEqual(w.request["mask"], "causal")
        self.assertEqual(w.kernel.binary, fmha_mlir.compile(REQ, chip="sm_90").binary)
        w.plan([0, 5], [0, 1], [0], [9], 32, 8, 128, 1024, window_left=16, launch=False)
        self.assertEqual(w.request["mask"], "window(16,0)")
        self.assertEqual(w.cache.compiles, 2)
        with self.assertRaises(ValueError):
            w.plan([0, 5], [0, 1, 2], [0], [9], 32, 8, 128, 1024, launch=False)
        with self.assertRaises(NotImplementedError):
            w.plan([0, 5], [0, 1], [0], [9], 32, 8, 128, 1024, q_dtype="int8", launch=False)


class LaunchAbiTest(unittest.TestCase):
    """The CUDA launcher's reading of the manifest's ABI (no GPU needed)."""

    def test_operand_parts_follow_the_manifest(self):
        import fmha_mlir.cuda as cuda
        k = fmha_mlir.compile(REQ, chip="sm_90")
        parts = cuda.operand_parts(k.manifest)
        self.assertEqual(len(parts), len(k.manifest["args"]))
        self.assertEqual(parts[0][:3], ("q", "pointer", 0))
        self.assertEqual(parts[1][:3], ("q", "dim", 0))
        self.assertIn(("k_descale", "offset", 0), [p[:3] for p in parts])
        self.assertIn(("k_descale", "stride", 1), [p[:3] for p in parts])
        self.assertEqual(parts[-1][0], "lse")
        with self.assertRaises(ValueError):
            cuda.operand_parts({"args": [{"name": "Q-bad"}]})

    def test_gpu_operands_must_be_16_byte_aligned(self):
        # The GPU kernels load Q, K and V as aligned 16-byte chunks: an
        # address off by 8 is refused before launch, naming the operand; the
        # same buffer at an aligned address passes the rule.
        from fmha_mlir import _abi
        req = dict(REQ, quant="kv_blockscale")
        for name in ("q", "k_cache", "v_cache"):
            shape = (4, 2, 64) if name == "q" else (3, 16, 1, 64)
            strides = tuple(int(math.prod(shape[i + 1:])) for i in range(len(shape)))
            bad = _abi.Buffer(0x10008, shape, strides, 1, "float8_e4m3fn", "cuda", 0)
            with self.assertRaisesRegex(ValueError, name + r": address 0x10008 is not a "
                                        r"multiple of 16"):
                _abi.check_buffers(req, {name: bad}, "cuda")
            good = bad._replace(ptr=0x10010)
            sig_bad, sig_good = _abi.signature({name: bad}), _abi.signature({name: good})
            self.assertNotEqual(sig_bad, sig_good)
            with self.assertRaises(Exception) as later:
                _abi.check_buffers(req, {name: good}, "cuda")
            self.assertNotIn("multiple of 16", str(later.exception))

    def test_gpu_descale_views_fit_30_bit_offsets(self):
        # kv_blockscale descales are read at 30-bit element offsets on a GPU
        # (docs/ABI.md): a view spanning 2^30 elements or more is refused,
        # naming the operand; one element less passes that rule.
        from fmha_mlir import _abi
        req = dict(REQ, quant="kv_blockscale")
        hkv = 2
        pages = (1 << 30) // (2 * hkv) + 1  # interleaved: stride 2 Hkv, 2
        bad = _abi.Buffer(0x10000, (pages, hkv), (2 * hkv, 2), 4, "float32", "cuda", 0, 0)
        with self.assertRaisesRegex(ValueError, r"k_descale: spans \d+ elements; a GPU "
                                    r"kernel addresses a descale view with 30-bit"):
            _abi.check_buffers(req, {"k_descale": bad}, "cuda")
        fits = bad._replace(shape=((1 << 30) // (2 * hkv), hkv))
        with self.assertRaises(Exception) as later:
            _abi.check_buffers(req, {"k_descale": fits}, "cuda")
        self.assertNotIn("30-bit", str(later.exception))


if __name__ == "__main__":
    unittest.main()
