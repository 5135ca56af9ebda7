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
                            "--warps", "8", "--vd-route", "exp2_bias", "--block-n", "64",
                            "--emit", "isa",
                            "-o", os.path.join(d, "k")], check=True)
            with open(os.path.join(d, "k.s"), "rb") as f:
                isa = f.read()
        options = {"lds_loads": True, "warps": 8, "vd_route": "exp2_bias", "lds_swizzle": False,
                   "block_n": 64}
        k = fmha_mlir.compile(req, chip="gfx942", format="isa", options=options)
        self.assertEqual(k.binary, isa)
        self.assertNotEqual(fmha_mlir.compile(req, chip="gfx942", format="isa").binary, isa)
        # lds_swizzle and block_n reach the kernel: with the chip's choice
        # (chunk-major V^T; a 128-key tile) the code object differs.
        self.assertNotEqual(fmha_mlir.compile(req, chip="gfx942", format="isa",
                                              options=dict(options, block_n=None)).binary, isa)
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
                                         "block_n": 64, "lds_swizzle": False})
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



# A hand-written manifest of an sm_90a kernel compiled with TMA: the cache
# pointers and sizes, then one tensor map per cache (kind "tensormap", 128
# bytes at a 64-aligned offset), as the compiler writes them.
TMA_REQUEST = {"num_qo_heads": 4, "num_kv_heads": 2, "head_dim": 128, "head_dim_v": 128,
               "page_size": 16, "kv_layout": "nhd", "quant": "pertensor",
               "q_dtype": "f8E4M3FN", "kv_dtype": "f8E4M3FN", "out_dtype": "bf16",
               "kv_strided": False}


def tma_entry(name, offset, dims, box, element_bytes=1, swizzle=128, **extra):
    return dict({"name": name, "kind": "tensormap", "offset": offset, "size": 128,
                 "align": 64, "tensormap": {"dims": dims, "box": box,
                                            "element_bytes": element_bytes,
                                            "swizzle": swizzle}}, **extra)


def tma_manifest(dims=(3, 1, 2, 0), box=(128, 16, 1, 1)):
    names = ["q", "q_dim0", "k_cache", "k_cache_dim0", "v_cache", "v_cache_dim0",
             "qo_indptr", "qo_indptr_dim0"]
    args = [{"name": n, "kind": "i64" if "_dim" in n else "pointer", "offset": 8 * i,
             "size": 8, "align": 8} for i, n in enumerate(names)]
    args += [tma_entry("k_cache_tmap", 64, list(dims), list(box)),
             tma_entry("v_cache_tmap", 192, list(dims), list(box))]
    return {"format": "fmha-kernel-manifest/1", "chip": "sm_90a", "kernel": "fmha_tma",
            "request": dict(TMA_REQUEST), "config": {"block_m": 64},
            "grid": {"y": "num_qo_heads"}, "workgroup": [384, 1, 1],
            "dynamic_shared_bytes": 0, "args": args}


class FakeDriver:
    """Stands in for libcuda: records cuTensorMapEncodeTiled's arguments (as
    ints and lists) and writes a recognisable 128-byte map; cuLaunchKernel
    reads what kernelParams points at (`sizes`: each argument's bytes) while
    the launcher's buffers are alive."""

    def __init__(self, sizes=()):
        self.encoded, self.launches, self.sizes = [], [], list(sizes)

    def cuCtxGetCurrent(self, ref):
        ref._obj.value = 0x1000
        return 0

    def cuModuleLoadData(self, ref, image):
        ref._obj.value = 0x2000
        return 0

    def cuModuleGetFunction(self, ref, module, name):
        ref._obj.value = 0x3000
        return 0

    def cuTensorMapEncodeTiled(self, tmap, dtype, rank, address, global_dim, global_strides,
                               box, element_strides, interleave, swizzle, l2, oob):
        import ctypes
        r = rank.value
        payload = bytes((17 * len(self.encoded) + i) % 256 for i in range(128))
        self.encoded.append({
            "map": tmap.value, "data_type": dtype.value, "rank": r, "address": address.value,
            "global_dim": list(global_dim)[:r], "global_strides": list(global_strides)[:r - 1],
            "box": list(box)[:r], "element_strides": list(element_strides)[:r],
            "interleave": interleave.value, "swizzle": swizzle.value, "l2_promotion": l2.value,
            "oob_fill": oob.value, "bytes": payload})
        ctypes.memmove(tmap.value, payload, 128)
        return 0

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        import ctypes
        self.launches.append({"grid": (gx, gy, gz), "params": [
            (params[i], ctypes.string_at(params[i], size)) for i, size in enumerate(self.sizes)]})
        return 0


class TensorMapTest(unittest.TestCase):
    """Tensor map arguments (kind "tensormap", sm_90a TMA kernels): the
    manifest's reading, cuTensorMapEncodeTiled's arguments, the driver's
    rules and kernelParams (no GPU: a stand-in driver)."""

    NHD = dict(dims=[3, 1, 2, 0], box=[128, 16, 1, 1])
    BASE = 0x7F0000100000

    def cache(self, shape=(10, 16, 2, 128), strides=(4096, 256, 128, 1), ptr=BASE, offset=0,
              itemsize=1, dtype="float8_e4m3fn"):
        from fmha_mlir import _abi
        return _abi.Buffer(ptr, tuple(shape), tuple(strides), itemsize, dtype, "cuda", offset, 0)

    def test_manifest_with_tensor_maps_is_read_by_kind(self):
        from fmha_mlir import _abi
        import fmha_mlir.hip as hip
        import types
        m = tma_manifest()
        parts = _abi.operand_parts(m)
        self.assertEqual([p[:3] for p in parts[-2:]],
                         [("k_cache", "tensormap", 0), ("v_cache", "tensormap", 0)])
        self.assertIs(parts[-1][3], m["args"][-1])
        self.assertEqual([p[:3] for p in parts[:3]],
                         [("q", "pointer", 0), ("q", "dim", 0), ("k_cache", "pointer", 0)])
        # The maps add no operand: the launcher asks for the same tensors.
        self.assertEqual(list(dict.fromkeys(p[0] for p in parts)),
                         ["q", "k_cache", "v_cache", "qo_indptr"])
        # A map's name alone does not make it one; a map of no cache, or
        # one that breaks the layout or box rules, is refused by name.
        bad = [({"name": "k_cache_tmap", "kind": "pointer", "offset": 0, "size": 8},
                r"named as a tensor map but its kind is 'pointer'"),
               (tma_entry("q_tmap", 64, **self.NHD), r"TENSOR_tmap with TENSOR one of k_cache"),
               (tma_entry("k_cache_tmap", 64, **self.NHD, size=64), r"size 64, a CUtensorMap"),
               (tma_entry("k_cache_tmap", 72, **self.NHD), r"offset 72 is not a multiple of 64"),
               (tma_entry("k_cache_tmap", 64, **self.NHD, align=8), r"align 8"),
               (tma_entry("k_cache_tmap", 64, [3, 1, 1, 0], [128, 16, 1, 1]),
                r"not a permutation"),
               (tma_entry("k_cache_tmap", 64, [3, 1, 2, 0], [128, 16, 1]), r"one entry per map"),
               (tma_entry("k_cache_tmap", 64, [3, 1, 2, 0], [8, 16, 1, 1], swizzle=0),
                r"8 bytes, not a multiple of 16"),
               (tma_entry("k_cache_tmap", 64, [3, 1, 2, 0], [128, 16, 1, 1], swizzle=64),
                r"128 bytes, more than the 64-byte swizzle"),
               (tma_entry("k_cache_tmap", 64, [3, 1, 2, 0], [128, 257, 1, 1]), r"1\.\.256"),
               (tma_entry("k_cache_tmap", 64, **self.NHD, element_bytes=4), r"element_bytes 4"),
               (tma_entry("k_cache_tmap", 64, **self.NHD, swizzle=16), r"swizzle 16")]
        for entry, rule in bad:
            with self.subTest(rule=rule), self.assertRaisesRegex(ValueError, rule):
                _abi.operand_parts({"args": [entry]})
        # Only the CUDA launcher passes a map: argument_values without an
        # encoder and the HIP launcher (before any runtime loads) refuse.
        bufs = {"k_cache": self.cache()}
        with self.assertRaisesRegex(ValueError, r"k_cache_tmap: a CUDA tensor map"):
            _abi.argument_values(parts[-2:-1], bufs)
        hip_kernel = types.SimpleNamespace(chip="gfx942", format="bin", binary=b"",
                                           manifest=dict(m, chip="gfx942"))
        with self.assertRaisesRegex(ValueError, r"k_cache_tmap: a CUDA tensor map .* the HIP "
                                    r"launcher passes none"):
            hip.Launcher(hip_kernel, library="/nonexistent/libamdhip64.so")

    def test_encode_arguments_of_nhd_and_hnd_caches(self):
        import fmha_mlir.cuda as cuda
        fake = FakeDriver()
        maps = cuda.TensorMaps(fake)
        common = {"element_strides": [1, 1, 1, 1], "interleave": 0, "l2_promotion": 2,
                  "oob_fill": 0, "rank": 4}
        # NHD fp8 [pages 10][page 16][heads 2][D 128], dense: map dims D,
        # page, head, page id; byte strides of page (2*128), head (128) and
        # page id (16*2*128); swizzle 128B (3), UINT8 (0).
        nhd = tma_entry("k_cache_tmap", 64, **self.NHD)
        m = maps(nhd, self.cache())
        self.assertEqual(m.address % 64, 0)
        got = fake.encoded[-1]
        self.assertEqual({k: got[k] for k in common}, common)
        self.assertEqual((got["data_type"], got["swizzle"], got["address"], got["map"]),
                         (0, 3, self.BASE, m.address))
        self.assertEqual(got["global_dim"], [128, 16, 2, 10])
        self.assertEqual(got["global_strides"], [256, 128, 4096])
        self.assertEqual(got["box"], [128, 16, 1, 1])
        self.assertEqual(m.raw(), got["bytes"])
        # V as the second half of a combined [pages][2][page][heads][D]
        # cache: its storage offset (16*2*128 elements) is in the address,
        # its page-id stride is the combined one (2*4096 bytes).
        v = self.cache(strides=(8192, 256, 128, 1), ptr=self.BASE + 4096, offset=4096)
        maps(tma_entry("v_cache_tmap", 192, **self.NHD), v)
        got = fake.encoded[-1]
        self.assertEqual(got["address"], self.BASE + 4096)
        self.assertEqual(got["global_dim"], [128, 16, 2, 10])
        self.assertEqual(got["global_strides"], [256, 128, 8192])
        # HND bf16 [pages 10][heads 2][page 16][D 64]: map dims D, page,
        # head, page id; element strides 64, 1024, 2048 are 128, 2048, 4096
        # bytes; UINT16 (1); box row 64 * 2 = 128 bytes, the swizzle's width.
        hnd = tma_entry("k_cache_tmap", 64, [3, 2, 1, 0], [64, 16, 1, 1], element_bytes=2)
        maps(hnd, self.cache((10, 2, 16, 64), (2048, 1024, 64, 1), itemsize=2, dtype="bfloat16"))
        got = fake.encoded[-1]
        self.assertEqual({k: got[k] for k in common}, common)
        self.assertEqual((got["data_type"], got["swizzle"]), (1, 3))
        self.assertEqual(got["global_dim"], [64, 16, 2, 10])
        self.assertEqual(got["global_strides"], [128, 2048, 4096])
        self.assertEqual(got["box"], [64, 16, 1, 1])
        # The same buffer again: the map encoded before, no driver call;
        # another address (or shape, strides, dtype) encodes a new one.
        self.assertEqual(maps.encodes, 3)
        self.assertIs(maps(nhd, self.cache()), m)
        self.assertEqual(maps.encodes, 3)
        maps(nhd, self.cache(ptr=self.BASE + 0x100000))
        maps(nhd, self.cache(strides=(8192, 256, 128, 1)))
        self.assertEqual((maps.encodes, len(fake.encoded)), (5, 5))

    def test_driver_rules_are_checked_before_encoding(self):
        import fmha_mlir.cuda as cuda
        fake = FakeDriver()
        maps = cuda.TensorMaps(fake)
        nhd = tma_entry("k_cache_tmap", 64, **self.NHD)
        cases = [(self.cache(ptr=self.BASE + 8), r"global address 0x7f0000100008 is not "
                  r"16-byte aligned"),
                 (self.cache(strides=(8192, 512, 256, 2)), r"innermost map dimension \(tensor "
                  r"dimension 3\) has stride 2; it must be contiguous"),
                 # heads padded to 136 bytes: globalStrides[1] (tensor dim 2)
                 (self.cache(strides=(16 * 2 * 136, 2 * 136, 136, 1)), r"globalStrides\[1\] "
                  r"\(tensor dimension 2\) is 136 bytes, not a multiple of 16"),
                 (self.cache(strides=(1 << 40, 256, 128, 1)), r"globalStrides\[2\] \(tensor "
                  r"dimension 0\) is 1099511627776 bytes, not below 2\^40"),
                 (self.cache(shape=(0, 16, 2, 128)), r"globalDim\[3\] \(tensor dimension 0\) "
                  r"is 0, the driver takes 1\.\.2\^32"),
                 (self.cache(itemsize=2, dtype="bfloat16"), r"elements of 2 bytes, the "
                  r"manifest's map has element_bytes 1"),
                 (self.cache(shape=(10, 16, 256), strides=(4096, 256, 1)), r"rank 3")]
        for buf, rule in cases:
            with self.subTest(rule=rule), self.assertRaisesRegex(ValueError,
                                                                  r"^k_cache_tmap: .*" + rule):
                maps(nhd, buf)
        self.assertEqual(fake.encoded, [])
        # One element of stride below 2^40 bytes passes that rule.
        maps(nhd, self.cache(strides=((1 << 40) - 16, 256, 128, 1)))
        self.assertEqual(len(fake.encoded), 1)

    def test_kernel_params_point_at_64_aligned_encoded_maps(self):
        import fmha_mlir.cuda as cuda
        import struct
        import types
        from fmha_mlir import _abi
        m = tma_manifest()
        fake = FakeDriver([a["size"] for a in m["args"]])
        kernel = types.SimpleNamespace(chip="sm_90a", format="bin", binary=b"// ptx",
                                       manifest=m)
        launcher = cuda.Launcher(kernel, driver=fake)

        def buf(ptr, shape, itemsize, dtype):
            strides = tuple(int(math.prod(shape[i + 1:])) for i in range(len(shape)))
            return _abi.Buffer(ptr, shape, strides, itemsize, dtype, "cuda", 0, 0)
        bufs = {"q": buf(0x10000, (5, 4, 128), 1, "float8_e4m3fn"),
                "k_cache": buf(0x20000, (10, 16, 2, 128), 1, "float8_e4m3fn"),
                "v_cache": buf(0x80000, (10, 16, 2, 128), 1, "float8_e4m3fn"),
                "qo_indptr": buf(0x90000, (3,), 4, "int32")}
        tensors = dict.fromkeys(bufs)
        launcher(tensors, qo_lens=[3, 2], stream=0, bufs=bufs)
        launch = fake.launches[-1]
        self.assertEqual(launch["grid"], (1, 4, 2))
        params = launch["params"]
        words = [struct.unpack("<q", raw)[0] for _, raw in params[:8]]
        self.assertEqual(words, [0x10000, 5, 0x20000, 10, 0x80000, 10, 0x90000, 3])
        # k_cache_tmap, v_cache_tmap: each entry points at its map (64-byte
        # aligned) holding the bytes cuTensorMapEncodeTiled wrote.
        k_map, v_map = fake.encoded
        self.assertEqual((k_map["address"], v_map["address"]), (0x20000, 0x80000))
        for (address, raw), encoded in zip(params[8:], (k_map, v_map)):
            self.assertEqual(address % 64, 0)
            self.assertEqual(address, encoded["map"])
            self.assertEqual(raw, encoded["bytes"])
        # The same buffers again (a replayed step): no encoding, the same maps.
        launcher(tensors, qo_lens=[3, 2], stream=0, bufs=bufs)
        self.assertEqual(len(fake.encoded), 2)
        self.assertEqual([a for a, _ in fake.launches[-1]["params"][8:]],
                         [a for a, _ in params[8:]])
        # A new V buffer: its map only is encoded again.
        bufs["v_cache"] = bufs["v_cache"]._replace(ptr=0xA0000)
        launcher(tensors, qo_lens=[3, 2], stream=0, bufs=bufs)
        self.assertEqual([e["address"] for e in fake.encoded], [0x20000, 0x80000, 0xA0000])
        self.assertEqual(fake.launches[-1]["params"][9][1], fake.encoded[-1]["bytes"])
        # Caches that pass the request's checks but break a driver rule (no
        # pages: globalDim 0): ValueError naming it, nothing launched.
        launches = len(fake.launches)
        for name in ("k_cache", "v_cache"):
            bufs[name] = buf(bufs[name].ptr, (0, 16, 2, 128), 1, "float8_e4m3fn")
        with self.assertRaisesRegex(ValueError, r"k_cache_tmap: .*globalDim\[3\] \(tensor "
                                    r"dimension 0\) is 0"):
            launcher(tensors, qo_lens=[3, 2], stream=0, bufs=bufs)
        self.assertEqual(len(fake.launches), launches)


if __name__ == "__main__":
    unittest.main()
