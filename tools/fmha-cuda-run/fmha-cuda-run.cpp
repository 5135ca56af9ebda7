//===- fmha-cuda-run.cpp - launch a compiled PTX kernel through CUDA, check -===//
//
// fmha-cuda-run NAME.json [--ptx FILE] [--device N] [--repeat N] [--json]
//   reads the manifest `fmha-compile -o NAME` wrote next to NAME.ptx, makes
//   the request's inputs with the reference library, loads the CUDA driver at
//   run time (dlopen of libcuda.so.1, so neither the CUDA toolkit nor its
//   headers are needed to build this tool), JIT-loads the PTX, launches the
//   kernel as the manifest lays out its arguments (docs/ABI.md, the same
//   schema as the AMDGPU manifest; sm_90a TMA kernels also take CUDA tensor
//   maps by value, encoded here) and compares the output with the
//   double-precision oracle and with the emulating reference of the kernel's
//   tile config (SPEC section 6). --repeat N times N more launches with CUDA
//   events (after 3 warm-ups) and reports the median and TFLOPS.
//
// It links the reference library only: no MLIR and no LLVM, so it builds with
// -DFMHA_ENABLE_MLIR=OFF on a machine with only a C++17 compiler and CMake
// (the JSON reader is tools/common/MiniJson.h; the manifest reader, shared with fmha-hip-run, tools/common/KernelManifest.h).
//
// Everything that needs no GPU (manifest, PTX text, request, inputs, kernarg
// layout) is checked before the driver is loaded.
// Exit: 0 pass, 1 SPEC section 6 not met, 2 invalid manifest, PTX, request
// or usage, 3 no CUDA driver or device, or a CUDA call failed.
//
//===----------------------------------------------------------------------===//
#include "fmha/Version.h"
#include "../common/AtomicOutput.h"
#include "../common/CombinedKV.h"
#include "../common/KernelManifest.h"

#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Emulate.h"
#include "fmha/Reference/Mutate.h"
#include "fmha/Reference/Oracle.h"
#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Problem.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <array>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace json = ::fmha::minijson;
namespace ref = ::fmha::ref;
using namespace fmha_tools::manifest;

namespace {
constexpr int kWarmups = 3;

const char *kUsage =
    "usage: fmha-cuda-run NAME.json [--ptx FILE] [--device N] [--repeat N] "
    "[--json] [--dump-out FILE]";

//===----------------------------------------------------------------------===//
// Command line and diagnostics
//===----------------------------------------------------------------------===//

struct Options {
  std::string manifest, ptx, cudaLibrary;
  /// --dump-out FILE: the output of the checked launch as raw bytes of the
  /// out type (and FILE.lse, f32, when the kernel returns lse), to compare
  /// with another run of the same kernel and inputs (the lane emulator's).
  std::string dumpOut;
  int device = 0;
  int64_t repeat = 0;
  bool json = false;
  bool noCheck = false; ///< time only: no oracle, no emulation
  /// Test hook (--mutate-descales=KIND, not in --help): the kernel gets the
  /// descales a kernel with that descale bug would read; the references keep
  /// the true ones.
  ref::DescaleMutation mutation = ref::DescaleMutation::None;
};
Options opt;

/// Prints "fmha-cuda-run: msg" on stderr; with --json also one JSON object
/// on stdout, so a script reading stdout gets a record of every run.
int fail(int code, const std::string &msg) {
  std::fprintf(stderr, "fmha-cuda-run: %s\n", msg.c_str());
  if (opt.json)
    std::printf("{\"tool\": \"fmha-cuda-run\", \"manifest\": %s, \"pass\": "
                "false, \"exit\": %d, \"error\": %s}\n",
                json::quote(opt.manifest).c_str(), code,
                json::quote(msg).c_str());
  return code;
}

/// "" when the command line is usable, else the problem.
std::string parseArgs(int argc, char **argv, bool &help) {
  help = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-h" || a == "--help" || a == "-help") {
      help = true;
      return "";
    }
    if (a == "--version") {
      std::printf("fmha-mlir %s (fmha-cuda-run)\n", FMHA_VERSION);
      std::exit(0);
    }
    if (a.size() > 1 && a[0] == '-') {
      // --name VALUE or --name=VALUE.
      std::string_view name = a, value;
      bool inlineValue = false;
      if (size_t eq = a.find('='); eq != std::string_view::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        inlineValue = true;
      }
      if (name == "--json" || name == "-json") {
        if (inlineValue)
          return "--json takes no value";
        opt.json = true;
        continue;
      }
      if (name == "--no-check" || name == "-no-check") {
        if (inlineValue)
          return "--no-check takes no value";
        opt.noCheck = true;
        continue;
      }
      bool known = name == "--ptx" || name == "-ptx" || name == "--device" ||
                   name == "-device" || name == "--repeat" ||
                   name == "-repeat" || name == "--cuda-library" ||
                   name == "-cuda-library" || name == "--mutate-descales" ||
                   name == "-mutate-descales" || name == "--dump-out" ||
                   name == "-dump-out";
      if (!known)
        return "unknown option " + std::string(a);
      if (!inlineValue) {
        if (i + 1 >= argc)
          return std::string(name) + " needs a value";
        value = argv[++i];
      }
      std::string_view n = name.substr(name[1] == '-' ? 2 : 1);
      if (n == "ptx") {
        opt.ptx = std::string(value);
      } else if (n == "mutate-descales") {
        std::optional<ref::DescaleMutation> k = ref::parseDescaleMutation(value);
        if (!k)
          return "--mutate-descales must be none, swap-kv, logical-page, "
                 "wrong-head, per-tile or global, got '" +
                 std::string(value) + "'";
        opt.mutation = *k;
      } else if (n == "dump-out") {
        opt.dumpOut = std::string(value);
      } else if (n == "cuda-library") {
        opt.cudaLibrary = std::string(value);
      } else {
        int64_t v;
        if (!parseInt(value, v))
          return std::string(name) + " needs an integer, got '" +
                 std::string(value) + "'";
        if (n == "device") {
          if (v < 0 || v > INT_MAX)
            return "--device must be >= 0, got " + std::to_string(v);
          opt.device = int(v);
        } else {
          if (v < 0 || v > 1000000)
            return "--repeat must be in [0, 1000000], got " +
                   std::to_string(v);
          opt.repeat = v;
        }
      }
      continue;
    }
    if (!opt.manifest.empty())
      return "more than one manifest given ('" + opt.manifest + "', '" +
             std::string(a) + "')";
    opt.manifest = std::string(a);
  }
  if (opt.manifest.empty())
    return "no manifest given";
  return "";
}

bool readFile(const std::string &path, std::string &out, std::string &why) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    why = std::strerror(errno);
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (f.bad()) {
    why = "read error";
    return false;
  }
  return true;
}

std::string fmt(const char *f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
/// A JSON number (null for NaN/inf).
std::string jnum(double v) {
  if (!std::isfinite(v))
    return "null";
  return fmt("%.9g", v);
}


//===----------------------------------------------------------------------===//
// The kernel image: PTX text (or a cubin)
//===----------------------------------------------------------------------===//

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

/// PTX text with its comments (// to the end of the line, /* ... */) blanked
/// out. PTX has no string literals, so no quoting needs care.
std::string stripComments(const std::string &s) {
  std::string o = s;
  for (size_t i = 0; i + 1 < o.size(); ++i) {
    if (o[i] == '/' && o[i + 1] == '/') {
      while (i < o.size() && o[i] != '\n')
        o[i++] = ' ';
    } else if (o[i] == '/' && o[i + 1] == '*') {
      size_t e = o.find("*/", i + 2);
      e = e == std::string::npos ? o.size() : e + 2;
      for (; i < e; ++i)
        if (o[i] != '\n')
          o[i] = ' ';
      --i;
    }
  }
  return o;
}

/// The checks that need no GPU: PTX text with a .version, the manifest's
/// kernel as an .entry, and a .target of the manifest's chip. A cubin (ELF
/// with e_machine EM_CUDA) is accepted as it is. `isPtx` says which it is.
std::string checkImage(const std::string &img, const Manifest &m,
                       bool &isPtx) {
  isPtx = false;
  if (img.empty())
    return "the file is empty";
  bool elf = img.size() >= 4 && std::memcmp(img.data(), "\x7f" "ELF", 4) == 0;
  if (!m.binaryFormat.empty() && elf != (m.binaryFormat == "cubin"))
    return std::string(elf ? "an ELF file" : "not an ELF file") +
           ", but the manifest's \"binary_format\" is " + m.binaryFormat;
  if (elf) {
    if (img.size() < 20)
      return "a truncated ELF file";
    unsigned mach = uint8_t(img[18]) | unsigned(uint8_t(img[19])) << 8;
    if (mach != 190) // EM_CUDA
      return "an ELF file for another machine (e_machine " +
             std::to_string(mach) + "), not PTX text or a CUDA cubin";
    return "";
  }
  if (size_t nul = img.find('\0'); nul != std::string::npos)
    return "not PTX text (a NUL byte at offset " + std::to_string(nul) + ")";
  // Directives are looked for outside comments.
  const std::string text = stripComments(img);
  if (text.find(".version") == std::string::npos)
    return "not PTX text (no .version directive)";
  isPtx = true;
  // .entry NAME(
  bool found = false;
  for (size_t at = text.find(".entry"); at != std::string::npos && !found;
       at = text.find(".entry", at + 1)) {
    size_t p = at + 6;
    if (p >= text.size() || !std::isspace(static_cast<unsigned char>(text[p])))
      continue;
    while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p])))
      ++p;
    if (text.compare(p, m.kernel.size(), m.kernel) == 0 &&
        (p + m.kernel.size() >= text.size() ||
         !isIdentChar(text[p + m.kernel.size()])))
      found = true;
  }
  if (!found)
    return "no kernel '" + m.kernel + "' (no \".entry " + m.kernel + "\")";
  // .target sm_NN[a], compared by the number with the manifest's chip.
  if (!m.chip.empty()) {
    size_t at = text.find(".target");
    if (at != std::string::npos) {
      size_t p = at + 7;
      while (p < text.size() && (text[p] == ' ' || text[p] == '\t'))
        ++p;
      size_t e = p;
      while (e < text.size() && isIdentChar(text[e]))
        ++e;
      std::string target = text.substr(p, e - p);
      auto digits = [](const std::string &s) {
        size_t b = s.find_first_of("0123456789");
        if (b == std::string::npos)
          return std::string();
        size_t e = s.find_first_not_of("0123456789", b);
        return s.substr(b, e == std::string::npos ? e : e - b);
      };
      if (target.compare(0, 3, "sm_") == 0 &&
          digits(target) != digits(m.chip))
        return "the PTX is for " + target + " (.target), the manifest says " +
               m.chip;
    }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Tensors and the kernarg buffer
//===----------------------------------------------------------------------===//

using CUdeviceptr = unsigned long long;

struct Tensor {
  std::string name;
  const void *host = nullptr; ///< bytes to upload (outputs: poisoned)
  size_t bytes = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides = {}; ///< in elements; empty: dense row-major
  int64_t offset = 0; ///< element 0, in elements from the pointer
  CUdeviceptr dev = 0;
  bool allocated = false;
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


/// The rank of a tensor operand (SPEC section 1).
int64_t tensorRank(std::string_view t, const ref::Request &r) {
  if (t == "q" || t == "out")
    return 3;
  if (t == "k_cache" || t == "v_cache")
    return 4;
  if (t == "block_table" || t == "lse")
    return 2;
  if (t == "k_descale" || t == "v_descale")
    return r.quant == ref::QuantMode::KVBlockscale ? 2 : 1;
  return 1;
}

//===----------------------------------------------------------------------===//
// The CUDA driver, loaded at run time
//===----------------------------------------------------------------------===//

/// The driver entry points used, declared here so no CUDA header is needed.
/// CUresult is an int (0: CUDA_SUCCESS), CUdevice an int, contexts, modules,
/// functions, events and streams opaque pointers, CUdeviceptr 64 bits. The
/// symbols with a _v2 variant are taken by that name, as cuda.h's macros do
/// (the unversioned cuMemAlloc & co. are the 32-bit-pointer legacy ABI).
struct Cuda {
  using Context = void *;
  using Module = void *;
  using Function = void *;
  using Event = void *;
  using Stream = void *;

  int (*init)(unsigned) = nullptr;
  int (*deviceGetCount)(int *) = nullptr;
  int (*deviceGet)(int *, int) = nullptr;
  int (*primaryCtxRetain)(Context *, int) = nullptr;
  int (*ctxSetCurrent)(Context) = nullptr;
  int (*moduleLoadDataEx)(Module *, const void *, unsigned, int *,
                          void **) = nullptr;
  int (*moduleGetFunction)(Function *, Module, const char *) = nullptr;
  int (*memAlloc)(CUdeviceptr *, size_t) = nullptr;
  int (*memFree)(CUdeviceptr) = nullptr;
  int (*memsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  int (*memcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  int (*memcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  int (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, unsigned, Stream, void **,
                      void **) = nullptr;
  int (*ctxSynchronize)() = nullptr;
  int (*eventCreate)(Event *, unsigned) = nullptr;
  int (*eventRecord)(Event, Stream) = nullptr;
  int (*eventSynchronize)(Event) = nullptr;
  int (*eventElapsedTime)(float *, Event, Event) = nullptr;
  int (*eventDestroy)(Event) = nullptr;
  int (*getErrorString)(int, const char **) = nullptr;
  // Optional: only for reports and cleanup.
  int (*getErrorName)(int, const char **) = nullptr;
  int (*driverGetVersion)(int *) = nullptr;
  int (*deviceGetName)(char *, int, int) = nullptr;
  int (*deviceGetAttribute)(int *, int, int) = nullptr;
  int (*funcGetAttribute)(int *, int, Function) = nullptr;
  int (*funcSetAttribute)(Function, int, int) = nullptr;
  int (*moduleUnload)(Module) = nullptr;
  int (*primaryCtxRelease)(int) = nullptr;
  // Optional (CUDA 12): needed only by a kernel with tensormap arguments.
  // (CUtensorMap *, CUtensorMapDataType, rank, globalAddress, globalDim,
  // globalStrides, boxDim, elementStrides, interleave, swizzle, L2
  // promotion, OOB fill); the enums are 32-bit.
  int (*tensorMapEncodeTiled)(void *, int, uint32_t, void *, const uint64_t *,
                              const uint64_t *, const uint32_t *,
                              const uint32_t *, int, int, int, int) = nullptr;

  // cuda.h values.
  static constexpr int kJitInfoLogBuffer = 3, kJitInfoLogBufferSize = 4,
                       kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6,
                       kJitLogVerbose = 12;
  static constexpr int kAttrMaxThreadsPerBlock = 0, kAttrSharedSizeBytes = 1,
                       kAttrLocalSizeBytes = 3, kAttrNumRegs = 4,
                       kAttrMaxDynamicSharedSizeBytes = 8;
  static constexpr int kDevAttrMultiprocessorCount = 16, kDevAttrCcMajor = 75,
                       kDevAttrCcMinor = 76;
  static constexpr int kTensorMapUint8 = 0, kTensorMapUint16 = 1,
                       kTensorMapInterleaveNone = 0,
                       kTensorMapL2Promotion128B = 2, kTensorMapOobFillNone = 0;

  /// "CUDA_ERROR_NAME: description (N)".
  std::string error(int e) const {
    const char *name = nullptr, *desc = nullptr;
    if (getErrorName && getErrorName(e, &name) != 0)
      name = nullptr;
    if (getErrorString && getErrorString(e, &desc) != 0)
      desc = nullptr;
    std::string s;
    if (name)
      s = name;
    if (desc)
      s += (s.empty() ? "" : ": ") + std::string(desc);
    if (s.empty())
      s = "unknown CUDA error";
    return s + " (" + std::to_string(e) + ")";
  }
};

/// dlopens the driver; on failure `why` holds the first dlerror().
void *openCudaLibrary(std::string &name, std::string &why) {
  std::vector<std::string> candidates;
  if (!opt.cudaLibrary.empty())
    candidates.push_back(opt.cudaLibrary);
  else
    candidates = {"libcuda.so.1", "libcuda.so"};
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

/// "" or the name of the first missing required symbol.
std::string resolveCuda(void *lib, Cuda &c) {
  std::string missing;
  auto sym = [&](auto &fn, std::initializer_list<const char *> names,
                 bool required) {
    for (const char *n : names)
      if (void *p = dlsym(lib, n)) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
        return;
      }
    if (required && missing.empty())
      missing = *names.begin();
  };
  sym(c.init, {"cuInit"}, true);
  sym(c.deviceGetCount, {"cuDeviceGetCount"}, true);
  sym(c.deviceGet, {"cuDeviceGet"}, true);
  sym(c.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, true);
  sym(c.ctxSetCurrent, {"cuCtxSetCurrent"}, true);
  sym(c.moduleLoadDataEx, {"cuModuleLoadDataEx"}, true);
  sym(c.moduleGetFunction, {"cuModuleGetFunction"}, true);
  sym(c.memAlloc, {"cuMemAlloc_v2"}, true);
  sym(c.memFree, {"cuMemFree_v2"}, true);
  sym(c.memsetD8, {"cuMemsetD8_v2"}, false);
  sym(c.memcpyHtoD, {"cuMemcpyHtoD_v2"}, true);
  sym(c.memcpyDtoH, {"cuMemcpyDtoH_v2"}, true);
  sym(c.launchKernel, {"cuLaunchKernel"}, true);
  sym(c.ctxSynchronize, {"cuCtxSynchronize"}, true);
  sym(c.eventCreate, {"cuEventCreate"}, true);
  sym(c.eventRecord, {"cuEventRecord"}, true);
  sym(c.eventSynchronize, {"cuEventSynchronize"}, true);
  sym(c.eventElapsedTime, {"cuEventElapsedTime", "cuEventElapsedTime_v2"},
      true);
  sym(c.eventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}, true);
  sym(c.getErrorString, {"cuGetErrorString"}, true);
  sym(c.getErrorName, {"cuGetErrorName"}, false);
  sym(c.driverGetVersion, {"cuDriverGetVersion"}, false);
  sym(c.deviceGetName, {"cuDeviceGetName"}, false);
  sym(c.deviceGetAttribute, {"cuDeviceGetAttribute"}, false);
  sym(c.funcGetAttribute, {"cuFuncGetAttribute"}, false);
  sym(c.funcSetAttribute, {"cuFuncSetAttribute"}, false);
  sym(c.moduleUnload, {"cuModuleUnload"}, false);
  sym(c.primaryCtxRelease,
      {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, false);
  sym(c.tensorMapEncodeTiled, {"cuTensorMapEncodeTiled"}, false);
  return missing;
}

//===----------------------------------------------------------------------===//
// Tensor maps (NVIDIA TMA)
//===----------------------------------------------------------------------===//

/// The arguments of one cuTensorMapEncodeTiled call, but the address: from
/// a "tensormap" argument and its tensor as the launcher lays it out.
struct TensorMapCall {
  const Arg *arg = nullptr;
  uint32_t rank = 0;
  int dataType = 0, swizzle = 0;
  std::array<uint64_t, 5> globalDim{}, globalStrides{}; ///< strides in bytes
  std::array<uint32_t, 5> boxDim{}, elementStrides{1, 1, 1, 1, 1};
  uint64_t offsetBytes = 0; ///< element 0 from the tensor's pointer
};

/// Fills `c` for `a`'s map of tensor `t`; "" or the driver rule
/// (cuTensorMapEncodeTiled's) the map would break. The manifest reader has
/// checked the box and swizzle rules; what depends on the tensor's shape,
/// strides and offset is checked here, before any driver is loaded.
std::string planTensorMap(const Arg &a, const Tensor &t, TensorMapCall &c) {
  const TensorMap &tm = a.tmap;
  c.arg = &a;
  c.rank = uint32_t(tm.dims.size());
  c.dataType =
      tm.elementBytes == 1 ? Cuda::kTensorMapUint8 : Cuda::kTensorMapUint16;
  c.swizzle = tm.swizzle == 0    ? 0
              : tm.swizzle == 32 ? 1
              : tm.swizzle == 64 ? 2
                                 : 3;
  // "globalStrides[1] (k_cache dimension 2)": entry `at` of the driver's
  // array, for map dimension i.
  auto where = [&](const char *what, size_t at, size_t i) {
    return std::string(what) + "[" + std::to_string(at) + "] (" + t.name +
           " dimension " + std::to_string(tm.dims[i]) + ")";
  };
  // The innermost map dimension is contiguous: TMA reads its box rows as
  // runs of bytes.
  if (t.stride(tm.dims[0]) != 1)
    return "map dimension 0 is " + t.name + " dimension " +
           std::to_string(tm.dims[0]) + ", whose stride is " +
           std::to_string(t.stride(tm.dims[0])) +
           " elements: the innermost dimension must have stride 1 "
           "(cuTensorMapEncodeTiled takes no stride for it)";
  for (size_t i = 0; i < c.rank; ++i) {
    int64_t size = t.shape[tm.dims[i]];
    if (size < 1 || uint64_t(size) > (uint64_t(1) << 32))
      return where("globalDim", i, i) + " = " + std::to_string(size) +
             " must be in 1..2^32 (cuTensorMapEncodeTiled's rule)";
    c.globalDim[i] = uint64_t(size);
    c.boxDim[i] = uint32_t(tm.box[i]);
    if (i == 0)
      continue;
    int64_t bytes = t.stride(tm.dims[i]) * tm.elementBytes;
    if (bytes < 0 || bytes % 16 || uint64_t(bytes) >= (uint64_t(1) << 40))
      return where("globalStrides", i - 1, i) + " = " + std::to_string(bytes) +
             " bytes must be a multiple of 16 and below 2^40 "
             "(cuTensorMapEncodeTiled's rule)";
    c.globalStrides[i - 1] = uint64_t(bytes);
  }
  // Device allocations are 256-byte aligned; the storage offset decides
  // whether the address is 16-byte aligned (checked again once allocated).
  int64_t offset = t.offset * tm.elementBytes;
  if (offset % 16)
    return "globalAddress, " + t.name + "'s pointer + " +
           std::to_string(offset) +
           " bytes (its storage offset), must be 16-byte aligned "
           "(cuTensorMapEncodeTiled's rule)";
  c.offsetBytes = uint64_t(offset);
  return "";
}

std::string defaultImagePath(const std::string &manifest,
                             const std::string &binary) {
  size_t slash = manifest.find_last_of('/');
  std::string dir =
      slash == std::string::npos ? "" : manifest.substr(0, slash + 1);
  if (!binary.empty())
    return binary[0] == '/' ? binary : dir + binary;
  std::string base =
      slash == std::string::npos ? manifest : manifest.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot != 0)
    base = base.substr(0, dot);
  return dir + base + ".ptx";
}

int run() {
  // Manifest.
  std::string text, why;
  if (!readFile(opt.manifest, text, why))
    return fail(2, "cannot read manifest " + opt.manifest + ": " + why);
  json::Value root;
  std::string perr;
  if (!json::parse(text, root, perr))
    return fail(2, "malformed manifest " + opt.manifest + ": " + perr);
  Manifest m;
  Rules rules;
  rules.tool = "fmha-cuda-run";
  rules.chipPrefix = "sm_";
  rules.chipKind = "an NVIDIA chip (sm_NN)";
  rules.requireConfig = true;
  rules.maxKernargSize = 32768;
  rules.maxKernargWhat = "any CUDA parameter space (32764 bytes)";
  rules.tensorMaps = true;
  std::string err = readManifest(root, m, rules);
  if (err.empty() && !m.binaryFormat.empty() && m.binaryFormat != "ptx" &&
      m.binaryFormat != "cubin")
    err = "\"binary_format\" must be ptx or cubin, got '" + m.binaryFormat + "'";
  if (!err.empty())
    return fail(2, "invalid manifest " + opt.manifest + ": " + err);
  const ref::Request &req = m.req;
  if (std::string err = req.validate(); !err.empty())
    return fail(2, "invalid manifest " + opt.manifest +
                       ": invalid request: " + err);
  // The inputs, the references and the output fit the host (exit 3: this
  // machine's limit, not an invalid request).
  if (std::string err = ref::checkHostMemory(req, ref::availableHostBytes());
      !err.empty())
    return fail(3, err);

  if (std::string err = checkPointerArgs(m); !err.empty())
    return fail(2, "invalid manifest " + opt.manifest + ": " + err);

  // The grid: grid_for_request, checked against the formula where it parses.
  for (int i = 0; i < 3; ++i) {
    if (m.gridFormula[i].empty())
      continue;
    std::optional<double> v = Formula(m.gridFormula[i], req).eval();
    if (v && *v != double(m.grid[i]))
      return fail(2, "invalid manifest " + opt.manifest +
                         ": \"grid_for_request\"[" + std::to_string(i) +
                         "] is " + std::to_string(m.grid[i]) +
                         " but \"grid\" says " + m.gridFormula[i] + " = " +
                         std::to_string(int64_t(*v)) + " for the request");
  }

  // Dimension and stride arguments name dimensions their tensors have.
  for (const Arg &a : m.args) {
    if (a.field != Field::Dim && a.field != Field::Stride)
      continue;
    int64_t rank = tensorRank(a.tensor, req);
    if (a.index >= rank)
      return fail(2, "invalid manifest " + opt.manifest + ": '" + a.name +
                         "': " + a.tensor + " has rank " +
                         std::to_string(rank));
  }

  // The kernel image.
  std::string imagePath =
      opt.ptx.empty() ? defaultImagePath(opt.manifest, m.binary) : opt.ptx;
  std::string image;
  if (!readFile(imagePath, image, why))
    return fail(2, "cannot read PTX " + imagePath + ": " + why);
  bool isPtx = false;
  if (std::string err = checkImage(image, m, isPtx); !err.empty())
    return fail(2, "PTX " + imagePath + ": " + err);
  image.push_back('\0'); // cuModuleLoadData takes PTX as a C string

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
  // The descales the kernel gets: the true ones, or with --mutate-descales
  // those of a kernel with that bug at the manifest's block_n (in.kv_descale
  // stays true for the references).
  std::vector<float> kernelKv = in.kv_descale;
  if (opt.mutation != ref::DescaleMutation::None) {
    std::string note;
    if (std::string err = ref::mutatedDescales(in, opt.mutation,
                                               m.config.blockN, kernelKv, &note);
        !err.empty())
      return fail(2, "--mutate-descales: " + err);
    std::fprintf(stderr, "fmha-cuda-run: note: --mutate-descales=%s\n",
                 note.c_str());
  }
  // Descales. kv_blockscale with the layout passed (k/v_descale offset and
  // both strides in the args): aiter's interleaved [N_pages, Hkv, 2] buffer,
  // as fmha-run passes it (one allocation; K at offset 0, V at 1, strides
  // {2*Hkv, 2}). Otherwise dense copies: [N_pages, Hkv], or [1] per tensor.
  bool blockscale = req.quant == ref::QuantMode::KVBlockscale;
  auto layoutArgs = [&](std::string_view t) {
    return std::count_if(m.args.begin(), m.args.end(), [&](const Arg &a) {
      return a.tensor == t &&
             (a.field == Field::Offset || a.field == Field::Stride);
    });
  };
  bool interleaved = blockscale && layoutArgs("k_descale") == 3 &&
                     layoutArgs("v_descale") == 3;
  std::vector<float> kd(blockscale ? n * hkv : 1), vd(kd.size());
  for (int64_t pg = 0; pg < (blockscale ? n : 1); ++pg)
    for (int64_t h = 0; h < (blockscale ? hkv : 1); ++h) {
      kd[pg * (blockscale ? hkv : 1) + h] = in.k_descale.at(kernelKv.data(), pg, h);
      vd[pg * (blockscale ? hkv : 1) + h] = in.v_descale.at(kernelKv.data(), pg, h);
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
    Tensor t;
    t.name = name;
    t.host = v.data();
    t.bytes = v.size() * 4;
    t.shape = std::move(shape);
    return t;
  };
  auto buf = [](const char *name, const void *host, size_t bytes,
                std::vector<int64_t> shape) {
    Tensor t;
    t.name = name;
    t.host = host;
    t.bytes = bytes;
    t.shape = std::move(shape);
    return t;
  };
  std::vector<int64_t> descaleShape =
      blockscale ? std::vector<int64_t>{n, hkv} : std::vector<int64_t>{1};
  std::vector<Tensor> tensors = {
      buf("q", in.q.data(), in.q.size(), {totalQ, hq, d}),
      buf("k_cache", in.k_cache.data(), in.k_cache.size(), cacheShape(d)),
      buf("v_cache", in.v_cache.data(), in.v_cache.size(), cacheShape(dv)),
      i32("qo_indptr", in.qo_indptr, {b + 1}),
      i32("kv_indptr", pt.kv_indptr, {int64_t(pt.kv_indptr.size())}),
      i32("kv_page_indices", pt.kv_page_indices,
          {int64_t(pt.kv_page_indices.size())}),
      i32("kv_last_page_len", pt.kv_last_page_len, {b}),
      i32("block_table", pt.block_table, {b, pt.max_pages}),
      i32("kv_seqlen", pt.kv_seqlen, {b}),
      buf("q_descale", &qd, 4, {1}),
      buf("k_descale", kd.data(), kd.size() * 4, descaleShape),
      buf("v_descale", vd.data(), vd.size() * 4, descaleShape),
      buf("runtime_scalars", scalars.data(), 16, {4}),
      buf("out", out.data(), out.size(), {totalQ, hq, dv}),
      buf("lse", lse.data(), lse.size() * 4, {totalQ, hq})};
  if (interleaved)
    for (Tensor &t : tensors) {
      if (t.name != "k_descale" && t.name != "v_descale")
        continue;
      const ref::DescaleLayout &l =
          t.name == "k_descale" ? in.k_descale : in.v_descale;
      t.host = kernelKv.data();
      t.bytes = kernelKv.size() * 4;
      t.offset = l.offset;
      t.strides = {l.page_stride, l.head_stride};
    }
  // A kv_strided kernel: K and V as views of one combined cache.
  std::vector<uint8_t> combined;
  fmha_tools::useCombinedKV(in, tensors, combined);
  auto find = [&](std::string_view name) -> Tensor & {
    for (Tensor &t : tensors)
      if (t.name == name)
        return t;
    std::fprintf(stderr, "fmha-cuda-run: internal error: no tensor %s\n",
                 std::string(name).c_str());
    std::abort();
  };

  // The kernarg buffer, aligned to the largest of "kernarg_align" and the
  // args' aligns: CU_LAUNCH_PARAM_BUFFER_POINTER's buffer honours every
  // parameter's alignment, a tensor map's 64 bytes included (a manifest may
  // say "kernarg_align": 8 beside one).
  uint64_t kernargAlign = m.kernargAlign;
  for (const Arg &a : m.args)
    kernargAlign = std::max(kernargAlign, a.align);
  if (kernargAlign > 4096)
    return fail(2, "invalid manifest " + opt.manifest +
                       ": the kernarg buffer would be aligned to " +
                       std::to_string(kernargAlign) +
                       " bytes (\"kernarg_align\" or an argument's \"align\"), "
                       "more than 4096");
  std::vector<uint8_t> kernargStorage(m.kernargSize + kernargAlign, 0);
  uint8_t *kernarg = kernargStorage.data();
  kernarg +=
      (kernargAlign - reinterpret_cast<uintptr_t>(kernarg) % kernargAlign) %
      kernargAlign;
  // Kernarg values that need no device: sizes, strides and offsets (in
  // elements), checked against ranks; the tensor maps' parameters, checked
  // against the driver's rules.
  std::vector<TensorMapCall> maps;
  for (const Arg &a : m.args) {
    Tensor &t = find(a.tensor);
    if (a.field == Field::Pointer) {
      t.used = true;
      continue;
    }
    // A map is encoded once its tensor is on the device; its tensor is
    // uploaded even where the kernel takes no pointer to it.
    if (a.field == Field::TensorMap) {
      t.used = true;
      TensorMapCall c;
      if (std::string err = planTensorMap(a, t, c); !err.empty())
        return fail(2, "tensor map '" + a.name + "': " + err +
                           "; nothing was launched");
      maps.push_back(c);
      continue;
    }
    if (a.field != Field::Offset && a.index >= int64_t(t.shape.size()))
      return fail(2, "invalid manifest " + opt.manifest + ": '" + a.name +
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

  // The CUDA driver.
  std::string libName;
  why.clear();
  void *lib = openCudaLibrary(libName, why);
  if (!lib) {
    int rc = fail(3, "no CUDA driver found (" + libName +
                         "); nothing was launched");
    if (!why.empty())
      std::fprintf(stderr, "fmha-cuda-run: note: %s\n", why.c_str());
    return rc;
  }
  Cuda cu;
  if (std::string miss = resolveCuda(lib, cu); !miss.empty())
    return fail(3, libName + " has no " + miss + "; nothing was launched");
  if (!maps.empty() && !cu.tensorMapEncodeTiled)
    return fail(3, libName +
                       " has no cuTensorMapEncodeTiled (CUDA 12 or "
                       "later), which the tensormap argument '" +
                       maps.front().arg->name +
                       "' needs; nothing was launched");
  if (int e = cu.init(0))
    return fail(3, "no CUDA device (cuInit: " + cu.error(e) +
                       "); nothing was launched");
  int driverVersion = 0;
  if (cu.driverGetVersion)
    cu.driverGetVersion(&driverVersion);
  int count = 0;
  if (int e = cu.deviceGetCount(&count))
    return fail(3, "no CUDA device (cuDeviceGetCount: " + cu.error(e) +
                       "); nothing was launched");
  if (count == 0)
    return fail(3, "no CUDA device (cuDeviceGetCount: 0 devices); nothing "
                   "was launched");
  if (opt.device >= count)
    return fail(2, "--device " + std::to_string(opt.device) +
                       " is not a device (" + std::to_string(count) +
                       " found)");
  auto cudaFailed = [&](const char *call, int e, const std::string &hint = "") {
    return fail(3, std::string(call) + " failed: " + cu.error(e) + hint);
  };
  int dev = 0;
  if (int e = cu.deviceGet(&dev, opt.device))
    return cudaFailed("cuDeviceGet", e);
  std::string devName = "?";
  if (cu.deviceGetName) {
    char nameBuf[256] = {0};
    if (cu.deviceGetName(nameBuf, sizeof nameBuf - 1, dev) == 0)
      devName = nameBuf;
  }
  int ccMajor = -1, ccMinor = -1, sms = -1;
  if (cu.deviceGetAttribute) {
    if (cu.deviceGetAttribute(&ccMajor, Cuda::kDevAttrCcMajor, dev) ||
        cu.deviceGetAttribute(&ccMinor, Cuda::kDevAttrCcMinor, dev))
      ccMajor = ccMinor = -1;
    if (cu.deviceGetAttribute(&sms, Cuda::kDevAttrMultiprocessorCount, dev))
      sms = -1;
  }
  std::string devChip =
      ccMajor >= 0 ? "sm_" + std::to_string(ccMajor * 10 + ccMinor) : "?";
  Cuda::Context ctx = nullptr;
  if (int e = cu.primaryCtxRetain(&ctx, dev))
    return cudaFailed("cuDevicePrimaryCtxRetain", e);
  if (int e = cu.ctxSetCurrent(ctx))
    return cudaFailed("cuCtxSetCurrent", e);

  // JIT the PTX, keeping ptxas's logs.
  std::vector<char> errLog(16384, '\0'), infoLog(16384, '\0');
  int jitOpts[] = {Cuda::kJitErrorLogBuffer, Cuda::kJitErrorLogBufferSize,
                   Cuda::kJitInfoLogBuffer, Cuda::kJitInfoLogBufferSize,
                   Cuda::kJitLogVerbose};
  void *jitVals[] = {errLog.data(),
                     reinterpret_cast<void *>(uintptr_t(errLog.size() - 1)),
                     infoLog.data(),
                     reinterpret_cast<void *>(uintptr_t(infoLog.size() - 1)),
                     reinterpret_cast<void *>(uintptr_t(1))};
  Cuda::Module module = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  if (int e = cu.moduleLoadDataEx(&module, image.data(), 5, jitOpts, jitVals)) {
    std::string hint = " (the " + std::string(isPtx ? "PTX" : "cubin") +
                       " is for " + (m.chip.empty() ? "?" : m.chip) +
                       "; device " + std::to_string(opt.device) + " is " +
                       devName + ", " + devChip + ")";
    if (m.ldsBytes > 48 * 1024 && m.dynamicSharedBytes < m.ldsBytes)
      hint += "; note: \"lds_bytes\" is " + std::to_string(m.ldsBytes) +
              ", over the 48 KiB of static shared memory CUDA allows";
    int rc = cudaFailed("cuModuleLoadDataEx", e, hint);
    if (errLog[0])
      std::fprintf(stderr, "fmha-cuda-run: JIT error log:\n%s\n",
                   errLog.data());
    return rc;
  }
  double jitMs = std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - t0)
                     .count();
  std::string jitInfo = infoLog.data();
  while (!jitInfo.empty() && (jitInfo.back() == '\n' || jitInfo.back() == ' '))
    jitInfo.pop_back();
  Cuda::Function fn = nullptr;
  if (int e = cu.moduleGetFunction(&fn, module, m.kernel.c_str()))
    return cudaFailed("cuModuleGetFunction", e, " (kernel '" + m.kernel + "')");
  int numRegs = -1, localBytes = -1, sharedBytes = -1, maxThreads = -1;
  if (cu.funcGetAttribute) {
    auto attr = [&](int &v, int which) {
      if (cu.funcGetAttribute(&v, which, fn))
        v = -1;
    };
    attr(numRegs, Cuda::kAttrNumRegs);
    attr(localBytes, Cuda::kAttrLocalSizeBytes);
    attr(sharedBytes, Cuda::kAttrSharedSizeBytes);
    attr(maxThreads, Cuda::kAttrMaxThreadsPerBlock);
  }
  if (sharedBytes >= 0 && m.ldsBytes &&
      uint64_t(sharedBytes) + m.dynamicSharedBytes != m.ldsBytes)
    std::fprintf(stderr,
                 "fmha-cuda-run: note: the kernel has %d bytes of static "
                 "shared memory and the manifest %llu dynamic, its "
                 "\"lds_bytes\" says %llu\n",
                 sharedBytes, static_cast<unsigned long long>(m.dynamicSharedBytes),
                 static_cast<unsigned long long>(m.ldsBytes));
  // Dynamic shared memory over 48 KiB is allowed only once the function
  // says so (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
  if (m.dynamicSharedBytes > 48 * 1024) {
    if (!cu.funcSetAttribute)
      return fail(3, "the kernel needs " + std::to_string(m.dynamicSharedBytes) +
                         " bytes of dynamic shared memory and the driver has no "
                         "cuFuncSetAttribute; nothing was launched");
    if (int e = cu.funcSetAttribute(fn, Cuda::kAttrMaxDynamicSharedSizeBytes,
                                    int(m.dynamicSharedBytes)))
      return cudaFailed("cuFuncSetAttribute", e,
                        " (" + std::to_string(m.dynamicSharedBytes) +
                            " bytes of dynamic shared memory)");
  }
  uint64_t threads = uint64_t(m.workgroup[0]) * m.workgroup[1] * m.workgroup[2];
  if (maxThreads >= 0 && threads > uint64_t(maxThreads))
    return fail(3, "kernel '" + m.kernel + "' can run at most " +
                       std::to_string(maxThreads) +
                       " threads per block on this device (" +
                       std::to_string(numRegs) +
                       " registers per thread), the manifest's workgroup has " +
                       std::to_string(threads) + "; nothing was launched");

  // Upload the operands (outputs poisoned) and put their addresses in place.
  // Tensors that view one host buffer (the interleaved descales) share one
  // allocation.
  auto freeAll = [&] {
    for (Tensor &t : tensors)
      if (t.allocated)
        cu.memFree(t.dev);
  };
  for (Tensor &t : tensors) {
    if (!t.used)
      continue;
    auto same = std::find_if(tensors.begin(), tensors.end(),
                             [&](const Tensor &o) {
                               return o.dev && o.host == t.host;
                             });
    if (same != tensors.end()) {
      t.dev = same->dev;
      continue;
    }
    // cuMemAlloc(0) fails; an empty tensor (no pages at all) still gets an
    // address, which the kernel never reads.
    if (int e = cu.memAlloc(&t.dev, t.bytes ? t.bytes : 4)) {
      freeAll();
      return cudaFailed("cuMemAlloc", e,
                        " (" + t.name + ", " + std::to_string(t.bytes) +
                            " bytes)");
    }
    t.allocated = true;
    if (t.bytes)
      if (int e = cu.memcpyHtoD(t.dev, t.host, t.bytes)) {
        freeAll();
        return cudaFailed("cuMemcpyHtoD", e, " (" + t.name + ")");
      }
  }
  for (const Arg &a : m.args)
    if (a.field == Field::Pointer)
      std::memcpy(&kernarg[a.offset], &find(a.tensor).dev, 8);
  // Tensor maps: encoded from the device address of element 0 (the pointer
  // plus the storage offset), copied by value into their 128-byte slots.
  for (const TensorMapCall &c : maps) {
    const Arg &a = *c.arg;
    CUdeviceptr address = find(a.tensor).dev + c.offsetBytes;
    if (address % 16) {
      freeAll();
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", address);
      return fail(2, "tensor map '" + a.name + "': globalAddress " + hex +
                         " is not 16-byte aligned (cuTensorMapEncodeTiled's "
                         "rule); nothing was launched");
    }
    struct alignas(kTensorMapAlign) {
      uint8_t bytes[kTensorMapBytes];
    } map = {};
    if (int e = cu.tensorMapEncodeTiled(
            &map, c.dataType, c.rank,
            reinterpret_cast<void *>(uintptr_t(address)), c.globalDim.data(),
            c.globalStrides.data(), c.boxDim.data(), c.elementStrides.data(),
            Cuda::kTensorMapInterleaveNone, c.swizzle,
            Cuda::kTensorMapL2Promotion128B, Cuda::kTensorMapOobFillNone)) {
      freeAll();
      return cudaFailed("cuTensorMapEncodeTiled", e, " (" + a.name + ")");
    }
    std::memcpy(&kernarg[a.offset], map.bytes, kTensorMapBytes);
  }

  // One launch; each argument through kernelParams (a pointer to its slot
  // of the kernarg buffer, in the manifest's order), the manifest's dynamic
  // shared memory (docs/ABI.md). Not the buffer through `extra`
  // (CU_LAUNCH_PARAM_BUFFER_POINTER): the driver refuses that for a kernel
  // with a 64-aligned tensor-map parameter (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
  // on an H100, bench/NOTES.md 2026-12-07). The array ends with a null,
  // which the driver does not read (it reads the kernel's parameter count)
  // and the stand-in driver stops at.
  std::vector<void *> params;
  for (const Arg &a : m.args)
    params.push_back(kernarg + a.offset);
  params.push_back(nullptr);
  auto launch = [&]() {
    return cu.launchKernel(fn, m.grid[0], m.grid[1], m.grid[2], m.workgroup[0],
                           m.workgroup[1], m.workgroup[2],
                           unsigned(m.dynamicSharedBytes), nullptr, params.data(),
                           nullptr);
  };
  bool gridEmpty = !(m.grid[0] && m.grid[1] && m.grid[2]);
  double firstMs = 0;
  if (!gridEmpty) {
    auto t1 = std::chrono::steady_clock::now();
    if (int e = launch()) {
      freeAll();
      return cudaFailed("cuLaunchKernel", e);
    }
    if (int e = cu.ctxSynchronize())
      return cudaFailed("the kernel (cuCtxSynchronize)", e);
    firstMs = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - t1)
                  .count();
  }
  Tensor &o = find("out"), &l = find("lse");
  if (!out.empty())
    if (int e = cu.memcpyDtoH(out.data(), o.dev, out.size()))
      return cudaFailed("cuMemcpyDtoH", e, " (out)");
  if (l.used && !lse.empty())
    if (int e = cu.memcpyDtoH(lse.data(), l.dev, lse.size() * 4))
      return cudaFailed("cuMemcpyDtoH", e, " (lse)");
  if (!opt.dumpOut.empty()) {
    // Both files or neither (AtomicOutput.h).
    fmha_tools::OutputSet set;
    std::string err = set.add(opt.dumpOut, out.data(), out.size());
    if (err.empty() && l.used)
      err = set.add(opt.dumpOut + ".lse", lse.data(), lse.size() * 4);
    if (err.empty())
      err = set.commit();
    if (!err.empty())
      return fail(3, "--dump-out: " + err + " (nothing written)");
  }

  // Timing: warm-ups, then one event pair per launch.
  std::vector<double> times;
  int identical = -1; // -1 not checked, 0 no, 1 yes
  if (opt.repeat > 0 && !gridEmpty) {
    for (int i = 0; i < kWarmups; ++i)
      if (int e = launch())
        return cudaFailed("cuLaunchKernel", e, " (warm-up)");
    if (int e = cu.ctxSynchronize())
      return cudaFailed("the kernel (cuCtxSynchronize, warm-up)", e);
    Cuda::Event start = nullptr, stop = nullptr;
    if (int e = cu.eventCreate(&start, 0))
      return cudaFailed("cuEventCreate", e);
    if (int e = cu.eventCreate(&stop, 0))
      return cudaFailed("cuEventCreate", e);
    // A 256 MiB buffer written before each timed launch flushes the 60 MiB
    // L2, so no run reads K/V left in L2 by the one before; the write is
    // outside the timed events.
    CUdeviceptr flush = 0;
    size_t flushBytes = size_t(256) << 20;
    if (cu.memsetD8 && cu.memAlloc(&flush, flushBytes))
      flush = 0;
    for (int64_t i = 0; i < opt.repeat; ++i) {
      if (flush)
        if (int e = cu.memsetD8(flush, static_cast<unsigned char>(i), flushBytes))
          return cudaFailed("cuMemsetD8 (L2 flush)", e);
      if (int e = cu.eventRecord(start, nullptr))
        return cudaFailed("cuEventRecord", e);
      if (int e = launch())
        return cudaFailed("cuLaunchKernel", e, " (timed)");
      if (int e = cu.eventRecord(stop, nullptr))
        return cudaFailed("cuEventRecord", e);
      if (int e = cu.eventSynchronize(stop))
        return cudaFailed("the kernel (cuEventSynchronize)", e);
      float ms = 0;
      if (int e = cu.eventElapsedTime(&ms, start, stop))
        return cudaFailed("cuEventElapsedTime", e);
      times.push_back(ms);
    }
    cu.eventDestroy(start);
    cu.eventDestroy(stop);
    if (flush)
      cu.memFree(flush);
    // The repeated launches must write the same bytes as the checked one.
    std::vector<uint8_t> again(out.size());
    if (!again.empty())
      if (int e = cu.memcpyDtoH(again.data(), o.dev, again.size()))
        return cudaFailed("cuMemcpyDtoH", e, " (out, after timing)");
    identical = again == out ? 1 : 0;
  }
  freeAll();
  if (cu.moduleUnload)
    cu.moduleUnload(module);
  if (cu.primaryCtxRelease)
    cu.primaryCtxRelease(dev);

  // The verdicts of SPEC section 6.
  const float *lsePtr = req.return_lse ? lse.data() : nullptr;
  ref::CompareResult vsOracle, vsEmu, vsExactQ;
  if (!opt.noCheck) {
    // Judged on the Q the kernel multiplies (config q_scale = per_tile
    // quantizes a 16-bit Q per tile); the error that adds is reported.
    bool qPerTile = m.config.qScale == "per_tile";
    vsOracle = ref::judgeAgainstOracle(in, out.data(), lsePtr,
                                       qPerTile ? m.config.blockM : 0, &vsExactQ);
    ref::EmulateOptions emu;
    emu.block_m = m.config.blockM;
    emu.block_n = m.config.blockN;
    emu.p_dtype = m.config.pDType;
    emu.shift = int(m.config.shift);
    emu.vd_scaled_p = m.config.pvVdRoute == "scaled_p";
    emu.vd_exp2_bias = m.config.pvVdRoute == "exp2_bias";
    emu.q_per_tile = qPerTile;
    emu.wgmma_fp8_promote = m.config.wgmmaFp8Promote;
    emu.wgmma_fp8_promote_pv = m.config.wgmmaFp8PromotePv;
    emu.vd_page_groups = m.config.pvVdRoute == "page_groups";
    ref::EmulateResult emulated = ref::runEmulation(in, emu);
    vsEmu = ref::compareWithEmulation(in, out.data(), lsePtr, emulated);
  } else {
    vsOracle.pass = vsEmu.pass = true; // not checked (--no-check)
  }
  bool pass = vsOracle.pass && vsEmu.pass;

  double medianMs = 0, minMs = 0, meanMs = 0, flops = ref::attentionFlops(req);
  if (!times.empty()) {
    std::vector<double> s = times;
    std::sort(s.begin(), s.end());
    medianMs = s.size() % 2 ? s[s.size() / 2]
                            : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    minMs = s.front();
    for (double t : s)
      meanMs += t / double(s.size());
  }
  double tflops = medianMs > 0 ? flops / (medianMs * 1e-3) / 1e12 : 0;
  std::string grid = "[" + std::to_string(m.grid[0]) + "," +
                     std::to_string(m.grid[1]) + "," +
                     std::to_string(m.grid[2]) + "]";
  std::string block = "[" + std::to_string(m.workgroup[0]) + "," +
                      std::to_string(m.workgroup[1]) + "," +
                      std::to_string(m.workgroup[2]) + "]";

  if (opt.json) {
    std::ostringstream js;
    js << "{\"tool\": \"fmha-cuda-run\", \"manifest\": "
       << json::quote(opt.manifest) << ", \"ptx\": " << json::quote(imagePath)
       << ", \"kernel\": " << json::quote(m.kernel)
       << ", \"chip\": " << json::quote(m.chip)
       << ", \"request\": " << json::quote(req.str());
    if (opt.mutation != ref::DescaleMutation::None)
      js << ", \"mutate_descales\": "
         << json::quote(ref::descaleMutationName(opt.mutation));
    js << ", \"pass\": " << (pass ? "true" : "false")
       << ", \"exit\": " << (pass ? 0 : 1)
       << ", \"device\": {\"index\": " << opt.device
       << ", \"name\": " << json::quote(devName)
       << ", \"chip\": " << json::quote(devChip) << ", \"sms\": " << sms
       << ", \"driver_version\": " << driverVersion << "}"
       << ", \"grid\": " << grid << ", \"block\": " << block
       << ", \"kernarg_size\": " << m.kernargSize
       << ", \"config\": {\"block_m\": " << m.config.blockM
       << ", \"block_n\": " << m.config.blockN
       << ", \"p_type\": " << json::quote(ref::dtypeName(m.config.pDType))
       << ", \"shift\": " << m.config.shift << "}"
       << ", \"func\": {\"num_regs\": " << numRegs
       << ", \"local_bytes\": " << localBytes
       << ", \"static_shared_bytes\": " << sharedBytes
       << ", \"max_threads_per_block\": " << maxThreads << "}"
       << ", \"jit_ms\": " << jnum(jitMs)
       << ", \"jit_log\": " << json::quote(jitInfo)
       << ", \"first_launch_ms\": " << jnum(firstMs)
       << ", \"repeat\": " << times.size() << ", \"warmups\": "
       << (times.empty() ? 0 : kWarmups)
       << ", \"median_ms\": " << (times.empty() ? "null" : jnum(medianMs))
       << ", \"min_ms\": " << (times.empty() ? "null" : jnum(minMs))
       << ", \"mean_ms\": " << (times.empty() ? "null" : jnum(meanMs))
       << ", \"flops\": " << jnum(flops)
       << ", \"tflops\": " << (times.empty() ? "null" : jnum(tflops))
       << ", \"repeat_identical\": "
       << (identical < 0 ? "null" : identical ? "true" : "false")
       << ", \"checked\": " << (opt.noCheck ? "false" : "true")
       << ", \"oracle\": " << (opt.noCheck ? "null" : vsOracle.toJson())
       << ", \"emulation\": " << (opt.noCheck ? "null" : vsEmu.toJson());
    if (!opt.noCheck && m.config.qScale == "per_tile")
      js << ", \"exact_q_oracle\": " << vsExactQ.toJson();
    js << "}";
    std::printf("%s\n", js.str().c_str());
  } else {
    std::string line = std::string(pass ? "PASS" : "FAIL") + " " + req.str() +
                       " | " + vsOracle.summary() + " | " + vsEmu.summary() +
                       (!opt.noCheck && m.config.qScale == "per_tile"
                            ? " | q per tile vs exact-q oracle (reported): " +
                                  vsExactQ.errors()
                            : std::string()) +
                       " | " + (m.chip.empty() ? "?" : m.chip) + " device=" +
                       std::to_string(opt.device) + " (" + devName + ", " +
                       devChip + ") grid=" + grid + " block=" + block +
                       " regs=" + std::to_string(numRegs) +
                       " local=" + std::to_string(localBytes) +
                       " first_launch_ms=" + fmt("%.3f", firstMs);
    if (!times.empty())
      line += " median_ms=" + fmt("%.4f", medianMs) +
              " tflops=" + fmt("%.2f", tflops) +
              " repeat=" + std::to_string(times.size()) +
              (identical == 0 ? " repeat_identical=no" : "");
    std::printf("%s\n", line.c_str());
  }
  return pass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  // A write past the file-size limit is a write error (exit 3), not a death.
  std::signal(SIGXFSZ, SIG_IGN);
  bool help = false;
  if (std::string err = parseArgs(argc, argv, help); !err.empty()) {
    std::fprintf(stderr, "fmha-cuda-run: %s\n%s\n", err.c_str(), kUsage);
    return 2;
  }
  if (help) {
    std::printf(
        "%s\n\n"
        "Launches a kernel fmha-compile wrote (NAME.ptx + NAME.json) through "
        "the CUDA\ndriver (libcuda.so.1, loaded at run time) and checks its "
        "output against the\noracle and the emulating reference (SPEC "
        "section 6).\n\n"
        "  --ptx FILE    the kernel (default: the manifest's \"binary\", else "
        "NAME.ptx\n                next to NAME.json); a cubin is accepted too\n"
        "  --device N    CUDA device index (default 0)\n"
        "  --repeat N    also time N launches (after %d warm-ups): median ms "
        "and TFLOPS\n"
        "  --json        print one JSON object (errors too)\n"
        "  --no-check    time only (with --repeat): skip the oracle and the "
        "emulation\n"
        "  --dump-out F  write the checked launch's output to F (raw, out type) "
        "and lse to F.lse\n\n"
        "Exit: 0 pass, 1 SPEC section 6 not met, 2 unusable input, 3 no CUDA "
        "driver or\ndevice, or a CUDA call failed.\n",
        kUsage, kWarmups);
    return 0;
  }
  int rc;
  try {
    rc = run();
  } catch (const std::exception &e) {
    rc = fail(3, std::string("internal error: ") + e.what());
  }
  // A record that did not reach stdout (a full disk, /dev/full) is a tool
  // error, reported once.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "fmha-cuda-run: cannot write the standard output: %s\n",
                 std::strerror(errno));
    return 3;
  }
  return rc;
}
