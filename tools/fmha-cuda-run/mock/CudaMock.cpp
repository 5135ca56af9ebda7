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
// Environment: FMHA_CUDA_MOCK_DEVICES sets the device count (default 1; 0
// answers like a driver on a machine without a GPU);
// FMHA_CUDA_MOCK_JIT_ERROR=TEXT makes the module load fail with TEXT in the
// JIT error log; FMHA_CUDA_MOCK_MAX_THREADS sets the kernel's
// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (default 1024).
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

MOCK_API int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                            unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, void *stream, void **params,
                            void **extra) {
  if (fn != &kernelName || params || !extra ||
      shared > unsigned(std::max(maxDynamicShared, 48 * 1024)))
    return kInvalidValue;
  // Only the first launch is printed; later ones (warm-ups, timing) count.
  if (launches++)
    return kSuccess;
  // {BUFFER_POINTER (1), buf, BUFFER_SIZE (2), &size, END (0)}
  const uint8_t *buf = nullptr;
  size_t size = 0;
  for (size_t i = 0;; i += 2) {
    uintptr_t key = reinterpret_cast<uintptr_t>(extra[i]);
    if (key == 0)
      break;
    if (key == 1)
      buf = static_cast<const uint8_t *>(extra[i + 1]);
    else if (key == 2)
      size = *static_cast<const size_t *>(extra[i + 1]);
    else
      return kInvalidValue;
  }
  if (!buf)
    return kInvalidValue;
  std::fprintf(stderr,
               "mock: launch %s grid=[%u,%u,%u] block=[%u,%u,%u] shared=%u "
               "stream=%p kernarg_bytes=%zu\n",
               kernelName.c_str(), gx, gy, gz, bx, by, bz, shared, stream,
               size);
  for (size_t at = 0; at + 8 <= size; at += 8) {
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
