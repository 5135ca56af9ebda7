//===- CudaMock.cpp - a stand-in libcuda for fmha-cuda-run's tests --------===//
//
// Exports the CUDA driver entry points fmha-cuda-run uses, with host memory
// standing in for device memory, so the launch path runs on a machine without
// an NVIDIA GPU:
//   fmha-cuda-run NAME.json --cuda-library lib/libfmha-cuda-mock.so
// cuModuleLoadDataEx accepts text with a ".entry" (PTX); the kernel name must
// be an .entry of it. cuLaunchKernel runs nothing. It prints the grid, the
// block and the kernarg buffer (8-byte slots, pointers named by the
// allocation they point to, buffers of at most 16 bytes shown as i32 words)
// on stderr, so a test sees every argument, and the output stays poisoned.
// Copies are checked against the allocations. Events measure 0.25 ms per
// timed launch.
// cuTensorMapEncodeTiled checks the driver's rules, prints its parameters
// ("mock: tensormap ...") and writes them, packed after the magic
// "MOCKTMAP", as the 128-byte map; the launch prints a map it finds in the
// kernarg buffer the same way, so a test sees the bytes landed at their
// offset.
// Environment: FMHA_CUDA_MOCK_DEVICES sets the device count (default 1; 0
// answers like a driver on a machine without a GPU);
// FMHA_CUDA_MOCK_JIT_ERROR=TEXT makes the module load fail with TEXT in the
// JIT error log; FMHA_CUDA_MOCK_MAX_THREADS sets the kernel's
// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (default 1024);
// FMHA_CUDA_MOCK_TENSORMAP_ERROR makes every cuTensorMapEncodeTiled fail
// (CUDA_ERROR_INVALID_VALUE) after its checks would pass.
// Built a second time with FMHA_CUDA_MOCK_NO_TENSORMAP
// (libfmha-cuda-mock-no-tmap.so): a driver older than CUDA 12, without
// cuTensorMapEncodeTiled (a symbol cannot be hidden from dlsym at run time).
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#define MOCK_API extern "C" __attribute__((visibility("default")))

namespace {

enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kNotInitialized = 3,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidPtx = 218,
  kInvalidHandle = 400,
  kNotFound = 500,
};

using CUdeviceptr = unsigned long long;

struct Allocation {
  size_t bytes;
  int index; ///< order of cuMemAlloc calls
};
std::map<uintptr_t, Allocation> &allocations() {
  static std::map<uintptr_t, Allocation> a;
  return a;
}
int nextIndex = 0;
bool initialized = false;
std::string ptxText, kernelName;
int context = 0, module = 0, eventA = 0, eventB = 0;
int launches = 0;

int devices() {
  const char *e = std::getenv("FMHA_CUDA_MOCK_DEVICES");
  return e ? std::atoi(e) : 1;
}

/// The allocation holding [p, p + n), or null.
const Allocation *find(uintptr_t x, size_t n) {
  auto &a = allocations();
  auto it = a.upper_bound(x);
  if (it == a.begin())
    return nullptr;
  --it;
  return x + n <= it->first + it->second.bytes ? &it->second : nullptr;
}

/// The stand-in's CUtensorMap: the encode parameters after a magic, so the
/// launch can print a map from the kernarg bytes alone.
struct MockTensorMap {
  char magic[8];
  uint64_t address;
  uint64_t dim[5];
  uint64_t stride[4];
  uint16_t box[5];
  uint8_t elementStride[5];
  uint8_t rank, dataType, interleave, swizzle, l2, oob;
};
static_assert(sizeof(MockTensorMap) <= 128, "a CUtensorMap is 128 bytes");
constexpr char kTensorMapMagic[8] = {'M', 'O', 'C', 'K', 'T', 'M', 'A', 'P'};

/// "rank 4 type 0 dims [...] strides [...] box [...] elem [...] interleave 0
/// swizzle 2 l2 2 oob 0 base buffer #1+0": every parameter, the address as
/// the allocation it points into.
std::string describe(const MockTensorMap &m) {
  std::string s =
      "rank " + std::to_string(m.rank) + " type " + std::to_string(m.dataType);
  auto list = [&](const char *name, auto get, unsigned n) {
    s += std::string(" ") + name + " [";
    for (unsigned i = 0; i < n; ++i)
      s += (i ? "," : "") + std::to_string(get(i));
    s += "]";
  };
  unsigned rank = std::min<unsigned>(std::max<unsigned>(m.rank, 1), 5);
  list(
      "dims", [&](unsigned i) { return m.dim[i]; }, rank);
  list(
      "strides", [&](unsigned i) { return m.stride[i]; }, rank - 1);
  list(
      "box", [&](unsigned i) { return m.box[i]; }, rank);
  list(
      "elem", [&](unsigned i) { return unsigned(m.elementStride[i]); }, rank);
  s += " interleave " + std::to_string(m.interleave) + " swizzle " +
       std::to_string(m.swizzle) + " l2 " + std::to_string(m.l2) + " oob " +
       std::to_string(m.oob) + " base ";
  const Allocation *a = find(uintptr_t(m.address), 1);
  if (!a)
    return s + "outside the allocations";
  auto it = allocations().upper_bound(uintptr_t(m.address));
  --it;
  return s + "buffer #" + std::to_string(a->index) + "+" +
         std::to_string(uintptr_t(m.address) - it->first);
}

} // namespace

MOCK_API int cuInit(unsigned flags) {
  if (flags)
    return kInvalidValue;
  if (devices() == 0)
    return kNoDevice;
  initialized = true;
  return kSuccess;
}

MOCK_API int cuDriverGetVersion(int *v) {
  *v = 12040;
  return kSuccess;
}

MOCK_API int cuDeviceGetCount(int *count) {
  if (!initialized)
    return kNotInitialized;
  *count = devices();
  return kSuccess;
}

MOCK_API int cuDeviceGet(int *dev, int ordinal) {
  if (ordinal < 0 || ordinal >= devices())
    return kInvalidDevice;
  *dev = ordinal;
  return kSuccess;
}

MOCK_API int cuDeviceGetName(char *name, int len, int dev) {
  std::snprintf(name, len, "Mock GPU %d", dev);
  return kSuccess;
}

MOCK_API int cuDeviceGetAttribute(int *v, int attr, int) {
  switch (attr) {
  case 16: // multiprocessors
    *v = 4;
    return kSuccess;
  case 75: // compute capability major
    *v = 9;
    return kSuccess;
  case 76: // minor
    *v = 0;
    return kSuccess;
  }
  return kInvalidValue;
}

MOCK_API int cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  if (dev < 0 || dev >= devices())
    return kInvalidDevice;
  *ctx = &context;
  return kSuccess;
}

MOCK_API int cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }

MOCK_API int cuCtxSetCurrent(void *ctx) {
  return ctx == &context ? kSuccess : kInvalidValue;
}

MOCK_API int cuModuleLoadDataEx(void **mod, const void *image, unsigned n,
                                int *options, void **values) {
  const char *text = static_cast<const char *>(image);
  if (const char *e = std::getenv("FMHA_CUDA_MOCK_JIT_ERROR")) {
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) { // CU_JIT_ERROR_LOG_BUFFER
        unsigned size = 0;
        for (unsigned j = 0; j < n; ++j)
          if (options[j] == 6) // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
            size = unsigned(reinterpret_cast<uintptr_t>(values[j]));
        if (size)
          std::snprintf(static_cast<char *>(values[i]), size, "%s", e);
      }
    return kInvalidPtx;
  }
  if (!text || !std::strstr(text, ".entry"))
    return kInvalidPtx;
  for (unsigned i = 0; i < n; ++i)
    if (options[i] == 3) { // CU_JIT_INFO_LOG_BUFFER
      unsigned size = 0;
      for (unsigned j = 0; j < n; ++j)
        if (options[j] == 4)
          size = unsigned(reinterpret_cast<uintptr_t>(values[j]));
      if (size)
        std::snprintf(static_cast<char *>(values[i]), size,
                      "mock ptxas info: %zu bytes of PTX", std::strlen(text));
    }
  ptxText = text;
  *mod = &module;
  return kSuccess;
}

MOCK_API int cuModuleUnload(void *mod) {
  return mod == &module ? kSuccess : kInvalidHandle;
}

MOCK_API int cuModuleGetFunction(void **fn, void *mod, const char *name) {
  if (mod != &module || !name || !*name)
    return kInvalidHandle;
  if (ptxText.find(std::string(".entry ") + name) == std::string::npos)
    return kNotFound;
  kernelName = name;
  *fn = &kernelName;
  return kSuccess;
}

MOCK_API int cuFuncGetAttribute(int *v, int attr, void *fn) {
  if (fn != &kernelName)
    return kInvalidHandle;
  switch (attr) {
  case 0: { // max threads per block
    const char *e = std::getenv("FMHA_CUDA_MOCK_MAX_THREADS");
    *v = e ? std::atoi(e) : 1024;
    return kSuccess;
  }
  case 1: // static shared bytes
    *v = 0;
    return kSuccess;
  case 3: // local bytes
    *v = 0;
    return kSuccess;
  case 4: // registers
    *v = 42;
    return kSuccess;
  }
  return kInvalidValue;
}

/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (8): the driver's rule,
/// a launch may pass more than 48 KiB of dynamic shared memory only up to
/// what was set here (at most 227 KiB on sm_90).
int maxDynamicShared = 48 * 1024;

MOCK_API int cuFuncSetAttribute(void *fn, int attr, int v) {
  if (fn != &kernelName)
    return kInvalidHandle;
  if (attr != 8 || v < 0 || v > 227 * 1024)
    return kInvalidValue;
  maxDynamicShared = v;
  std::fprintf(stderr, "mock: max dynamic shared memory %d\n", v);
  return kSuccess;
}

MOCK_API int cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  if (!bytes)
    return kInvalidValue;
  void *m = std::calloc(bytes, 1);
  if (!m)
    return kInvalidValue;
  *p = reinterpret_cast<uintptr_t>(m);
  allocations()[uintptr_t(*p)] = {bytes, nextIndex++};
  return kSuccess;
}

MOCK_API int cuMemFree_v2(CUdeviceptr p) {
  if (!allocations().erase(uintptr_t(p)))
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(uintptr_t(p)));
  return kSuccess;
}

MOCK_API int cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  if (!find(uintptr_t(dst), n) || find(reinterpret_cast<uintptr_t>(src), n)) {
    std::fprintf(stderr, "mock: cuMemcpyHtoD of %zu bytes outside the "
                         "allocations\n", n);
    return kInvalidValue;
  }
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, n);
  return kSuccess;
}

MOCK_API int cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  if (!find(uintptr_t(src), n) || find(reinterpret_cast<uintptr_t>(dst), n)) {
    std::fprintf(stderr, "mock: cuMemcpyDtoH of %zu bytes outside the "
                         "allocations\n", n);
    return kInvalidValue;
  }
  std::memcpy(dst, reinterpret_cast<const void *>(uintptr_t(src)), n);
  return kSuccess;
}

#ifndef FMHA_CUDA_MOCK_NO_TENSORMAP
/// The driver's rules (CUDA 12's cuTensorMapEncodeTiled): a broken one is
/// CUDA_ERROR_INVALID_VALUE, and says which on stderr. Beyond the driver, the
/// map's extent must lie in one allocation, as the copies must.
MOCK_API int
cuTensorMapEncodeTiled(void *tensorMap, int dataType, uint32_t rank,
                       void *globalAddress, const uint64_t *globalDim,
                       const uint64_t *globalStrides, const uint32_t *boxDim,
                       const uint32_t *elementStrides, int interleave,
                       int swizzle, int l2, int oob) {
  auto refuse = [](const std::string &rule) {
    std::fprintf(stderr, "mock: cuTensorMapEncodeTiled refused: %s\n",
                 rule.c_str());
    return kInvalidValue;
  };
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 .. TFLOAT32_FTZ.
  static const unsigned kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (!tensorMap || reinterpret_cast<uintptr_t>(tensorMap) % 64)
    return refuse("the map is not 64-byte aligned");
  if (dataType < 0 || dataType > 12)
    return refuse("data type " + std::to_string(dataType));
  if (interleave < 0 || interleave > 2)
    return refuse("interleave " + std::to_string(interleave));
  if (rank < (interleave ? 3u : 1u) || rank > 5)
    return refuse("rank " + std::to_string(rank));
  uintptr_t address = reinterpret_cast<uintptr_t>(globalAddress);
  if (!address || address % (interleave == 2 ? 32 : 16))
    return refuse("globalAddress not 16-byte aligned");
  if (!globalDim || !globalStrides || !boxDim || !elementStrides)
    return refuse("a null array");
  unsigned bytes = kBytes[dataType];
  for (uint32_t i = 0; i < rank; ++i) {
    if (globalDim[i] == 0 || globalDim[i] > (uint64_t(1) << 32))
      return refuse("globalDim[" + std::to_string(i) +
                    "] = " + std::to_string(globalDim[i]));
    if (boxDim[i] == 0 || boxDim[i] > 256)
      return refuse("boxDim[" + std::to_string(i) +
                    "] = " + std::to_string(boxDim[i]));
    if (elementStrides[i] == 0 || elementStrides[i] > 8)
      return refuse("elementStrides[" + std::to_string(i) +
                    "] = " + std::to_string(elementStrides[i]));
    if (i + 1 < rank &&
        (globalStrides[i] % 16 || globalStrides[i] >= (uint64_t(1) << 40)))
      return refuse("globalStrides[" + std::to_string(i) +
                    "] = " + std::to_string(globalStrides[i]));
  }
  if (swizzle < 0 || swizzle > 3)
    return refuse("swizzle " + std::to_string(swizzle));
  if (!interleave) {
    uint64_t row = uint64_t(boxDim[0]) * bytes;
    if (row % 16)
      return refuse("boxDim[0] * element size = " + std::to_string(row) +
                    " bytes, not a multiple of 16");
    if (swizzle && row > (16u << swizzle))
      return refuse("boxDim[0] * element size = " + std::to_string(row) +
                    " bytes, wider than the swizzle (" +
                    std::to_string(16u << swizzle) + ")");
  }
  if (l2 < 0 || l2 > 3)
    return refuse("L2 promotion " + std::to_string(l2));
  // NAN_REQUEST_ZERO_FMA (1) only for floating-point types.
  if (oob < 0 || oob > 1 || (oob == 1 && dataType < 6))
    return refuse("OOB fill " + std::to_string(oob));
  uint64_t extent = uint64_t(globalDim[0]) * bytes;
  for (uint32_t i = 1; i < rank; ++i)
    extent += (globalDim[i] - 1) * globalStrides[i - 1];
  if (!find(address, extent))
    return refuse("its " + std::to_string(extent) +
                  " bytes lie outside the allocations");
  if (std::getenv("FMHA_CUDA_MOCK_TENSORMAP_ERROR"))
    return refuse("FMHA_CUDA_MOCK_TENSORMAP_ERROR is set");

  MockTensorMap m = {};
  std::memcpy(m.magic, kTensorMapMagic, 8);
  m.address = address;
  for (uint32_t i = 0; i < rank; ++i) {
    m.dim[i] = globalDim[i];
    if (i + 1 < rank)
      m.stride[i] = globalStrides[i];
    m.box[i] = uint16_t(boxDim[i]);
    m.elementStride[i] = uint8_t(elementStrides[i]);
  }
  m.rank = uint8_t(rank);
  m.dataType = uint8_t(dataType);
  m.interleave = uint8_t(interleave);
  m.swizzle = uint8_t(swizzle);
  m.l2 = uint8_t(l2);
  m.oob = uint8_t(oob);
  std::memset(tensorMap, 0, 128);
  std::memcpy(tensorMap, &m, sizeof m);
  std::fprintf(stderr, "mock: tensormap %s\n", describe(m).c_str());
  return kSuccess;
}
#endif

MOCK_API int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                            unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, void *stream, void **params,
                            void **extra) {
  // kernelParams only (fmha-cuda-run's launch): a pointer a parameter, into
  // one kernarg buffer in increasing order, the array ended by a null (the
  // real driver reads the kernel's parameter count; this one cannot).
  if (fn != &kernelName || !params || extra ||
      shared > unsigned(std::max(maxDynamicShared, 48 * 1024)))
    return kInvalidValue;
  // Only the first launch is printed; later ones (warm-ups, timing) count.
  if (launches++)
    return kSuccess;
  const uint8_t *buf = static_cast<const uint8_t *>(params[0]);
  size_t size = 0;
  for (size_t i = 0; params[i]; ++i) {
    const uint8_t *p = static_cast<const uint8_t *>(params[i]);
    if (p < buf + size)
      return kInvalidValue; // not one buffer in order
    // The slot's size: a tensor map this driver encoded is 128 bytes.
    size = size_t(p - buf) + (std::memcmp(p, kTensorMapMagic, 8) == 0 ? 128 : 8);
  }
  if (!buf)
    return kInvalidValue;
  std::fprintf(stderr,
               "mock: launch %s grid=[%u,%u,%u] block=[%u,%u,%u] shared=%u "
               "stream=%p kernarg_bytes=%zu\n",
               kernelName.c_str(), gx, gy, gz, bx, by, bz, shared, stream,
               size);
  for (size_t at = 0; at + 8 <= size; at += 8) {
    // A tensor map this driver encoded: one line for its 128 bytes.
    if (std::memcmp(buf + at, kTensorMapMagic, 8) == 0) {
      if (at % 64 || at + 128 > size) {
        std::fprintf(stderr,
                     "mock: kernarg +%zu: a tensormap not 64-byte "
                     "aligned or past the buffer\n",
                     at);
        return kInvalidValue;
      }
      MockTensorMap m;
      std::memcpy(&m, buf + at, sizeof m);
      std::fprintf(stderr, "mock: kernarg +%zu: tensormap %s\n", at,
                   describe(m).c_str());
      at += 120;
      continue;
    }
    uint64_t v;
    std::memcpy(&v, buf + at, 8);
    auto it = allocations().find(uintptr_t(v));
    if (it != allocations().end()) {
      std::fprintf(stderr, "mock: kernarg +%zu: buffer #%d of %zu bytes", at,
                   it->second.index, it->second.bytes);
      bool small = it->second.bytes <= 16 && it->second.bytes % 4 == 0;
      if (small)
        for (size_t w = 0; w < it->second.bytes / 4; ++w) {
          int32_t x;
          std::memcpy(&x, reinterpret_cast<const char *>(uintptr_t(v)) + 4 * w,
                      4);
          std::fprintf(stderr, "%s%d", w ? ", " : ": i32 [", x);
        }
      std::fprintf(stderr, "%s\n", small ? "]" : "");
    } else {
      std::fprintf(stderr, "mock: kernarg +%zu: %lld\n", at,
                   static_cast<long long>(v));
    }
  }
  return kSuccess;
}

MOCK_API int cuCtxSynchronize() { return kSuccess; }

MOCK_API int cuEventCreate(void **ev, unsigned) {
  static int which = 0;
  *ev = which++ % 2 ? &eventB : &eventA;
  return kSuccess;
}
MOCK_API int cuEventRecord(void *, void *) { return kSuccess; }
MOCK_API int cuEventSynchronize(void *) { return kSuccess; }
MOCK_API int cuEventElapsedTime(float *ms, void *, void *) {
  *ms = 0.25f;
  return kSuccess;
}
MOCK_API int cuEventDestroy_v2(void *) { return kSuccess; }

MOCK_API int cuGetErrorName(int e, const char **s) {
  switch (e) {
  case kSuccess:
    *s = "CUDA_SUCCESS";
    return kSuccess;
  case kInvalidValue:
    *s = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  case kNotInitialized:
    *s = "CUDA_ERROR_NOT_INITIALIZED";
    return kSuccess;
  case kNoDevice:
    *s = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  case kInvalidDevice:
    *s = "CUDA_ERROR_INVALID_DEVICE";
    return kSuccess;
  case kInvalidPtx:
    *s = "CUDA_ERROR_INVALID_PTX";
    return kSuccess;
  case kInvalidHandle:
    *s = "CUDA_ERROR_INVALID_HANDLE";
    return kSuccess;
  case kNotFound:
    *s = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  }
  *s = nullptr;
  return kInvalidValue;
}

MOCK_API int cuGetErrorString(int e, const char **s) {
  switch (e) {
  case kSuccess:
    *s = "no error";
    return kSuccess;
  case kInvalidValue:
    *s = "invalid argument";
    return kSuccess;
  case kNotInitialized:
    *s = "initialization error";
    return kSuccess;
  case kNoDevice:
    *s = "no CUDA-capable device is detected";
    return kSuccess;
  case kInvalidDevice:
    *s = "invalid device ordinal";
    return kSuccess;
  case kInvalidPtx:
    *s = "a PTX JIT compilation failed";
    return kSuccess;
  case kInvalidHandle:
    *s = "invalid resource handle";
    return kSuccess;
  case kNotFound:
    *s = "named symbol not found";
    return kSuccess;
  }
  *s = nullptr;
  return kInvalidValue;
}
