"""What every launcher shares: reading a tensor (torch or numpy) as a
buffer, and checking a set of them against a kernel's request before
anything is launched (docs/ABI.md, section 4, the operands).

A buffer is described by its address (storage offset included), shape,
strides in elements, element size, dtype name and device ("cpu" or "cuda";
torch on ROCm calls its devices "cuda" too). torch tensors and numpy arrays
are read directly; any other object with torch's tensor methods (data_ptr,
shape, stride, element_size, device, dtype) works too.
"""
import collections
import re

# ptr: the first element's address; offset: the storage offset in elements
# (ptr - offset * itemsize is where the storage starts).
Buffer = collections.namedtuple("Buffer", "ptr shape strides itemsize dtype device offset index",
                                defaults=(None,))

# Element types of the request, with the torch and numpy dtypes that hold
# them (numpy has no fp8 or bf16: their raw codes as uint8 / uint16).
_HOLDERS = {
    "f8E4M3FN": ({"float8_e4m3fn"}, {"uint8"}),
    "f8E4M3FNUZ": ({"float8_e4m3fnuz"}, {"uint8"}),
    "f8E5M2": ({"float8_e5m2"}, {"uint8"}),
    "f8E5M2FNUZ": ({"float8_e5m2fnuz"}, {"uint8"}),
    "bf16": ({"bfloat16"}, {"uint16"}),
    "f16": ({"float16"}, {"float16"}),
    "f32": ({"float32"}, {"float32"}),
    "i32": ({"int32"}, {"int32"}),
}

# torch dtype name -> the request's element type (for the interfaces that
# take tensors and build the request from them).
TORCH_DTYPES = {"float8_e4m3fn": "f8E4M3FN", "float8_e4m3fnuz": "f8E4M3FNUZ",
                "float8_e5m2": "f8E5M2", "float8_e5m2fnuz": "f8E5M2FNUZ",
                "bfloat16": "bf16", "float16": "f16", "float32": "f32"}

INDEX_OPERANDS = ("qo_indptr", "kv_indptr", "kv_page_indices", "kv_last_page_len",
                  "block_table", "kv_seqlen", "runtime_scalars")


# The GPU kernels read Q, K and V in 16-byte chunks with 16-byte aligned
# loads (docs/ABI.md, section 4): these operands' addresses must be
# multiples of 16 on a GPU.
ALIGNED_OPERANDS = ("q", "k_cache", "v_cache")
CHUNK_ALIGN = 16

_TORCH_DTYPE_NAMES = {}


def describe(name, x):
    """The Buffer of a torch tensor, a numpy array or a tensor-like object."""
    if hasattr(x, "data_ptr"):
        dt = x.dtype
        dname = _TORCH_DTYPE_NAMES.get(dt)
        if dname is None:
            dname = _TORCH_DTYPE_NAMES[dt] = str(dt).replace("torch.", "")
        offset = x.storage_offset() if hasattr(x, "storage_offset") else 0
        return Buffer(x.data_ptr(), tuple(x.shape), tuple(x.stride()), x.element_size(),
                      dname, x.device.type, offset, getattr(x.device, "index", None))
    if hasattr(x, "__array_interface__") and hasattr(x, "ctypes"):
        strides = []
        for s in x.strides:
            if s % x.itemsize:
                raise ValueError(f"{name}: a stride of {s} bytes is not a whole "
                                 f"number of {x.itemsize}-byte elements")
            strides.append(s // x.itemsize)
        return Buffer(int(x.ctypes.data), tuple(x.shape), tuple(strides),
                      int(x.itemsize), x.dtype.name, "cpu", 0)
    raise TypeError(f"{name}: {type(x).__name__} is neither a torch tensor nor a "
                    "numpy array")


def describe_all(operands, tensors, known=None):
    """Buffers of the operands' tensors (`known`: Buffers already read, by
    operand name). Raises ValueError naming the missing ones."""
    missing = [n for n in operands if n not in tensors]
    if missing:
        raise ValueError(f"missing tensors: {', '.join(missing)}")
    known = known or {}
    return {n: known.get(n) or describe(n, tensors[n]) for n in operands}


def is_dense(shape, strides):
    want = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != want:
            return False
        want *= size
    return True


def kv_stride_rule(shape, strides, itemsize):
    """The rule a kv_strided kernel's K or V view keeps (docs/ABI.md; the C++
    ref::Request::checkKVStrides): "" when kept, else what it breaks. d
    contiguous; the other strides > 0, multiples of 16 bytes, and not
    overlapping (ordered by stride, each at least the extent below it)."""
    where = f" (shape {list(shape)}, strides {list(strides)})"
    if len(shape) != 4 or len(strides) != 4:
        return "needs 4 dimensions" + where
    if strides[3] != 1:
        return "the d dimension must be contiguous (stride 1)" + where
    dims = []
    for size, stride in zip(shape[:3], strides[:3]):
        if size <= 1:
            continue
        if stride <= 0:
            return "strides must be > 0" + where
        if (stride * itemsize) % CHUNK_ALIGN:
            return (f"strides must be multiples of {CHUNK_ALIGN} bytes "
                    f"({CHUNK_ALIGN // itemsize} elements)" + where)
        dims.append((stride, size))
    extent = shape[3]
    for stride, size in sorted(dims):
        if stride < extent:
            return (f"the strides overlap: a stride of {stride} is less than the {extent} "
                    "elements the dimensions below it span" + where)
        extent = stride * (size - 1) + extent
    return ""


def _dtype_of(request, name):
    if name in INDEX_OPERANDS:
        return "i32"
    if name == "q":
        return request["q_dtype"]
    if name in ("k_cache", "v_cache"):
        return request["kv_dtype"]
    if name == "out":
        return request["out_dtype"]
    return "f32"  # descales, lse


def check(request, operands, tensors, device):
    """Buffers of `tensors` (operand name -> tensor) for the kernel whose
    request (a manifest's "request", or the dict the kernel was compiled
    from, with its defaults) is `request` and whose operands, in order, are
    `operands`; each on `device`, of the operand's element type, of the
    shape the request gives it, and dense except the kv_blockscale descales
    and, for a kv_strided kernel, K and V (kv_stride_rule).
    Raises ValueError (TypeError for an object that is not a tensor) naming
    the operand and the rule."""
    bufs = describe_all(operands, tensors)
    check_buffers(request, bufs, device)
    return bufs


def signature(bufs):
    """What check_buffers reads of the buffers (no addresses): a launcher
    that checked one signature need not check it again."""
    return tuple((n, b.shape, b.strides, b.dtype, b.device, b.index,
                  n in ALIGNED_OPERANDS and b.ptr % CHUNK_ALIGN == 0) for n, b in bufs.items())


def check_once(checked, request, operands, tensors, bufs, device):
    """The buffers of `tensors` (`bufs`: already read), checked against the
    request unless their signature is in the set `checked` (a launcher's
    memory of what it has checked; bounded)."""
    bufs = describe_all(operands, tensors, bufs)
    sig = signature(bufs)
    if sig not in checked:
        check_buffers(request, bufs, device)
        if len(checked) > 256:
            checked.clear()
        checked.add(sig)
    return bufs


# A descale view's element offsets on a GPU (MemoryPatterns' 30-bit mask).
DESCALE_MAX_ELEMENTS = 1 << 30


def check_buffers(request, bufs, device):
    """check()'s rules on buffers already read (describe_all)."""
    indices = {b.index for b in bufs.values()}
    if len(indices) > 1:
        raise ValueError(f"tensors on different GPUs ({sorted(str(i) for i in indices)}): "
                         "a kernel reads one GPU's memory")
    for n, b in bufs.items():
        if b.device != device:
            raise ValueError(f"{n}: on {b.device}, the kernel runs on {device}")
        if device != "cpu" and n in ALIGNED_OPERANDS and b.ptr % CHUNK_ALIGN:
            raise ValueError(f"{n}: address {b.ptr:#x} is not a multiple of {CHUNK_ALIGN}: "
                             f"the GPU kernels read {n} in {CHUNK_ALIGN}-byte aligned chunks")
        want = _dtype_of(request, n)
        torch_names, numpy_names = _HOLDERS[want]
        if b.dtype not in torch_names | numpy_names:
            raise ValueError(f"{n}: dtype {b.dtype}, the kernel's {want} needs "
                             f"{' or '.join(sorted(torch_names | numpy_names))}")
        strided = n in ("k_descale", "v_descale") and request["quant"] == "kv_blockscale"
        if n in ("k_cache", "v_cache") and request.get("kv_strided"):
            rule = kv_stride_rule(b.shape, b.strides, b.itemsize)
            if rule:
                raise ValueError(f"{n}: {rule}")
            continue
        if strided and device != "cpu":
            # The GPU kernels address a descale view's elements with 32-bit
            # offsets kept to 30 bits (docs/ABI.md).
            span = sum((d - 1) * abs(st) for d, st in zip(b.shape, b.strides) if d > 0) + 1
            if span > DESCALE_MAX_ELEMENTS:
                raise ValueError(f"{n}: spans {span} elements; a GPU kernel addresses a "
                                 f"descale view with 30-bit element offsets (at most "
                                 f"{DESCALE_MAX_ELEMENTS}, docs/ABI.md)")
        if not strided and not is_dense(b.shape, b.strides):
            raise ValueError(f"{n}: must be dense row-major (shape {list(b.shape)}, "
                             f"strides {list(b.strides)})")
    hq, hkv = request["num_qo_heads"], request["num_kv_heads"]
    d = request["head_dim"]
    dv = request.get("head_dim_v") or d
    p = request["page_size"]
    t = bufs["q"].shape[0] if bufs["q"].shape else 0
    n = bufs["k_cache"].shape[0] if bufs["k_cache"].shape else 0
    batch = bufs["qo_indptr"].shape[0] - 1 if bufs["qo_indptr"].shape else -1
    nhd = request.get("kv_layout", "nhd") == "nhd"

    def cache(dim):
        return (n, p, hkv, dim) if nhd else (n, hkv, p, dim)
    want = {"q": (t, hq, d), "k_cache": cache(d), "v_cache": cache(dv),
            "out": (t, hq, dv), "lse": (t, hq), "q_descale": (1,), "runtime_scalars": (4,),
            "kv_indptr": (batch + 1,), "kv_last_page_len": (batch,),
            "kv_seqlen": (batch,)}
    if "block_table" in bufs and len(bufs["block_table"].shape) == 2:
        want["block_table"] = (batch, bufs["block_table"].shape[1])
    for name in ("k_descale", "v_descale"):
        want[name] = (n, hkv) if request["quant"] == "kv_blockscale" else (1,)
    if "kv_page_indices" in bufs and len(bufs["kv_page_indices"].shape) != 1:
        raise ValueError("kv_page_indices: must have rank 1")
    for name, shape in want.items():
        if name in bufs and bufs[name].shape != shape:
            raise ValueError(f"{name}: shape {list(bufs[name].shape)}, the kernel's "
                             f"request needs {list(shape)}")
    if batch < 0:
        raise ValueError("qo_indptr: needs batch + 1 entries")


_ARG = re.compile(r"^(?P<op>[a-z_]+?)(?:_(?P<part>dim|stride)(?P<n>\d+)|_(?P<off>offset))?$")

# A CUDA tensor map argument (kind "tensormap", in the manifests of sm_90a
# kernels compiled with TMA): a CUtensorMap of 128 bytes passed by value
# (`__grid_constant__`) at a 64-aligned offset, one per cache TMA reads
# (k_cache, then v_cache), named TENSOR_tmap, after every other argument.
# Only the CUDA launcher encodes one (fmha_mlir.cuda).
TENSORMAP_KIND = "tensormap"
TENSORMAP_SIZE = 128
TENSORMAP_ALIGN = 64
TENSORMAP_SUFFIX = "_tmap"
TENSORMAP_OPERANDS = ("k_cache", "v_cache")
TENSORMAP_SWIZZLES = (0, 32, 64, 128)
TENSORMAP_ELEMENT_BYTES = (1, 2)
TENSORMAP_MAX_BOX = 256


def tensormap_operand(entry):
    """The tensor a tensor map entry of a manifest describes (TENSOR of
    TENSOR_tmap), its entry checked: 128 bytes at a 64-aligned offset, a
    "tensormap" record whose dims are a permutation (rank 1..5), whose box
    keeps the driver's rules (every dim 1..256, the innermost row a multiple
    of 16 bytes and, with a swizzle, at most the swizzle's width), element
    size 1 or 2 and swizzle 0, 32, 64 or 128. Raises ValueError naming the
    argument and the rule."""
    name = entry.get("name", "")
    where = f"manifest argument {name!r} (kind {TENSORMAP_KIND})"
    op = name[:-len(TENSORMAP_SUFFIX)] if name.endswith(TENSORMAP_SUFFIX) else None
    if op not in TENSORMAP_OPERANDS:
        raise ValueError(f"{where}: a tensor map is named TENSOR{TENSORMAP_SUFFIX} with TENSOR "
                         f"one of {', '.join(TENSORMAP_OPERANDS)}")
    if entry.get("size") != TENSORMAP_SIZE:
        raise ValueError(f"{where}: size {entry.get('size')}, a CUtensorMap is "
                         f"{TENSORMAP_SIZE} bytes")
    if entry.get("align", TENSORMAP_ALIGN) != TENSORMAP_ALIGN:
        raise ValueError(f"{where}: align {entry.get('align')}, a CUtensorMap is "
                         f"{TENSORMAP_ALIGN}-byte aligned")
    if not isinstance(entry.get("offset"), int) or entry["offset"] % TENSORMAP_ALIGN:
        raise ValueError(f"{where}: offset {entry.get('offset')} is not a multiple of "
                         f"{TENSORMAP_ALIGN} (a CUtensorMap is {TENSORMAP_ALIGN}-byte aligned)")
    t = entry.get("tensormap")
    if not isinstance(t, dict):
        raise ValueError(f"{where}: no \"tensormap\" record (dims, box, element_bytes, swizzle)")
    dims, box = t.get("dims"), t.get("box")
    if not isinstance(dims, list) or not 1 <= len(dims) <= 5 or \
            sorted(dims) != list(range(len(dims))):
        raise ValueError(f"{where}: dims {dims} is not a permutation of the tensor's "
                         "dimensions (rank 1..5)")
    if not isinstance(box, list) or len(box) != len(dims):
        raise ValueError(f"{where}: box {box} needs one entry per map dimension ({len(dims)})")
    eb, swizzle = t.get("element_bytes"), t.get("swizzle", 0)
    if eb not in TENSORMAP_ELEMENT_BYTES:
        raise ValueError(f"{where}: element_bytes {eb}, the launcher encodes 1 or 2")
    if swizzle not in TENSORMAP_SWIZZLES:
        raise ValueError(f"{where}: swizzle {swizzle} is not one of "
                         f"{', '.join(map(str, TENSORMAP_SWIZZLES))}")
    if not all(isinstance(b, int) and 1 <= b <= TENSORMAP_MAX_BOX for b in box):
        raise ValueError(f"{where}: box {box}: every box dimension must be 1..{TENSORMAP_MAX_BOX}")
    row = box[0] * eb
    if row % 16:
        raise ValueError(f"{where}: box {box}: the innermost box dimension is {row} bytes, "
                         "not a multiple of 16")
    if swizzle and row > swizzle:
        raise ValueError(f"{where}: box {box}: the innermost box dimension is {row} bytes, "
                         f"more than the {swizzle}-byte swizzle")
    return op


def operand_parts(manifest):
    """(operand, part, index, entry) of every kernel argument of a manifest,
    in ABI order; part is pointer, dim, stride, offset or tensormap. An entry
    is a tensor map by its kind ("tensormap"; operand: the tensor it maps,
    tensormap_operand), never by its name alone."""
    out = []
    for a in manifest["args"]:
        if a.get("kind") == TENSORMAP_KIND:
            out.append((tensormap_operand(a), "tensormap", 0, a))
            continue
        if a["name"].endswith(TENSORMAP_SUFFIX):
            raise ValueError(f"manifest argument {a['name']!r} is named as a tensor map but "
                             f"its kind is {a.get('kind')!r}, not {TENSORMAP_KIND!r}")
        m = _ARG.match(a["name"])
        if not m:
            raise ValueError(f"manifest argument {a['name']!r} is not NAME[_dimN|_strideN|_offset]")
        part = "pointer" if not (m.group("part") or m.group("off")) else (
            m.group("part") or "offset")
        out.append((m.group("op"), part, int(m.group("n") or 0), a))
    return out


def refuse_tensormaps(parts, launcher):
    """Raises ValueError if any argument is a CUDA tensor map: `launcher`
    (e.g. "the HIP launcher") has no way to pass one."""
    for _, part, _, entry in parts:
        if part == "tensormap":
            raise ValueError(f"argument {entry['name']}: a CUDA tensor map (kind "
                             f"{TENSORMAP_KIND}, an sm_90a TMA kernel's); {launcher} "
                             "passes none (only fmha_mlir.cuda encodes tensor maps)")


def argument_values(parts, bufs, tensormap=None):
    """The value of every argument, sizes and strides in elements. An operand
    with a NAME_offset argument gets its storage's start and its storage
    offset (as fmha-hip-run passes the descale views of one allocation);
    any other gets its first element's address. A tensor map argument is
    ("tensormap", tensormap(entry, buffer)); without `tensormap` (a launcher
    that cannot pass one) it raises ValueError."""
    with_offset = {op for op, part, _, _ in parts if part == "offset"}
    values = []
    for op, part, n, entry in parts:
        b = bufs[op]
        if part == "pointer":
            base = b.ptr - b.offset * b.itemsize if op in with_offset else b.ptr
            values.append(("pointer", base))
        elif part == "dim":
            values.append(("i64", b.shape[n]))
        elif part == "stride":
            values.append(("i64", b.strides[n]))
        elif part == "tensormap":
            if tensormap is None:
                refuse_tensormaps([(op, part, n, entry)], "this launcher")
            values.append(("tensormap", tensormap(entry, b)))
        else:
            values.append(("i64", b.offset))
    return values


def grid(manifest, qo_lens=None, max_qo_len=None, batch=None):
    """The manifest's grid: ceil(max qo_len / block_m) x the manifest's y
    (num_qo_heads, or num_qo_heads / 2 for sm_90a's warp-specialized kernel,
    two heads a workgroup) x batch (docs/ABI.md), from the query lengths or
    from their maximum and the batch (no device-to-host read of qo_indptr).
    max_qo_len and batch may be upper bounds: the extra workgroups return at
    once, so the grid of the largest batch serves a launch captured once in
    a CUDA / HIP graph. y is exact: a larger y would run heads past the
    tensors."""
    if "config" in manifest:
        block_m = manifest["config"]["block_m"]
    else:  # manifests before the config was written: the grid's formula
        block_m = int(re.match(r"ceil\(max_qo_len / (\d+)\)", manifest["grid"]["x"]).group(1))
    if qo_lens is not None:
        max_qo_len = max(qo_lens) if len(qo_lens) else 0
        batch = len(qo_lens)
    if max_qo_len is None or batch is None:
        raise ValueError("the grid needs qo_lens, or max_qo_len and batch")
    heads = manifest["request"]["num_qo_heads"]
    y = manifest.get("grid", {}).get("y", "num_qo_heads")
    m = re.fullmatch(r"num_qo_heads(?: / (\d+))?", y.strip())
    if not m:
        raise ValueError(f"the manifest's grid y is '{y}': expected num_qo_heads or "
                         "num_qo_heads / N")
    per = int(m.group(1) or 1)
    if heads % per:
        raise ValueError(f"the manifest's grid y is '{y}' for {heads} query heads")
    return (-(-int(max_qo_len) // block_m), heads // per, int(batch))
