//===- ExpandFp8ArithTest.cpp - fp8 extf/truncf expansion vs APFloat ----===//
//===//
//
// Builds extf / truncf functions for every fp8 type and every wide float type,
// runs fmha-expand-fp8-arith and the upstream lowering to LLVM, JIT-compiles
// them (at -O0 and -O2, scalar and vector<2x8>) and compares every result bit
// for bit with llvm::APFloat::convert (round to nearest even) plus the pass's
// saturation rule.
//
//===----------------------------------------------------------------------===//

#include "fmha/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using llvm::APFloat;
using llvm::APInt;

namespace {

struct Fp8 {
  const char *mlir;
  const llvm::fltSemantics &(*sem)();
  bool fnuz;
  bool hasInf;
  uint8_t maxCode; ///< largest finite positive code
  uint8_t nanCode; ///< canonical positive NaN (FNUZ: the only NaN)
};

const Fp8 kFp8[] = {
    {"f8E4M3FN", APFloat::Float8E4M3FN, false, false, 0x7E, 0x7F},
    {"f8E4M3FNUZ", APFloat::Float8E4M3FNUZ, true, false, 0x7F, 0x80},
    {"f8E5M2", APFloat::Float8E5M2, false, true, 0x7B, 0x7E},
    {"f8E5M2FNUZ", APFloat::Float8E5M2FNUZ, true, false, 0x7F, 0x80},
};

struct Wide {
  const char *mlir;
  unsigned width;
  const llvm::fltSemantics &(*sem)();
};

const Wide kF16{"f16", 16, APFloat::IEEEhalf};
const Wide kBF16{"bf16", 16, APFloat::BFloat};
const Wide kF32{"f32", 32, APFloat::IEEEsingle};
const Wide kF64{"f64", 64, APFloat::IEEEdouble};
const Wide kWide[] = {kF16, kBF16, kF32, kF64};

constexpr int kLanes = 16; // vector<2x8>

std::string extName(const Fp8 &f, const Wide &w, bool vec) {
  return std::string(vec ? "vext_" : "ext_") + f.mlir + "_" + w.mlir;
}
std::string truncName(const Wide &w, const Fp8 &f, bool vec) {
  return std::string(vec ? "vtrunc_" : "trunc_") + w.mlir + "_" + f.mlir;
}

/// The test module: every (fp8, wide) pair, both directions, scalar and
/// vector<2x8>; functions take and return integers so that no fp8 type
/// crosses the ABI.
std::string buildModule() {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "module {\n";
  for (const Fp8 &f : kFp8) {
    for (const Wide &w : kWide) {
      for (bool vec : {false, true}) {
        auto t = [&](const std::string &e) {
          return vec ? "vector<2x8x" + e + ">" : e;
        };
        std::string i8 = t("i8"), f8 = t(f.mlir), wf = t(w.mlir),
                    wi = t("i" + std::to_string(w.width));
        os << "func.func @" << extName(f, w, vec) << "(%c: " << i8 << ") -> "
           << wi << " {\n"
           << "  %f = arith.bitcast %c : " << i8 << " to " << f8 << "\n"
           << "  %e = arith.extf %f : " << f8 << " to " << wf << "\n"
           << "  %b = arith.bitcast %e : " << wf << " to " << wi << "\n"
           << "  return %b : " << wi << "\n}\n";
        os << "func.func @" << truncName(w, f, vec) << "(%x: " << wi << ") -> "
           << i8 << " {\n"
           << "  %f = arith.bitcast %x : " << wi << " to " << wf << "\n"
           << "  %t = arith.truncf %f : " << wf << " to " << f8 << "\n"
           << "  %b = arith.bitcast %t : " << f8 << " to " << i8 << "\n"
           << "  return %b : " << i8 << "\n}\n";
      }
    }
  }
  os << "}\n";
  return s;
}

using PackedFn = void (*)(void **);

/// One compiled module: the pass plus the upstream lowering, JIT-compiled.
struct Compiled {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::map<std::string, PackedFn> fns;

  PackedFn fn(const std::string &name) {
    auto it = fns.find(name);
    if (it != fns.end())
      return it->second;
    auto f = engine->lookupPacked(name);
    if (!f) {
      ADD_FAILURE() << "no function " << name << ": "
                    << llvm::toString(f.takeError());
      return nullptr;
    }
    return fns[name] = *f;
  }
};

using CompiledCache =
    std::map<std::pair<unsigned, bool>, std::unique_ptr<Compiled>>;

CompiledCache &compiledCache() {
  static CompiledCache cache;
  return cache;
}

/// Drops the JIT engines before exit: destroying them from a static
/// destructor, after LLVM's own statics are gone, crashes.
struct ReleaseEngines : ::testing::Environment {
  void TearDown() override { compiledCache().clear(); }
};
[[maybe_unused]] ::testing::Environment *const releaseEngines =
    ::testing::AddGlobalTestEnvironment(new ReleaseEngines);

/// Compiles the test module once per (opt level, saturate-inf).
Compiled &getCompiled(unsigned optLevel, bool saturateInf) {
  auto &slot = compiledCache()[{optLevel, saturateInf}];
  if (slot)
    return *slot;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::vector::VectorDialect, mlir::LLVM::LLVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(buildModule(), &ctx);
  slot = std::make_unique<Compiled>();
  if (!module) {
    ADD_FAILURE() << "test module does not parse";
    return *slot;
  }

  mlir::PassManager pm(&ctx);
  mlir::fmha::ExpandFp8ArithPassOptions options;
  options.saturateInf = saturateInf;
  pm.addPass(mlir::fmha::createExpandFp8ArithPass(options));
  if (failed(pm.run(*module))) {
    ADD_FAILURE() << "fmha-expand-fp8-arith failed";
    return *slot;
  }
  // Every fp8 conversion must be gone before the LLVM lowering.
  int left = 0;
  module->walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::arith::ExtFOp, mlir::arith::TruncFOp>(op))
      ++left;
  });
  EXPECT_EQ(left, 0) << "fp8 extf/truncf left after the pass";

  mlir::PassManager lower(&ctx);
  lower.addPass(mlir::createConvertVectorToLLVMPass());
  lower.addPass(mlir::createArithToLLVMConversionPass());
  lower.addPass(mlir::createConvertFuncToLLVMPass());
  lower.addPass(mlir::createReconcileUnrealizedCastsPass());
  if (failed(lower.run(*module))) {
    ADD_FAILURE() << "lowering to LLVM failed";
    return *slot;
  }

  auto transformer = mlir::makeOptimizingTransformer(optLevel, 0, nullptr);
  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.enablePerfNotificationListener = false; // no /tmp/.debug dumps
  engineOptions.jitCodeGenOptLevel = optLevel == 0
                                         ? llvm::CodeGenOptLevel::None
                                         : llvm::CodeGenOptLevel::Default;
  auto engine = mlir::ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    ADD_FAILURE() << "JIT: " << llvm::toString(engine.takeError());
    return *slot;
  }
  slot->engine = std::move(*engine);
  slot->engine->initialize();
  return *slot;
}

template <typename R, typename A> R callScalar(PackedFn fn, A a) {
  R r{};
  void *args[] = {&a, &r};
  fn(args);
  return r;
}

/// A vector<2x8xT> argument or result, laid out as LLVM's [2 x <8 x T>].
template <typename T> struct alignas(64) Lanes { T v[kLanes]; };

template <typename R, typename A>
void callVector(PackedFn fn, const Lanes<A> &in, Lanes<R> &out) {
  Lanes<A> a = in;
  void *args[] = {&a, &out};
  fn(args);
}

uint64_t wideBits(const APFloat &x) {
  return x.bitcastToAPInt().getZExtValue();
}

/// What extf must give: APFloat's exact conversion, NaN payload included.
uint64_t expectedExt(const Fp8 &f, const Wide &w, uint8_t code) {
  APFloat v(f.sem(), APInt(8, code));
  bool lost = false;
  v.convert(w.sem(), APFloat::rmNearestTiesToEven, &lost);
  EXPECT_FALSE(lost);
  return wideBits(v);
}

/// What truncf must give: APFloat's round to nearest even, except that
/// overflow and inf saturate (f8E5M2 keeps inf unless saturateInf) and NaN is
/// the format's canonical NaN with the input's sign (FNUZ: 0x80).
uint8_t expectedTrunc(const Fp8 &f, const APFloat &x, bool saturateInf) {
  uint8_t sign = x.isNegative() ? 0x80 : 0;
  if (x.isNaN())
    return f.fnuz ? 0x80 : sign | f.nanCode;
  if (x.isInfinity())
    return sign | (f.hasInf && !saturateInf ? 0x7C : f.maxCode);
  APFloat y = x;
  bool lost = false;
  APFloat::opStatus st =
      y.convert(f.sem(), APFloat::rmNearestTiesToEven, &lost);
  if (st & APFloat::opOverflow)
    return sign | f.maxCode;
  return static_cast<uint8_t>(y.bitcastToAPInt().getZExtValue());
}

template <typename I> APFloat fromBits(const Wide &w, I bits) {
  return APFloat(w.sem(), APInt(w.width, static_cast<uint64_t>(bits)));
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// Finite non-negative values of f in increasing order, in double.
std::vector<double> fp8Values(const Fp8 &f) {
  std::vector<double> vals;
  for (unsigned c = 0; c <= f.maxCode; ++c) {
    APFloat v(f.sem(), APInt(8, c));
    if (v.isNaN() || v.isInfinity())
      continue;
    vals.push_back(v.convertToDouble());
  }
  return vals;
}

/// Inputs of type T (float or double) that probe the rounding of f: every
/// value, every midpoint, a few ulps (of T) around both, the overflow
/// threshold, specials; both signs.
template <typename T> std::vector<T> probeValues(const Fp8 &f) {
  std::vector<double> vals = fp8Values(f);
  double ulp8Top = vals.back() - vals[vals.size() - 2];
  vals.push_back(vals.back() + ulp8Top); // first value past max
  std::vector<T> out;
  auto around = [&](T x) {
    T lo = x, hi = x;
    out.push_back(x);
    for (int i = 0; i < 2; ++i) {
      lo = std::nextafter(lo, T(0));
      hi = std::nextafter(hi, std::numeric_limits<T>::infinity());
      out.push_back(lo);
      out.push_back(hi);
    }
  };
  for (size_t i = 0; i < vals.size(); ++i) {
    around(static_cast<T>(vals[i]));
    if (i + 1 < vals.size()) {
      double mid = 0.5 * (vals[i] + vals[i + 1]); // exact
      around(static_cast<T>(mid));
      // Off the midpoint by less than half an f32 ulp: a value that a
      // rounding through f32 would turn into a tie.
      if (sizeof(T) == 8) {
        double q = std::ldexp(std::fabs(mid), -26);
        out.push_back(static_cast<T>(mid + q));
        out.push_back(static_cast<T>(mid - q));
      }
    }
  }
  const T specials[] = {T(0),
                        std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::infinity(),
                        static_cast<T>(2 * vals.back()),
                        T(1e30),
                        T(1e-30)};
  for (T s : specials)
    out.push_back(s);
  std::vector<T> neg;
  for (T x : out)
    neg.push_back(-x);
  out.insert(out.end(), neg.begin(), neg.end());
  return out;
}

/// Compares trunc_<w>_<f> (scalar and vector) with expectedTrunc on `inputs`
/// (bit patterns of w); returns the number of values compared.
template <typename I>
size_t checkTrunc(Compiled &c, const Wide &w, const Fp8 &f,
                  const std::vector<I> &inputs, bool saturateInf) {
  PackedFn scalar = c.fn(truncName(w, f, false));
  PackedFn vector = c.fn(truncName(w, f, true));
  if (!scalar || !vector)
    return 0;
  size_t failures = 0;
  Lanes<I> in{};
  Lanes<uint8_t> out{};
  for (size_t base = 0; base < inputs.size(); base += kLanes) {
    for (int l = 0; l < kLanes; ++l)
      in.v[l] = inputs[std::min(base + l, inputs.size() - 1)];
    callVector(vector, in, out);
    for (int l = 0; l < kLanes && base + l < inputs.size(); ++l) {
      I bits = in.v[l];
      uint8_t want = expectedTrunc(f, fromBits(w, bits), saturateInf);
      uint8_t got = callScalar<uint8_t>(scalar, bits);
      if ((got != want || out.v[l] != want) && ++failures <= 10)
        ADD_FAILURE() << "truncf " << w.mlir << " " << hex(bits) << " to "
                      << f.mlir << ": scalar " << hex(got) << ", vector "
                      << hex(out.v[l]) << ", expected " << hex(want);
    }
  }
  EXPECT_EQ(failures, 0u) << w.mlir << " -> " << f.mlir;
  return inputs.size();
}

template <typename I> std::vector<I> bitsOf(const std::vector<float> &xs) {
  std::vector<I> out;
  for (float x : xs) {
    I b;
    std::memcpy(&b, &x, sizeof(b));
    out.push_back(b);
  }
  return out;
}

class ExpandFp8ArithJit : public ::testing::TestWithParam<unsigned> {
protected:
  Compiled &compiled(bool saturateInf = false) {
    return getCompiled(GetParam(), saturateInf);
  }
  /// Every input is checked through the scalar and the vector function.
  void report(const char *what, size_t n) {
    std::printf("[ fp8 -O%u ] %s: %zu inputs, each scalar and vector\n",
                GetParam(), what, n);
  }
};

TEST_P(ExpandFp8ArithJit, ExtFAllCodesAllDestinations) {
  Compiled &c = compiled();
  ASSERT_TRUE(c.engine);
  size_t n = 0;
  for (const Fp8 &f : kFp8) {
    for (const Wide &w : kWide) {
      PackedFn scalar = c.fn(extName(f, w, false));
      PackedFn vector = c.fn(extName(f, w, true));
      ASSERT_TRUE(scalar && vector);
      for (unsigned base = 0; base < 256; base += kLanes) {
        Lanes<uint8_t> in{};
        for (int l = 0; l < kLanes; ++l)
          in.v[l] = static_cast<uint8_t>(base + l);
        uint64_t vecOut[kLanes];
        switch (w.width) {
        case 16: {
          Lanes<uint16_t> out{};
          callVector(vector, in, out);
          for (int l = 0; l < kLanes; ++l)
            vecOut[l] = out.v[l];
          break;
        }
        case 32: {
          Lanes<uint32_t> out{};
          callVector(vector, in, out);
          for (int l = 0; l < kLanes; ++l)
            vecOut[l] = out.v[l];
          break;
        }
        default: {
          Lanes<uint64_t> out{};
          callVector(vector, in, out);
          for (int l = 0; l < kLanes; ++l)
            vecOut[l] = out.v[l];
          break;
        }
        }
        for (int l = 0; l < kLanes; ++l) {
          uint8_t code = in.v[l];
          uint64_t want = expectedExt(f, w, code);
          uint64_t got = w.width == 16   ? callScalar<uint16_t>(scalar, code)
                         : w.width == 32 ? callScalar<uint32_t>(scalar, code)
                                         : callScalar<uint64_t>(scalar, code);
          EXPECT_EQ(got, want) << "extf " << f.mlir << " " << hex(code)
                               << " to " << w.mlir << " (scalar)";
          EXPECT_EQ(vecOut[l], want) << "extf " << f.mlir << " " << hex(code)
                                     << " to " << w.mlir << " (vector)";
          ++n;
        }
      }
    }
  }
  report("extf, 256 codes x 4 fp8 types x 4 destinations", n);
}

TEST_P(ExpandFp8ArithJit, TruncFFromF32Sweep) {
  Compiled &c = compiled();
  ASSERT_TRUE(c.engine);
  // Shared part: a stride through all 2^32 patterns, random patterns.
  std::vector<uint32_t> shared;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 4093)
    shared.push_back(static_cast<uint32_t>(b));
  std::mt19937_64 rng(0xF8F8);
  for (int i = 0; i < 50000; ++i)
    shared.push_back(static_cast<uint32_t>(rng()));
  const uint32_t nans[] = {0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
                           0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000, 0x7F900000};
  shared.insert(shared.end(), std::begin(nans), std::end(nans));
  // Every f32 subnormal exponent pattern and the smallest normals.
  for (uint32_t b = 1; b < 0x01000000u; b = b * 3 + 1)
    shared.push_back(b);
  size_t n = 0;
  for (const Fp8 &f : kFp8) {
    std::vector<uint32_t> in = bitsOf<uint32_t>(probeValues<float>(f));
    // Random values spread over the format's range and a bit beyond it.
    std::vector<double> vals = fp8Values(f);
    double lo = std::log2(vals[1]) - 3, hi = std::log2(vals.back()) + 2;
    std::uniform_real_distribution<double> e(lo, hi);
    std::vector<float> rnd;
    for (int i = 0; i < 50000; ++i)
      rnd.push_back(
          static_cast<float>((rng() & 1 ? -1 : 1) * std::exp2(e(rng))));
    std::vector<uint32_t> r = bitsOf<uint32_t>(rnd);
    in.insert(in.end(), r.begin(), r.end());
    in.insert(in.end(), shared.begin(), shared.end());
    n += checkTrunc(c, kF32, f, in, false);
  }
  report("truncf f32 -> 4 fp8 types (probes, stride-4093 sweep, random)", n);
}

TEST_P(ExpandFp8ArithJit, TruncFFromF16AndBF16Exhaustive) {
  Compiled &c = compiled();
  ASSERT_TRUE(c.engine);
  std::vector<uint16_t> all;
  for (unsigned b = 0; b < 65536; ++b)
    all.push_back(static_cast<uint16_t>(b));
  size_t n = 0;
  for (const Fp8 &f : kFp8) {
    n += checkTrunc(c, kF16, f, all, false);
    n += checkTrunc(c, kBF16, f, all, false);
  }
  report("truncf f16 and bf16 -> 4 fp8 types, all 65536 patterns", n);
}

TEST_P(ExpandFp8ArithJit, TruncFFromF64) {
  Compiled &c = compiled();
  ASSERT_TRUE(c.engine);
  std::mt19937_64 rng(0xD0B1E);
  size_t n = 0;
  for (const Fp8 &f : kFp8) {
    std::vector<double> probes = probeValues<double>(f);
    std::vector<uint64_t> in;
    for (double x : probes) {
      uint64_t b;
      std::memcpy(&b, &x, 8);
      in.push_back(b);
    }
    std::vector<double> vals = fp8Values(f);
    std::uniform_real_distribution<double> e(std::log2(vals[1]) - 3,
                                             std::log2(vals.back()) + 2);
    for (int i = 0; i < 50000; ++i) {
      double x = (rng() & 1 ? -1 : 1) * std::exp2(e(rng));
      uint64_t b;
      std::memcpy(&b, &x, 8);
      in.push_back(b);
      in.push_back(rng());
    }
    for (uint64_t b :
         {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
          0x0000000000000001ull, 0x8000000000000001ull, 0x7FF0000000000000ull})
      in.push_back(b);
    n += checkTrunc(c, kF64, f, in, false);
  }
  report("truncf f64 -> 4 fp8 types (probes incl. near-ties, random)", n);
}

TEST_P(ExpandFp8ArithJit, SaturateInfOption) {
  Compiled &c = compiled(/*saturateInf=*/true);
  ASSERT_TRUE(c.engine);
  size_t n = 0;
  for (const Fp8 &f : kFp8) {
    std::vector<uint32_t> in = bitsOf<uint32_t>(probeValues<float>(f));
    n += checkTrunc(c, kF32, f, in, /*saturateInf=*/true);
  }
  // The option's one visible change.
  PackedFn e5m2 = c.fn(truncName(kF32, kFp8[2], false));
  ASSERT_TRUE(e5m2);
  EXPECT_EQ(callScalar<uint8_t>(e5m2, uint32_t(0x7F800000)), 0x7B);
  EXPECT_EQ(callScalar<uint8_t>(e5m2, uint32_t(0xFF800000)), 0xFB);
  report("truncf f32 -> 4 fp8 types with saturate-inf (probes)", n);
}

INSTANTIATE_TEST_SUITE_P(OptLevels, ExpandFp8ArithJit,
                         ::testing::Values(0u, 2u),
                         [](const ::testing::TestParamInfo<unsigned> &info) {
                           return "O" + std::to_string(info.param);
                         });

} // namespace
