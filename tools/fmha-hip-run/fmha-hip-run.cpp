//===- fmha-hip-run.cpp - launch a compiled kernel through HIP, check it --===//
//
// fmha-hip-run NAME.json [--hsaco FILE] [--device N]
//   reads the manifest `fmha-compile -o NAME` wrote next to NAME.hsaco, makes
//   the request's inputs with the reference library, loads HIP at run time
//   (dlopen of libamdhip64.so, so no ROCm is needed to build this tool),
//   launches the kernel as docs/ABI.md describes and compares the output with
//   the double-precision oracle (SPEC section 6).
// Everything that needs no GPU (manifest, code object header, request, inputs,
// kernarg layout) is checked before HIP is loaded.
// Exit: 0 pass, 1 SPEC section 6 not met, 2 invalid manifest, code object or
// request, 3 no HIP runtime or device, or a HIP call failed.
//
//===----------------------------------------------------------------------===//
#include "../common/CombinedKV.h"
#include "../common/KernelManifest.h"
#include "../common/ToolMain.h"
#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Oracle.h"
#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Problem.h"

#include "fmha/Version.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace cl = llvm::cl;
namespace mjson = ::fmha::minijson;
using namespace fmha_tools::manifest;
namespace ref = ::fmha::ref;
using llvm::StringRef;

static cl::OptionCategory category("fmha-hip-run options");
static cl::opt<std::string> optManifest(cl::Positional, cl::desc("<NAME.json>"),
                                        cl::init(""), cl::cat(category));
static cl::opt<std::string> optHsaco(
    "hsaco",
    cl::desc("code object (default: the manifest's \"binary\", else NAME.hsaco "
             "next to NAME.json)"),
    cl::value_desc("FILE"), cl::init(""), cl::cat(category));
static cl::opt<int> optDevice("device", cl::desc("HIP device index"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string> optHipLibrary(
    "hip-library",
    cl::desc("load this HIP runtime instead of searching for libamdhip64.so"),
    cl::value_desc("PATH"), cl::init(""), cl::Hidden, cl::cat(category));

namespace {

int fail(int code, const llvm::Twine &msg) {
  llvm::errs() << "fmha-hip-run: " << msg << "\n";
  return code;
}

//===----------------------------------------------------------------------===//
// Code object
//===----------------------------------------------------------------------===//

/// The ELF header checks that need no GPU: an AMDGPU HSA code object for the
/// manifest's chip (when the chip is one this tool knows the e_flags of).
std::string checkCodeObject(StringRef bytes, StringRef chip) {
  namespace ELF = llvm::ELF;
  if (bytes.size() < 64 || !bytes.starts_with(ELF::ElfMagic))
    return "not an ELF file";
  auto u16 = [&](size_t at) {
    return uint16_t(uint8_t(bytes[at]) | uint8_t(bytes[at + 1]) << 8);
  };
  auto u32 = [&](size_t at) {
    return uint32_t(u16(at)) | uint32_t(u16(at + 2)) << 16;
  };
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return "not a 64-bit little-endian ELF file";
  if (u16(18) != ELF::EM_AMDGPU)
    return "not an AMDGPU code object (e_machine " + std::to_string(u16(18)) +
           ")";
  if (uint8_t(bytes[ELF::EI_OSABI]) != ELF::ELFOSABI_AMDGPU_HSA)
    return "not an HSA code object (OS/ABI " +
           std::to_string(uint8_t(bytes[ELF::EI_OSABI])) + ")";
  struct Mach {
    const char *chip;
    unsigned mach;
  } known[] = {{"gfx942", ELF::EF_AMDGPU_MACH_AMDGCN_GFX942},
               {"gfx950", ELF::EF_AMDGPU_MACH_AMDGCN_GFX950}};
  unsigned mach = u32(48) & ELF::EF_AMDGPU_MACH;
  const char *want = nullptr, *have = nullptr;
  for (const Mach &k : known) {
    if (chip == k.chip)
      want = k.chip;
    if (mach == k.mach)
      have = k.chip;
  }
  if (want && (!have || StringRef(have) != want))
    return "the code object is for " +
           (have ? std::string(have)
                 : "EF_AMDGPU_MACH 0x" + llvm::utohexstr(mach, true)) +
           ", the manifest says " + chip.str();
  return "";
}

//===----------------------------------------------------------------------===//
// Tensors and the kernarg buffer
//===----------------------------------------------------------------------===//

struct Tensor {
  std::string name;
  const void *host = nullptr; ///< bytes to upload (outputs: poisoned)
  size_t bytes = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides = {}; ///< in elements; empty: dense row-major
  int64_t offset = 0; ///< element 0, in elements from the pointer
  void *dev = nullptr;
  bool used = false; ///< passed as a pointer argument

  int64_t stride(size_t d) const {
    if (!strides.empty())
      return strides[d];
    int64_t s = 1;
    for (size_t i = d + 1; i < shape.size(); ++i)
      s *= shape[i];
    return s;
  }
};


//===----------------------------------------------------------------------===//
// HIP, loaded at run time
//===----------------------------------------------------------------------===//

/// The HIP entry points used, declared here so no ROCm header is needed.
/// hipError_t is an int (0: hipSuccess); modules, functions and streams are
/// opaque pointers.
struct Hip {
  using Module = void *;
  using Function = void *;
  int (*init)(unsigned) = nullptr;
  int (*getDeviceCount)(int *) = nullptr;
  int (*setDevice)(int) = nullptr;
  int (*moduleLoadData)(Module *, const void *) = nullptr;
  int (*moduleGetFunction)(Function *, Module, const char *) = nullptr;
  int (*malloc)(void **, size_t) = nullptr;
  int (*memcpy)(void *, const void *, size_t, int) = nullptr;
  int (*moduleLaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, unsigned, void *, void **,
                            void **) = nullptr;
  int (*deviceSynchronize)() = nullptr;
  int (*free)(void *) = nullptr;
  const char *(*getErrorString)(int) = nullptr;
  int (*moduleUnload)(Module) = nullptr; ///< optional

  static constexpr int kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2;

  std::string error(int e) const {
    const char *s = getErrorString ? getErrorString(e) : nullptr;
    return std::string(s ? s : "unknown HIP error") + " (" + std::to_string(e) +
           ")";
  }
};

/// dlopens the runtime; on failure `why` holds the first dlerror().
void *openHipLibrary(std::string &name, std::string &why) {
  std::vector<std::string> candidates;
  if (!optHipLibrary.empty()) {
    candidates.push_back(optHipLibrary);
  } else {
    candidates = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"};
    if (const char *rocm = std::getenv("ROCM_PATH"))
      candidates.push_back(std::string(rocm) + "/lib/libamdhip64.so");
    candidates.push_back("/opt/rocm/lib/libamdhip64.so");
  }
  name = candidates.front();
  for (const std::string &c : candidates) {
    if (void *lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      name = c;
      return lib;
    }
    if (why.empty())
      if (const char *e = dlerror())
        why = e;
  }
  return nullptr;
}

/// "" or the name of the first missing symbol.
std::string resolveHip(void *lib, Hip &h) {
  std::string missing;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    if (!fn && missing.empty())
      missing = name;
  };
  get(h.init, "hipInit");
  get(h.getDeviceCount, "hipGetDeviceCount");
  get(h.setDevice, "hipSetDevice");
  get(h.moduleLoadData, "hipModuleLoadData");
  get(h.moduleGetFunction, "hipModuleGetFunction");
  get(h.malloc, "hipMalloc");
  get(h.memcpy, "hipMemcpy");
  get(h.moduleLaunchKernel, "hipModuleLaunchKernel");
  get(h.deviceSynchronize, "hipDeviceSynchronize");
  get(h.free, "hipFree");
  get(h.getErrorString, "hipGetErrorString");
  std::string required = missing;
  get(h.moduleUnload, "hipModuleUnload");
  return required;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  fmha_tools::setUpToolErrors("fmha-hip-run");
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "fmha-mlir " << FMHA_VERSION << " (LLVM " << LLVM_VERSION_STRING << ")\n";
  });
  // Usage errors exit 2 (cl's default, 1, means "fail" here).
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "fmha-hip-run: launch a kernel fmha-compile wrote, through HIP, and "
          "check it against the oracle\n",
          &llvm::errs()))
    return 2;
  if (optManifest.empty())
    return fail(2, "usage: fmha-hip-run NAME.json [--hsaco FILE] [--device N]");

  // Manifest.
  auto file = llvm::MemoryBuffer::getFile(optManifest, /*IsText=*/true);
  if (!file)
    return fail(2, "cannot read manifest " + optManifest + ": " +
                       file.getError().message());
  mjson::Value root;
  std::string perr;
  if (!mjson::parse(std::string((*file)->getBuffer()), root, perr))
    return fail(2, "malformed manifest " + optManifest + ": " + perr);
  Manifest m;
  Rules rules;
  rules.tool = "fmha-hip-run";
  if (std::string err = readManifest(root, m, rules); !err.empty())
    return fail(2, "invalid manifest " + optManifest + ": " + err);
  const ref::Request &req = m.req;
  if (std::string err = req.validate(); !err.empty())
    return fail(2, "invalid manifest " + optManifest +
                       ": invalid request: " + err);
  // The inputs, the references and the output fit the host (exit 3: this
  // machine's limit, not an invalid request).
  if (std::string err = ref::checkHostMemory(req, ref::availableHostBytes());
      !err.empty())
    return fail(3, err);

  if (std::string err = checkPointerArgs(m); !err.empty())
    return fail(2, "invalid manifest " + optManifest + ": " + err);

  // The grid: grid_for_request, checked against the formula where it parses.
  for (int i = 0; i < 3; ++i) {
    if (m.gridFormula[i].empty())
      continue;
    std::optional<double> v = Formula(m.gridFormula[i], req).eval();
    if (v && *v != double(m.grid[i]))
      return fail(2, "invalid manifest " + optManifest +
                         ": \"grid_for_request\"[" + std::to_string(i) +
                         "] is " + std::to_string(m.grid[i]) +
                         " but \"grid\" says " + m.gridFormula[i] + " = " +
                         std::to_string(int64_t(*v)) + " for the request");
  }

  // Code object: the header says whether it can be for this kernel at all.
  std::string hsacoPath = optHsaco;
  if (hsacoPath.empty()) {
    llvm::SmallString<256> p;
    if (m.binary.empty()) {
      p = StringRef(optManifest);
      llvm::sys::path::replace_extension(p, "hsaco");
    } else if (llvm::sys::path::is_absolute(m.binary)) {
      p = m.binary;
    } else {
      p = llvm::sys::path::parent_path(optManifest);
      llvm::sys::path::append(p, m.binary);
    }
    hsacoPath = p.str().str();
  }
  auto hsaco = llvm::MemoryBuffer::getFile(hsacoPath, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!hsaco)
    return fail(2, "cannot read code object " + hsacoPath + ": " +
                       hsaco.getError().message());
  if (std::string err = checkCodeObject((*hsaco)->getBuffer(), m.chip);
      !err.empty())
    return fail(2, "code object " + hsacoPath + ": " + err);

  // Inputs, as fmha-run makes them, and the run-time page-table check.
  ref::Inputs in = ref::makeInputs(req);
  if (std::string err = ref::validatePageTable(in.table, req.table);
      !err.empty())
    return fail(2, "invalid page table: " + err);
  const ref::PageTable &pt = in.table;
  int64_t totalQ = req.totalQ(), hq = req.num_qo_heads, hkv = req.num_kv_heads,
          d = req.head_dim, dv = req.headDimV(), p = req.page_size,
          n = in.nPages(), b = req.batch();
  std::vector<uint8_t> out(totalQ * hq * dv * ref::dtypeSize(req.out_dtype));
  std::vector<float> lse(totalQ * hq);
  ref::poisonFill(req.out_dtype, out.data(), totalQ * hq * dv);
  ref::poisonFill(ref::DType::F32, lse.data(), lse.size());
  // Descales. kv_blockscale with the layout passed (k/v_descale offset and
  // both strides in the args): aiter's interleaved [N_pages, Hkv, 2] buffer,
  // as fmha-run passes it (one allocation; K at offset 0, V at 1, strides
  // {2*Hkv, 2}). Otherwise dense copies: [N_pages, Hkv], or [1] per tensor.
  bool blockscale = req.quant == ref::QuantMode::KVBlockscale;
  auto layoutArgs = [&](StringRef t) {
    return llvm::count_if(m.args, [&](const Arg &a) {
      return a.tensor == t &&
             (a.field == Field::Offset || a.field == Field::Stride);
    });
  };
  bool interleaved = blockscale && layoutArgs("k_descale") == 3 &&
                     layoutArgs("v_descale") == 3;
  std::vector<float> kd(blockscale ? n * hkv : 1), vd(kd.size());
  for (int64_t pg = 0; pg < (blockscale ? n : 1); ++pg)
    for (int64_t h = 0; h < (blockscale ? hkv : 1); ++h) {
      kd[pg * (blockscale ? hkv : 1) + h] = in.kDescale(pg, h);
      vd[pg * (blockscale ? hkv : 1) + h] = in.vDescale(pg, h);
    }
  float qd = in.q_descale;
  std::array<int32_t, 4> scalars = req.runtimeScalars();
  bool nhd = req.layout == ref::KVLayout::NHD;
  auto cacheShape = [&](int64_t dim) {
    return nhd ? std::vector<int64_t>{n, p, hkv, dim}
               : std::vector<int64_t>{n, hkv, p, dim};
  };
  auto i32 = [](const char *name, const std::vector<int32_t> &v,
                std::vector<int64_t> shape) {
    return Tensor{name, v.data(), v.size() * 4, std::move(shape)};
  };
  std::vector<int64_t> descaleShape =
      blockscale ? std::vector<int64_t>{n, hkv} : std::vector<int64_t>{1};
  std::vector<Tensor> tensors = {
      {"q", in.q.data(), in.q.size(), {totalQ, hq, d}},
      {"k_cache", in.k_cache.data(), in.k_cache.size(), cacheShape(d)},
      {"v_cache", in.v_cache.data(), in.v_cache.size(), cacheShape(dv)},
      i32("qo_indptr", in.qo_indptr, {b + 1}),
      i32("kv_indptr", pt.kv_indptr, {int64_t(pt.kv_indptr.size())}),
      i32("kv_page_indices", pt.kv_page_indices,
          {int64_t(pt.kv_page_indices.size())}),
      i32("kv_last_page_len", pt.kv_last_page_len, {b}),
      i32("block_table", pt.block_table, {b, pt.max_pages}),
      i32("kv_seqlen", pt.kv_seqlen, {b}),
      {"q_descale", &qd, 4, {1}},
      {"k_descale", kd.data(), kd.size() * 4, descaleShape},
      {"v_descale", vd.data(), vd.size() * 4, descaleShape},
      {"runtime_scalars", scalars.data(), 16, {4}},
      {"out", out.data(), out.size(), {totalQ, hq, dv}},
      {"lse", lse.data(), lse.size() * 4, {totalQ, hq}}};
  if (interleaved)
    for (Tensor &t : tensors) {
      if (t.name != "k_descale" && t.name != "v_descale")
        continue;
      const ref::DescaleLayout &l =
          t.name == "k_descale" ? in.k_descale : in.v_descale;
      t.host = in.kv_descale.data();
      t.bytes = in.kv_descale.size() * 4;
      t.offset = l.offset;
      t.strides = {l.page_stride, l.head_stride};
    }
  // A kv_strided kernel: K and V as views of one combined cache.
  std::vector<uint8_t> combined;
  fmha_tools::useCombinedKV(in, tensors, combined);
  auto find = [&](StringRef name) -> Tensor & {
    for (Tensor &t : tensors)
      if (t.name == name)
        return t;
    llvm_unreachable("every canonical tensor has an entry");
  };

  // Kernarg values that need no device: sizes, strides and offsets (in
  // elements), checked against ranks.
  std::vector<uint8_t> kernarg(m.kernargSize, 0);
  for (const Arg &a : m.args) {
    Tensor &t = find(a.tensor);
    if (a.field == Field::Pointer) {
      t.used = true;
      continue;
    }
    if (a.field != Field::Offset && a.index >= int64_t(t.shape.size()))
      return fail(2, "invalid manifest " + optManifest + ": '" + a.name +
                         "': " + a.tensor + " has rank " +
                         std::to_string(t.shape.size()));
    int64_t v = a.field == Field::Dim      ? t.shape[a.index]
                : a.field == Field::Stride ? t.stride(a.index)
                                           : t.offset;
    if (a.kind == "i64") {
      std::memcpy(&kernarg[a.offset], &v, 8);
    } else {
      if (v > INT32_MAX)
        return fail(2, "'" + a.name + "' = " + std::to_string(v) +
                           " does not fit its i32 argument");
      int32_t v32 = int32_t(v);
      std::memcpy(&kernarg[a.offset], &v32, 4);
    }
  }

  // HIP.
  std::string libName, why;
  void *lib = openHipLibrary(libName, why);
  if (!lib) {
    fail(3, "no HIP runtime found (" + libName + "); nothing was launched");
    if (!why.empty())
      llvm::errs() << "fmha-hip-run: note: " << why << "\n";
    return 3;
  }
  Hip hip;
  if (std::string miss = resolveHip(lib, hip); !miss.empty())
    return fail(3, libName + " has no " + miss + "; nothing was launched");
  if (int e = hip.init(0))
    return fail(3, "no HIP device (hipInit: " + hip.error(e) +
                       "); nothing was launched");
  int count = 0;
  if (int e = hip.getDeviceCount(&count))
    return fail(3, "no HIP device (hipGetDeviceCount: " + hip.error(e) +
                       "); nothing was launched");
  if (count == 0)
    return fail(
        3,
        "no HIP device (hipGetDeviceCount: 0 devices); nothing was launched");
  if (optDevice < 0 || optDevice >= count)
    return fail(2, "--device " + std::to_string(optDevice) +
                       " is not a device (" + std::to_string(count) +
                       " found)");
  auto hipFailed = [&](const char *call, int e, const std::string &hint = "") {
    return fail(3, std::string(call) + " failed: " + hip.error(e) + hint);
  };
  if (int e = hip.setDevice(optDevice))
    return hipFailed("hipSetDevice", e);
  Hip::Module module = nullptr;
  if (int e = hip.moduleLoadData(&module, (*hsaco)->getBufferStart()))
    return hipFailed("hipModuleLoadData", e,
                     " (the code object is for " +
                         (m.target.empty() ? m.chip : m.target) +
                         ", code object v6, which needs ROCm 6.3 or later; is "
                         "device " +
                         std::to_string(optDevice) + " that chip?)");
  Hip::Function fn = nullptr;
  if (int e = hip.moduleGetFunction(&fn, module, m.kernel.c_str()))
    return hipFailed("hipModuleGetFunction", e, " (kernel '" + m.kernel + "')");

  // Upload the operands (outputs poisoned) and put their addresses in place.
  // Tensors that view one host buffer (the interleaved descales) share one
  // allocation.
  for (Tensor &t : tensors) {
    if (!t.used)
      continue;
    auto same = llvm::find_if(
        tensors, [&](const Tensor &o) { return o.dev && o.host == t.host; });
    if (same != tensors.end()) {
      t.dev = same->dev;
      continue;
    }
    // hipMalloc(0) may give a null pointer; an empty tensor (no pages at
    // all) still gets an address, which the kernel never reads.
    if (int e = hip.malloc(&t.dev, t.bytes ? t.bytes : 4))
      return hipFailed("hipMalloc", e,
                       " (" + t.name + ", " + std::to_string(t.bytes) +
                           " bytes)");
    if (t.bytes)
      if (int e = hip.memcpy(t.dev, t.host, t.bytes, Hip::kMemcpyHostToDevice))
        return hipFailed("hipMemcpy to the device", e, " (" + t.name + ")");
  }
  for (const Arg &a : m.args)
    if (a.field == Field::Pointer)
      std::memcpy(&kernarg[a.offset], &find(a.tensor).dev, 8);

  // One launch; the kernarg buffer goes through `extra` (docs/ABI.md). LDS is
  // static (group_segment_fixed_size), so no dynamic shared memory.
  size_t kernargBytes = kernarg.size();
  void *extra[] = {reinterpret_cast<void *>(1), kernarg.data(),
                   reinterpret_cast<void *>(2), &kernargBytes,
                   reinterpret_cast<void *>(3)};
  double ms = 0;
  if (m.grid[0] && m.grid[1] && m.grid[2]) {
    auto t0 = std::chrono::steady_clock::now();
    if (int e = hip.moduleLaunchKernel(
            fn, m.grid[0], m.grid[1], m.grid[2], m.workgroup[0], m.workgroup[1],
            m.workgroup[2], 0, nullptr, nullptr, extra))
      return hipFailed("hipModuleLaunchKernel", e);
    if (int e = hip.deviceSynchronize())
      return hipFailed("the kernel (hipDeviceSynchronize)", e);
    ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
             .count();
  }
  Tensor &o = find("out"), &l = find("lse");
  if (!out.empty())
    if (int e =
            hip.memcpy(out.data(), o.dev, out.size(), Hip::kMemcpyDeviceToHost))
      return hipFailed("hipMemcpy from the device", e, " (out)");
  if (l.used && !lse.empty())
    if (int e = hip.memcpy(lse.data(), l.dev, lse.size() * 4,
                           Hip::kMemcpyDeviceToHost))
      return hipFailed("hipMemcpy from the device", e, " (lse)");
  for (size_t i = 0; i < tensors.size(); ++i)
    if (void *dev = tensors[i].dev;
        dev && std::none_of(tensors.begin(), tensors.begin() + i,
                            [&](const Tensor &o) { return o.dev == dev; }))
      hip.free(dev);
  if (hip.moduleUnload)
    hip.moduleUnload(module);

  // Judged on the Q the kernel multiplies (config q_scale = per_tile).
  ref::CompareResult vs = ref::judgeAgainstOracle(
      in, out.data(), req.return_lse ? lse.data() : nullptr,
      m.config.qScale == "per_tile" ? m.config.blockM : 0);
  llvm::outs() << (vs.pass ? "PASS" : "FAIL") << " " << req.str() << " | "
               << vs.summary() << " | " << (m.chip.empty() ? "?" : m.chip)
               << " device=" << optDevice << " grid=[" << m.grid[0] << ","
               << m.grid[1] << "," << m.grid[2] << "] block=[" << m.workgroup[0]
               << "," << m.workgroup[1] << "," << m.workgroup[2]
               << "] time_ms=" << llvm::format("%.3f", ms) << "\n";
  if (std::string err = fmha_tools::stdoutError(); !err.empty())
    return fail(3, err);
  return vs.pass ? 0 : 1;
}
